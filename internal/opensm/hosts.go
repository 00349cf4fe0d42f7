package opensm

// The SM hosts together: a fabric has a primary SM host and standbys, and a push, a sweep, a
// restore and a refresh each visit all of them, in an order that keeps the master the first
// (or, undoing, the last) to change, and say what was done where when one host fails.

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/listed"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/remote"
)

// Opener connects to the i-th host of a run over the SM hosts (PushAll, SweepAll, UnpushAll,
// ReadAll) and describes the target; closeFn ends the connection.
type Opener func(ctx context.Context, i int) (t Target, closeFn func(), err error)

// Op is what a run over the SM hosts does on each host; it names the run in messages.
type Op int

const (
	OpPush Op = iota
	OpSweep
	OpUnpush
	OpRead
)

func (op Op) String() string {
	switch op {
	case OpSweep:
		return "sweep"
	case OpUnpush:
		return "unpush"
	case OpRead:
		return "read"
	}
	return "push"
}

// done says what became of the hosts visited before a failure.
func (op Op) done() string {
	switch op {
	case OpSweep:
		return "swept and verified"
	case OpUnpush:
		return "restored (or left as they were)"
	case OpRead:
		return "read"
	}
	return "pushed and verified"
}

// LoggedErrors is the warning for a host the op verified whose OpenSM logged error lines after
// it (the first three quoted): a push warns only when it wrote files, since a host left alone
// was not changed by it. ok is false when there is nothing to warn about.
func (op Op) LoggedErrors(r Result) (summary, detail string, ok bool) {
	n := len(r.Verdict.Errors)
	if n == 0 || op == OpPush && !r.Written {
		return "", "", false
	}
	first := strings.Join(r.Verdict.Errors[:min(n, 3)], " | ")
	summary = "OpenSM on " + r.Host + " logged errors"
	if op == OpSweep {
		return summary, fmt.Sprintf("The sweep was verified (%s), but OpenSM logged %d error lines after it, first: %s", r.Verdict.Engine, n, first), true
	}
	return summary, fmt.Sprintf("Routing was verified (%s), but OpenSM logged %d error lines after the change, first: %s", r.Verdict.Engine, n, first), true
}

// AllError is a run over the SM hosts stopped at one host: the hosts visited before it keep what
// the run did to them; the hosts after it are not touched.
type AllError struct {
	Op    Op
	Index int      // the host that failed, in the order given
	Host  string   // its name
	Open  bool     // it could not be reached (Err is the Opener's); otherwise Err is the op's
	Done  []string // hosts visited before it, in the order visited
	Left  []string // hosts after it, not touched
	Err   error
}

func (e *AllError) Unwrap() error { return e.Err }

func (e *AllError) Error() string {
	return e.Err.Error() + e.hostLists("; %s: %s", "already "+e.Op.done(), "not touched")
}

// Summary names the failure in a few words, for a message whose detail is Err.
func (e *AllError) Summary() string {
	switch {
	case e.Open && e.Op == OpUnpush:
		return "Cannot restore the subnet manager host " + e.Host
	case e.Open:
		return "Cannot reach subnet manager host " + e.Host
	case e.Op == OpPush:
		return "OpenSM push to " + e.Host + " failed"
	case e.Op == OpUnpush:
		return "Restoring the subnet manager host " + e.Host + " failed"
	}
	return "OpenSM " + e.Op.String() + " on " + e.Host + " failed"
}

// Note lists the hosts done before the failed one and those not touched, one paragraph each,
// for the end of a message that quotes Err.
func (e *AllError) Note() string {
	done := "Already " + e.Op.done()
	if e.Op == OpPush {
		done += " (they keep the new files)"
	}
	return e.hostLists("\n\n%s: %s.", done, "Not touched")
}

func (e *AllError) hostLists(format, done, left string) string {
	var b strings.Builder
	if len(e.Done) > 0 {
		fmt.Fprintf(&b, format, done, strings.Join(e.Done, ", "))
	}
	if len(e.Left) > 0 {
		fmt.Fprintf(&b, format, left, strings.Join(e.Left, ", "))
	}
	return b.String()
}

// each runs do on the hosts in the order of idx, connecting to each only when its turn comes, so
// a failure leaves the hosts after it unopened. It stops at the first host that cannot be
// reached or whose do fails, with an *AllError.
func each(ctx context.Context, op Op, hosts []string, idx []int, open Opener, do func(Target) error) error {
	names := func(ks []int) []string {
		out := make([]string, len(ks))
		for j, k := range ks {
			out[j] = hosts[k]
		}
		return out
	}
	for k, i := range idx {
		t, closeFn, err := open(ctx, i)
		opening := err != nil
		if err == nil {
			err = do(t)
			closeFn()
		}
		if err != nil {
			return &AllError{Op: op, Index: i, Host: hosts[i], Open: opening, Done: names(idx[:k]), Left: names(idx[k+1:]), Err: err}
		}
	}
	return nil
}

func forward(n int) []int {
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	return idx
}

// PushAll pushes to the hosts in order (the primary SM first, then the standbys). It stops at the
// first host that cannot be reached or whose push fails (which Push rolls back), with an
// *AllError; the hosts after it are not touched and the hosts before it keep the new files, which
// they verified. The results of the hosts pushed are returned either way, the failed one's last.
func PushAll(ctx context.Context, hosts []string, open Opener) ([]Result, error) {
	var out []Result
	err := each(ctx, OpPush, hosts, forward(len(hosts)), open, func(t Target) error {
		r, err := Push(ctx, t)
		out = append(out, r)
		return err
	})
	return out, err
}

// SweepAll sweeps the hosts in order (the primary SM first), as PushAll pushes: it stops at the
// first host that cannot be reached or whose Sweep fails, with an *AllError. A sweep writes
// nothing, so there is nothing to roll back on any host. The results of the hosts swept are
// returned either way, the failed one's last.
func SweepAll(ctx context.Context, hosts []string, open Opener) ([]Result, error) {
	var out []Result
	err := each(ctx, OpSweep, hosts, forward(len(hosts)), open, func(t Target) error {
		r, err := Sweep(ctx, t)
		out = append(out, r)
		return err
	})
	return out, err
}

// UnpushAll puts the hosts back as they were before the provider's first push (Unpush), the
// standbys first and the primary last, so the master is the last SM to change. A host without a
// snapshot (ErrNoOriginal) is left as it is, its Result marked Kept, and the run goes on; any
// other failure stops it, with an *AllError. The results are in the order visited.
func UnpushAll(ctx context.Context, hosts []string, open Opener) ([]Result, error) {
	idx := forward(len(hosts))
	for i, j := 0, len(idx)-1; i < j; i, j = i+1, j-1 {
		idx[i], idx[j] = idx[j], idx[i]
	}
	var out []Result
	err := each(ctx, OpUnpush, hosts, idx, open, func(t Target) error {
		r, err := Unpush(ctx, t)
		if errors.Is(err, ErrNoOriginal) {
			r.Kept, err = true, nil
		}
		if err == nil {
			out = append(out, r)
		}
		return err
	})
	return out, err
}

// HostsState is what the SM hosts run, as ReadAll reads it back for a refresh.
type HostsState struct {
	// Files are what a plan compares the rendered set with: the files OpenSM runs on the first
	// host (a file missing there is absent). They are empty when that host's files were never
	// activated (Pending) or OpenSM does not run as intended on some host (Sick): what OpenSM
	// runs is then not the rendered set, whatever the files say, and a push must act.
	Files   Files
	Pending bool         // the first host holds PendingMarker
	Sick    []HostHealth // hosts whose OpenSM needs repair (Health.NeedsRepair), in order
	// Unread are the hosts after the first whose state could not be read: whether their
	// OpenSM runs is not known, but the files come from the first host alone.
	Unread []HostError
}

// UnreadSummary opens the summary of the warning for a host whose state could not be read; the
// host follows. A caller that caps those warnings (one per host) knows them by it.
const UnreadSummary = "Cannot read the state of OpenSM on "

// Warning is something a run over the SM hosts has to tell without failing: a few words, then
// what was seen and what happens next.
type Warning struct{ Summary, Detail string }

// UnreadWarnings are the warnings for the hosts whose state could not be read (Unread): all a
// read that stopped (ReadAll's *AllError) can say, since the rest of st was not all read.
func (st HostsState) UnreadWarnings() []Warning {
	out := make([]Warning, 0, len(st.Unread))
	for _, u := range st.Unread {
		out = append(out, Warning{UnreadSummary + u.Host,
			u.Err.Error() + "\n\nWhether OpenSM runs there is not seen by this plan."})
	}
	return out
}

// Warnings are what a refresh that read every host says of them: UnreadWarnings, then why Files
// is empty when it is emptied, since the plan then shows every file as a change and the person
// reading it must know the push is a repair, not drift: the primary (the first host, its files
// in dir) never took its files (Pending), or OpenSM does not run as intended on the Sick hosts.
func (st HostsState) Warnings(primary, dir string) []Warning {
	out := st.UnreadWarnings()
	if st.Pending {
		out = append(out, Warning{"OpenSM on " + primary + " never took the files on its disk",
			"An earlier apply wrote them and lost the host before OpenSM was told (" + PendingMarker + " is in " + dir + "). " +
				"The plan pushes the files again: the push tells OpenSM, verifies its routing, and restores the files it ran if that fails."})
	}
	if len(st.Sick) > 0 {
		// One line per host, and the list of hosts has no bound: the first maxListed, then a count.
		hosts, lines := make([]string, len(st.Sick)), make([]string, 0, min(len(st.Sick), maxListed))
		for i, s := range st.Sick {
			hosts[i] = s.Host
			if i < maxListed {
				lines = append(lines, fmt.Sprintf("%s: OpenSM is %s: %s", s.Host, s.Health.Live, s.Health.Why))
			}
		}
		out = append(out, Warning{"OpenSM does not run as intended on " + listed.First(hosts, listed.Few, ", "),
			strings.Join(lines, "\n") + more(len(st.Sick)-len(lines), "host", "hosts") + "\n\nThe plan shows every OpenSM file as a change, because OpenSM does not run them: the apply " +
				"starts OpenSM (or makes it sweep again) with the rendered files on that host and verifies that it routes, " +
				"and rolls back and fails with OpenSM's log if it does not."})
	}
	return out
}

// HostHealth is one host's OpenSM health.
type HostHealth struct {
	Host   string
	Health Health
}

// HostError is one host's failure that did not stop a run.
type HostError struct {
	Host string
	Err  error
}

// ReadAll reads back what the hosts run (ReadHostState), the counterpart of PushAll: the files
// from the first host, the health from every host. It stops, with an *AllError and what it read
// until then, when the first host cannot be read (there are no files to compare with) or when
// any host's key is refused (*remote.HostKeyError: not a host that is down, but one that may not
// be the host meant). It takes no host's lock: it writes nothing.
func ReadAll(ctx context.Context, hosts []string, open Opener) (HostsState, error) {
	var st HostsState
	for i, host := range hosts {
		t, closeFn, err := open(ctx, i)
		opening := err != nil
		var hs HostState
		if err == nil {
			hs, err = ReadHostState(ctx, t, i == 0)
			closeFn()
		}
		var hk *remote.HostKeyError
		switch {
		case err != nil && (i == 0 || errors.As(err, &hk)):
			return st, &AllError{Op: OpRead, Index: i, Host: host, Open: opening, Done: hosts[:i:i], Left: hosts[i+1:], Err: err}
		case err != nil:
			st.Unread = append(st.Unread, HostError{Host: host, Err: err})
			continue
		}
		if i == 0 {
			st.Files, st.Pending = hs.Files, hs.Pending
		}
		if hs.Health.NeedsRepair() {
			st.Sick = append(st.Sick, HostHealth{Host: host, Health: hs.Health})
		}
	}
	if len(st.Sick) > 0 {
		st.Files = Files{}
	}
	return st, nil
}

// DuplicateHosts refuses SM hosts that name one SSH endpoint twice: "h" and "h:22" (or "h:2222"
// with defPort 2222, "H" and "h", "::1" and "[0::1]:22") are the same host and port
// (remote.EndpointKey), so the "standby" would be the primary again (issue 22). known[i] false
// (unknown at plan) skips host i, as does a host SplitHost refuses (its own error is reported
// when it is dialled). Names that resolve to one machine cannot be told apart here. It returns
// the sentence for each refused host, by index.
func DuplicateHosts(hosts []string, known []bool, defPort int) map[int]string {
	type first struct {
		i     int
		entry string
	}
	out := map[int]string{}
	seen := map[string]first{}
	for i, h := range hosts {
		if i < len(known) && !known[i] {
			continue
		}
		key, shown, ok := remote.EndpointKey(h, defPort)
		if !ok {
			continue
		}
		if prev, dup := seen[key]; dup {
			out[i] = fmt.Sprintf("%q is the same SSH endpoint as hosts[%d] %q (%s): the push would reach one OpenSM twice and count it as its own standby. List each subnet manager host once.",
				h, prev.i, prev.entry, shown)
			continue
		}
		seen[key] = first{i, h}
	}
	return out
}
