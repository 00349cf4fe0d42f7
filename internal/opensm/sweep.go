package opensm

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// The sweep: a running OpenSM told to re-read its files and sweep the fabric again, without any
// file changing. OpenSM answers SIGHUP with a heavy sweep that re-reads partitions.conf and the
// root and CN GUID files (opensm(8), SIGNALS; osm_opensm.c); what it reads only at start
// (routing_engine, lmc, file paths: the options osm_subnet.c's opt_tbl marks as not updatable)
// stays as it started. It is what an operator does after a cable or a switch was replaced, or
// after a hand edit that a push would otherwise find and undo.

// Sweep tells a host's running OpenSM to re-read its files and run a heavy sweep, then verifies
// the outcome as Push does after a SIGHUP (verify): the master's routing run configured the
// switches with the expected engine and roots and OpenSM kept the partitions; a standby, which
// does not sweep, still runs without partition errors. It writes nothing, so there is nothing to
// roll back: a failed verification leaves OpenSM as it is and the error quotes the log lines that
// explain it.
//
// t.Files is ignored. Without t.Expect, the expectation is read from the files on the host
// (ExpectFromFiles). A host without a running OpenSM, or whose files an earlier push wrote but
// never activated (PendingMarker), is refused before anything is sent: the first needs a start,
// the second the push that wrote them. With start/stop commands and no reload command a "reload"
// is a restart (Service.reloadSteps), and it is verified as one. The host's lock is held
// throughout when the Host offers one.
func Sweep(ctx context.Context, t Target) (Result, error) {
	res := Result{Host: t.Name, Action: ActionSIGHUP}
	fail := func(stage string, err error) (Result, error) {
		return res, &PushError{Host: t.Name, Stage: stage, Err: err}
	}
	if err := t.Service.Validate(); err != nil {
		return fail("check", err)
	}
	ctx, release, err := t.lock(ctx)
	if err != nil {
		return fail("lock", err)
	}
	defer release()
	pr, err := t.probe(ctx)
	if err != nil {
		return fail("read", err)
	}
	switch {
	case pr.status == statusDown:
		return fail("check", errors.New("OpenSM is not running (the status command failed): a sweep needs a running OpenSM; apply the fabric, which starts it, or start the service"))
	case pr.pending != nil:
		return fail("check", fmt.Errorf("an earlier push wrote the files in %s but never told OpenSM (%s is on the host): apply the fabric to finish that push rather than activate its files unverified", t.Paths.Dir(), PendingMarker))
	case pr.files[FileOpenSMConf] == "":
		return fail("check", fmt.Errorf("%s has no %s: nothing for OpenSM to re-read that the provider wrote", t.Paths.Dir(), FileOpenSMConf))
	}
	if t.Expect == (Expect{}) {
		t.Expect = ExpectFromFiles(pr.files)
	}
	if t.Service.commands() && t.Service.Reload == "" {
		res.Action = ActionRestart
		t.say("no reload command: restarting OpenSM, which re-reads every file")
	} else {
		t.say("signalling OpenSM (SIGHUP): a heavy sweep re-reads partitions.conf and the GUID files")
	}
	stage := "sighup"
	if res.Action == ActionRestart {
		stage = "restart"
	}
	offset, err := t.runSteps(ctx, t.Service.reloadSteps(), pr.logSize)
	if err != nil {
		res.Log, _ = t.logSince(ctx, offset)
		return res, &PushError{Host: t.Name, Stage: stage, Err: err, LogLines: explain(res.Log)}
	}
	res.Standby, res.Verdict, res.Log, err = t.verify(ctx, res.Action, pr.state, offset)
	if err != nil {
		return res, &PushError{Host: t.Name, Stage: "verify", Err: err, LogLines: explain(res.Log)}
	}
	t.sayVerified(&res)
	return res, nil
}

// ExpectFromFiles says what a good routing run of the files as they are on a host looks like:
// the first engine opensm.conf names (the flavour's default when it names none, as ExpectFor
// does for a rendered set) and, for ftree, as many roots as the root GUID file lists. Error-level
// log lines are reported, not refused.
func ExpectFromFiles(files Files) Expect {
	opts := ParseOptionFile(files[FileOpenSMConf])
	e := ExpectFor(Config{Flavor: FlavorOf(files), RoutingEngine: opts["routing_engine"]})
	if e.Engine == "ftree" {
		for _, line := range strings.Split(files[FileRootGUIDs], "\n") {
			if _, err := ParseGUID(strings.TrimSpace(line)); err == nil {
				e.Roots++
			}
		}
	}
	return e
}
