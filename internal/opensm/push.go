package opensm

// The push flow: how a rendered file set reaches a running OpenSM, is verified, and is rolled
// back when OpenSM does not route as intended. It talks to a host only through the small Host
// interface (which *remote.Client satisfies); of internal/remote it uses the Backup of a write
// and the shell quoting of the commands it runs (remote.Command, remote.Quote).

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/listed"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/remote"
)

// Host is an SM host as the push needs it: run a command, read a file, replace files atomically
// keeping the previous versions, and put them back. *remote.Client satisfies it. Commands run
// under POSIX sh.
type Host interface {
	Run(ctx context.Context, cmd string) (stdout, stderr string, exit int, err error)
	ReadFile(ctx context.Context, path string) (content string, exists bool, err error)
	WriteFiles(ctx context.Context, dir string, files map[string]string, mode os.FileMode) (remote.Backup, error)
	Restore(ctx context.Context, b remote.Backup) error
}

var _ Host = (*remote.Client)(nil)

// locker is what *remote.Client offers to hold its host's lock across a whole push, so two
// pushes (two resources, or a push and a Delete) never interleave on one host.
type locker interface {
	Lock(ctx context.Context) (context.Context, func(), error)
}

// lock takes the host's lock when the Host offers one (a no-op release otherwise); the returned
// context carries it.
func (t Target) lock(ctx context.Context) (context.Context, func(), error) {
	l, ok := t.Host.(locker)
	if !ok {
		return ctx, func() {}, nil
	}
	return l.Lock(ctx)
}

// Defaults of the push.
const (
	// DefaultUnit is the systemd unit restarted and signalled when no commands are given.
	DefaultUnit = "opensm"
	// DefaultLogFile is OpenSM's own default log_file.
	DefaultLogFile = "/var/log/opensm.log"
	// DefaultVerifyTimeout bounds the wait for OpenSM to report its routing after a change.
	DefaultVerifyTimeout = 2 * time.Minute
	// DefaultPollInterval is how often the log and the status are polled while verifying.
	DefaultPollInterval = 250 * time.Millisecond
	// DefaultFileMode is the mode of the written files (OpenSM only reads them).
	DefaultFileMode os.FileMode = 0o644
)

// Names of the pre-provider snapshot kept in the configuration directory. The first push to a
// host copies the files it is about to replace to <name>.gpucluster-orig and records in the
// manifest which existed and whether OpenSM was running; Unpush puts that state back.
const (
	OriginalSuffix   = ".gpucluster-orig"
	OriginalManifest = "gpucluster-orig.manifest"
)

// PendingMarker is written in the same atomic write as the files and removed once OpenSM runs on
// them and was verified. A push that finds it knows the files on disk were never activated (the
// connection was lost between the write and the signal, or the rollback could not reach the
// host): OpenSM may still run the older files, so it tells OpenSM again even when the files
// already match, and a rollback from there puts back the files OpenSM last ran, which the
// marker lists.
const PendingMarker = "gpucluster-pending"

// testHookAfterWrite, when set by a test, runs right after the files are written and before
// OpenSM is told: the point where a lost connection leaves unactivated files behind.
var testHookAfterWrite func()

// testHookBeforeWrite, when set by a test, runs after the host was read and before the files
// are written: the point where a disk that fills during the push (another writer on the SM
// host) meets the write.
var testHookBeforeWrite func()

// Service says how OpenSM is controlled on a host: a systemd unit, or commands. With commands,
// Start and Stop are required (a restart is Stop then Start); Reload (default: a restart) and
// Status (default: none, and running is judged from the log alone) are optional.
type Service struct {
	Unit   string
	Start  string
	Stop   string
	Reload string
	Status string
}

// Validate reports a Service that cannot be used.
func (s Service) Validate() error {
	cmds := s.Start != "" || s.Stop != "" || s.Reload != "" || s.Status != ""
	switch {
	case s.Unit != "" && cmds:
		return errors.New("give either a systemd unit or start/stop/reload/status commands, not both")
	case cmds && (s.Start == "" || s.Stop == ""):
		return errors.New("start and stop commands are both required when OpenSM is controlled by commands (a restart is stop, then start)")
	}
	return nil
}

func (s Service) unit() string {
	if s.Unit == "" {
		return DefaultUnit
	}
	return s.Unit
}

func (s Service) commands() bool { return s.Start != "" }

// systemctl builds a systemctl command line for the unit.
func (s Service) systemctl(args ...string) string {
	return remote.Command(append(append([]string{"systemctl"}, args...), s.unit())...)
}

// restartSteps are the commands of a restart, in order.
func (s Service) restartSteps() []string {
	if s.commands() {
		return []string{s.Stop, s.Start}
	}
	return []string{s.systemctl("restart")}
}

// reloadSteps are the commands that make OpenSM re-read its files with a heavy sweep. For a
// unit the main process gets SIGHUP through systemd: Debian's opensm@.service has no
// ExecReload, so `systemctl reload` would fail there.
func (s Service) reloadSteps() []string {
	switch {
	case !s.commands():
		return []string{s.systemctl("kill", "--signal=HUP", "--kill-whom=main")}
	case s.Reload != "":
		return []string{s.Reload}
	}
	return s.restartSteps()
}

func (s Service) stopCommand() string {
	if s.commands() {
		return s.Stop
	}
	return s.systemctl("stop")
}

func (s Service) statusCommand() string {
	if s.commands() {
		return s.Status
	}
	return s.systemctl("is-active", "--quiet")
}

// Target is one SM host and everything the push needs to know about it.
type Target struct {
	Name string // for messages: the host as the user wrote it
	Host Host
	// Files is the rendered set to push; Unpush ignores it.
	Files Files
	// Paths is where the files live; opensm.conf must name its partitions file there.
	Paths   Paths
	Service Service
	LogFile string // "" means DefaultLogFile
	// Expect is what the master's routing run must show after the change (engine, roots).
	// A standby SM does not route: for it only the absence of partition errors is checked.
	Expect        Expect
	VerifyTimeout time.Duration // 0 means DefaultVerifyTimeout
	PollInterval  time.Duration // 0 means DefaultPollInterval
	FileMode      os.FileMode   // 0 means DefaultFileMode
	// Progress, when set, is told each step of the push as it happens (read, write, reload or
	// restart, verification, rollback), one line each, for a person following a long apply.
	Progress func(step string)

	// uncheckedFiles skips CheckFiles: only tests set it, to push what OpenSM itself refuses
	// and prove the push catches that from the live log too (CheckFiles can never know every
	// way OpenSM 3.3 reads a file).
	uncheckedFiles bool
}

// say reports one step to Progress.
func (t *Target) say(format string, args ...any) {
	if t.Progress != nil {
		t.Progress(fmt.Sprintf(format, args...))
	}
}

func (t *Target) logFile() string {
	if t.LogFile == "" {
		return DefaultLogFile
	}
	return t.LogFile
}

func (t *Target) verifyTimeout() time.Duration {
	if t.VerifyTimeout <= 0 {
		return DefaultVerifyTimeout
	}
	return t.VerifyTimeout
}

func (t *Target) pollInterval() time.Duration {
	if t.PollInterval <= 0 {
		return DefaultPollInterval
	}
	return t.PollInterval
}

func (t *Target) fileMode() os.FileMode {
	if t.FileMode == 0 {
		return DefaultFileMode
	}
	return t.FileMode
}

// Result is what a push did on one host.
type Result struct {
	Host     string
	Decision Decision // from Reload(files on the host, new files)
	// Action is what was done: the Decision's, or a restart when OpenSM was not running.
	Action  Action
	Written bool // the files were replaced
	Standby bool // the SM is a standby: it does not route, so no routing was verified
	// Kept is UnpushAll's: the host had no snapshot of its pre-provider files (ErrNoOriginal),
	// so it was left as it is.
	Kept    bool
	Verdict Verdict
	// Log is the OpenSM log written since the change (at most the last 64 KiB).
	Log string
}

// PushError is a failed push to one host. When Stage is "verify" or a reload/restart stage, the
// previous files were put back and OpenSM told again (RolledBack), unless RollbackErr says
// otherwise.
type PushError struct {
	Host        string
	Stage       string // "check", "read", "write", "restart", "sighup", "verify"
	Err         error
	LogLines    []string // the log lines that explain the failure
	RolledBack  bool
	RollbackErr error
	// Restarted says the rollback found OpenSM, which ran before the push, no longer running
	// (killed or crashed during the sweep) and started it on the previous files.
	Restarted bool
	// Pending says, after a failed rollback, whether PendingMarker is on the host: the files
	// were restored but OpenSM could not be told (the marker went with them), the restore itself
	// failed (the marker stayed), or the host could not be asked.
	Pending PendingState
}

// PendingState is whether PendingMarker is on a host after a failed rollback.
type PendingState int

const (
	PendingGone PendingState = iota
	PendingKept
	PendingUnknown // the host could not be asked
)

func (e *PushError) Unwrap() error { return e.Err }

func (e *PushError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "OpenSM on %s: %s: %v", e.Host, e.Stage, e.Err)
	switch {
	case e.RollbackErr != nil:
		fmt.Fprintf(&b, "; ROLLBACK FAILED, the host needs attention: %v", e.RollbackErr)
		switch e.Pending {
		case PendingKept:
			fmt.Fprintf(&b, " (the host keeps %s: the next push to it tells OpenSM about the files on disk, or restores the ones it ran)", PendingMarker)
		case PendingUnknown:
			fmt.Fprintf(&b, " (the host could not be asked whether it keeps %s; if it does, the next push to it tells OpenSM about the files on disk, or restores the ones it ran)", PendingMarker)
		default:
			b.WriteString(" (the previous files are on the host; OpenSM must be started or told by hand, or by the next apply: the next refresh sees whether it runs)")
		}
	case e.RolledBack && e.Restarted:
		b.WriteString("; OpenSM went down during the change: the previous files were restored and OpenSM was started again on them")
	case e.RolledBack:
		b.WriteString("; the previous files were restored and OpenSM was told again (or stopped, if it was not running before)")
	}
	if len(e.LogLines) > 0 {
		b.WriteString("\nOpenSM log since the change:\n")
		for _, l := range e.LogLines {
			b.WriteString("  " + l + "\n")
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

// CheckFiles refuses a file set that must never reach a host: a missing or extra file, a
// partitions.conf OpenSM would reject or misread (it then drops every tenant partition from
// every port), an option OpenSM does not know or would misparse, a GUID file with a line that is
// not a GUID, or an opensm.conf that names its partitions file outside p (the files written would
// not be the ones OpenSM reads).
func CheckFiles(files Files, p Paths) error {
	var problems []string
	for _, n := range FileNames {
		if _, ok := files[n]; !ok {
			problems = append(problems, "missing "+n)
		}
	}
	var extra []string
	for n := range files {
		if _, ok := FileAttributes[n]; !ok {
			extra = append(extra, n)
		}
	}
	sort.Strings(extra)
	for _, n := range extra {
		problems = append(problems, "unexpected file "+n)
	}
	if text, ok := files[FilePartitions]; ok {
		if _, err := ParsePartitions(text); err != nil {
			problems = append(problems, "partitions.conf would be rejected or misread by OpenSM: "+err.Error())
		}
	}
	if text, ok := files[FileOpenSMConf]; ok {
		opts := ParseOptionFile(text)
		keys := make([]string, 0, len(opts))
		for k := range opts {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if err := CheckOptionFor(FlavorOf(files), k, opts[k]); err != nil { // the flavour Render named (flavor.go)
				problems = append(problems, "opensm.conf: "+err.Error())
			}
		}
		if got, want := opts["partition_config_file"], p.Path(FilePartitions); got != want {
			problems = append(problems, fmt.Sprintf("opensm.conf names partition_config_file %q, but the files are written to %s", got, p.Dir()))
		}
	}
	for _, n := range []string{FileRootGUIDs, FileCNGUIDs} {
		for i, line := range strings.Split(files[n], "\n") {
			line = strings.TrimSpace(line)
			if line == "" || strings.HasPrefix(line, "#") {
				continue
			}
			if _, err := ParseGUID(strings.Fields(line)[0]); err != nil {
				problems = append(problems, fmt.Sprintf("%s:%d: %v", n, i+1, err))
			}
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("refusing to push: %s", listed.First(problems, listed.Few, "; "))
	}
	return nil
}

// ReadFiles reads the file set from a host in one command; files that do not exist are absent
// from the result.
func ReadFiles(ctx context.Context, h Host, p Paths) (Files, error) {
	stdout, stderr, exit, err := h.Run(ctx, filesScript(p))
	if err != nil {
		return nil, err
	}
	if exit != 0 {
		return nil, fmt.Errorf("reading the OpenSM files in %s: exit status %d: %s", p.Dir(), exit, strings.TrimSpace(stderr))
	}
	return parseFiles(stdout)
}

// filesScript prints each file of the set as "gpc-file <name> <bytes>", its content and
// "gpc-end", or "gpc-absent <name>".
func filesScript(p Paths) string {
	var b strings.Builder
	for _, n := range FileNames {
		q := remote.Quote(p.Path(n))
		fmt.Fprintf(&b, "if [ -f %s ]; then printf 'gpc-file %s %%s\\n' \"$(wc -c < %s)\" && cat -- %s && printf '\\ngpc-end\\n' || exit 1; else echo 'gpc-absent %s'; fi\n", q, n, q, q, n)
	}
	return b.String()
}

// parseFiles reads what filesScript printed.
func parseFiles(out string) (Files, error) {
	files := Files{}
	for len(out) > 0 {
		line, rest, _ := strings.Cut(out, "\n")
		f := strings.Fields(line)
		switch {
		case len(f) == 2 && f[0] == "gpc-absent":
			out = rest
		case len(f) == 3 && f[0] == "gpc-file":
			n, err := strconv.Atoi(f[2])
			if err != nil || n < 0 || n > len(rest) || !strings.HasPrefix(rest[n:], "\ngpc-end\n") {
				return nil, fmt.Errorf("%s changed while it was read; try again", f[1])
			}
			files[f[1]] = rest[:n]
			out = rest[n+len("\ngpc-end\n"):]
		default:
			return nil, fmt.Errorf("unexpected output while reading the OpenSM files: %q", Truncate(line, 80))
		}
	}
	return files, nil
}

// Push brings one host to the target's files: it checks them (CheckFiles), reads what the host
// has, lets Reload decide how OpenSM must be told, keeps a snapshot of the pre-provider files on
// the first push, writes the set atomically (previous versions kept), signals or restarts OpenSM,
// and verifies from the status command and the log written since the change that OpenSM runs and
// routed as Expect says (a standby only has to run without partition errors). If it did not, the
// previous files are restored, OpenSM is told again (or stopped, if it was not running before),
// and a *PushError carries the log lines that explain why.
//
// A host whose files already match and whose OpenSM runs is left alone. The host's lock is held
// throughout when the Host offers one (see remote.Client.Lock).
func Push(ctx context.Context, t Target) (Result, error) {
	res := Result{Host: t.Name}
	fail := func(stage string, err error) (Result, error) {
		return res, &PushError{Host: t.Name, Stage: stage, Err: err}
	}
	if err := t.Service.Validate(); err != nil {
		return fail("check", err)
	}
	if !t.uncheckedFiles {
		if err := CheckFiles(t.Files, t.Paths); err != nil {
			return fail("check", err)
		}
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
	old, running := pr.files, pr.status
	res.Decision = Reload(old, t.Files)
	res.Action = res.Decision.Action
	if pr.pending != nil {
		// OpenSM may run files older than those on disk: what it needs is at most what the
		// interrupted push needed plus what this change needs (an option that differs between
		// what runs and the new files differs in one of the two steps).
		if pr.pending.action > res.Action {
			res.Action = pr.pending.action
		}
		res.Decision.Reasons = append(res.Decision.Reasons, fmt.Sprintf("an earlier push wrote the files but never told OpenSM (%s is on the host): %s now", PendingMarker, res.Action))
	}
	switch {
	case running == statusDown:
		res.Action = ActionRestart
		res.Decision.Reasons = append(res.Decision.Reasons, "OpenSM is not running ("+pr.health.Why+"): start it with the rendered files and verify")
	case pr.health.Live == LiveUnrouted:
		// A restart, not a SIGHUP: an OpenSM that cannot route may run options other than
		// those on disk (routing_engine and lmc are read only at start).
		res.Action = ActionRestart
		res.Decision.Reasons = append(res.Decision.Reasons, "OpenSM runs without routes ("+pr.health.Why+"): restart it with the rendered files and verify")
	}
	if res.Action == ActionNone && sameFiles(old, t.Files) {
		if pr.pending != nil {
			t.clearPending(ctx)
		}
		t.say("files in %s already as rendered: nothing to push", t.Paths.Dir())
		return res, nil
	}
	t.say("files in %s differ from the rendered ones: %s (%s)", t.Paths.Dir(), res.Action, strings.Join(res.Decision.Reasons, "; "))
	if pr.pending != nil && sameFiles(old, t.Files) {
		// Complete the interrupted push: the files are in place, OpenSM is told and verified;
		// if that fails, the files OpenSM ran before the interrupted push come back.
		backup, berr := pr.pending.backup(t.Host, t.Paths.Dir())
		if berr != nil {
			return fail("read", berr)
		}
		stage, verr := t.apply(ctx, &res, pr)
		if verr == nil {
			t.clearPending(ctx)
			return res, nil
		}
		perr := &PushError{Host: t.Name, Stage: stage, Err: verr, LogLines: explain(res.Log)}
		perr.Restarted, perr.RollbackErr = t.rollback(ctx, backup, res.Action, running)
		perr.RolledBack = perr.RollbackErr == nil
		if !perr.RolledBack {
			perr.Pending = t.pendingState(ctx)
		}
		return res, perr
	}
	if pr.noDir {
		// A fresh host: the directory is created once and stays, even if the push is rolled back.
		if _, stderr, exit, err := t.Host.Run(ctx, remote.Command("mkdir", "-p", "--", t.Paths.Dir())); err != nil || exit != 0 {
			if err == nil {
				err = fmt.Errorf("mkdir %s: exit status %d: %s", t.Paths.Dir(), exit, strings.TrimSpace(stderr))
			}
			return fail("write", err)
		}
	}
	write := t.Files
	if !pr.manifest {
		// The first push keeps the pre-provider files, in the same atomic write: a rollback
		// removes the snapshot with the rest.
		write = snapshot(old, running)
		for n, text := range t.Files {
			write[n] = text
		}
	}
	if res.Action != ActionNone {
		if pr.pending == nil {
			write = withPending(write, old, pr.manifest, res.Action)
		} else {
			// Keep the record of what OpenSM last ran: a rollback of this push puts the
			// interrupted push's files and this marker back, and the next push carries on.
			write[PendingMarker] = pr.pending.withAction(res.Action)
		}
	}
	if testHookBeforeWrite != nil {
		testHookBeforeWrite()
	}
	backup, err := t.Host.WriteFiles(ctx, t.Paths.Dir(), write, t.fileMode())
	if err != nil {
		return fail("write", err)
	}
	res.Written = true
	t.say("wrote %d files to %s (atomic rename, the previous versions kept for rollback)", len(t.Files), t.Paths.Dir())
	if testHookAfterWrite != nil {
		testHookAfterWrite()
	}
	stage, verr := t.apply(ctx, &res, pr)
	if verr == nil {
		t.clearPending(ctx)
		return res, nil
	}
	perr := &PushError{Host: t.Name, Stage: stage, Err: verr, LogLines: explain(res.Log)}
	t.say("%s failed (%v): rolling back to the previous files", stage, verr)
	perr.Restarted, perr.RollbackErr = t.rollback(ctx, backup, res.Action, running)
	perr.RolledBack = perr.RollbackErr == nil
	if perr.RolledBack {
		t.say("rolled back: the previous files are in place and OpenSM was told")
	} else {
		perr.Pending = t.pendingState(ctx)
	}
	return res, perr
}

// apply tells OpenSM about the files just written (res.Action) and verifies the outcome from the
// log written since. It returns the stage that failed.
func (t *Target) apply(ctx context.Context, res *Result, pr probe) (string, error) {
	stage, steps := "verify", []string(nil)
	switch res.Action {
	case ActionRestart:
		stage, steps = "restart", t.Service.restartSteps()
	case ActionSIGHUP:
		stage, steps = "sighup", t.Service.reloadSteps()
	}
	switch res.Action {
	case ActionRestart:
		t.say("restarting OpenSM (an option it reads only at start changed)")
	case ActionSIGHUP:
		t.say("signalling OpenSM (SIGHUP): a heavy sweep re-reads the files")
	}
	// The log offset is taken again just before OpenSM is told, after the write, so every sweep
	// that logs after it read the new files.
	offset, err := t.runSteps(ctx, steps, pr.logSize)
	if err != nil {
		res.Log, _ = t.logSince(ctx, offset)
		return stage, err
	}
	res.Standby, res.Verdict, res.Log, err = t.verify(ctx, res.Action, pr.state, offset)
	if err == nil {
		t.sayVerified(res)
	}
	return "verify", err
}

// sayVerified reports a verified outcome.
func (t *Target) sayVerified(res *Result) {
	if res.Standby {
		t.say("verified: a standby SM, partitions accepted (a standby does not route)")
		return
	}
	roots := ""
	switch {
	case res.Verdict.Roots == 1:
		roots = ", 1 root switch"
	case res.Verdict.Roots >= 0:
		roots = fmt.Sprintf(", %d root switches", res.Verdict.Roots)
	}
	t.say("verified: %s tables configured on all switches%s, subnet up", res.Verdict.Engine, roots)
}

type status int

const (
	statusUnknown status = iota // no status command
	statusUp
	statusDown
)

// statusScript runs the status command quietly and prints "gpc-status <exit>"; "" without one.
func (t *Target) statusScript() string {
	cmd := t.Service.statusCommand()
	if cmd == "" {
		return ""
	}
	return "/bin/sh -c " + remote.Quote(cmd) + " >/dev/null 2>&1 </dev/null; echo \"gpc-status $?\"\n"
}

// logSizeScript prints "gpc-logsize <bytes>" (0 without a log).
func (t *Target) logSizeScript() string {
	q := remote.Quote(t.logFile())
	return "if [ -f " + q + " ]; then echo \"gpc-logsize $(wc -c < " + q + ")\"; else echo 'gpc-logsize 0'; fi\n"
}

// probe is what Push learns about a host in one command before it changes anything.
type probe struct {
	files    Files
	manifest bool   // the pre-provider snapshot exists
	noDir    bool   // the configuration directory does not exist
	status   status // from the status command
	state    string // the last SM state in the log: "MASTER", "STANDBY", ... or ""
	logSize  int64
	pending  *pending // PendingMarker's record, nil without one
	health   Health   // from the status and the log's lifecycle lines
}

func (t *Target) probe(ctx context.Context) (probe, error) {
	pr := probe{status: statusUnknown}
	var b strings.Builder
	b.WriteString(t.statusScript())
	b.WriteString(t.lifeScript())
	b.WriteString(t.logSizeScript())
	fmt.Fprintf(&b, "[ -e %s ] && echo gpc-manifest\n", remote.Quote(path.Join(t.Paths.Dir(), OriginalManifest)))
	fmt.Fprintf(&b, "[ -d %s ] || echo gpc-nodir\n", remote.Quote(t.Paths.Dir()))
	fmt.Fprintf(&b, "if [ -f %[1]s ]; then sed 's/^/gpc-pending /' %[1]s; fi\n", remote.Quote(path.Join(t.Paths.Dir(), PendingMarker)))
	fmt.Fprintf(&b, "echo \"gpc-state $(grep -a -E 'Entering [A-Z-]+ state' %s 2>/dev/null | tail -n 1)\"\n", remote.Quote(t.logFile()))
	b.WriteString("echo gpc-files\n")
	b.WriteString(filesScript(t.Paths))
	stdout, stderr, exit, err := t.Host.Run(ctx, b.String())
	if err != nil {
		return pr, err
	}
	if exit != 0 {
		return pr, fmt.Errorf("probing %s: exit status %d: %s", t.Paths.Dir(), exit, strings.TrimSpace(stderr))
	}
	head, files, ok := strings.Cut(stdout, "gpc-files\n")
	if !ok {
		return pr, fmt.Errorf("probing %s: unexpected output %q", t.Paths.Dir(), Truncate(stdout, 200))
	}
	for _, line := range strings.Split(head, "\n") {
		key, val, _ := strings.Cut(line, " ")
		switch key {
		case "gpc-status":
			pr.status = statusDown
			if strings.TrimSpace(val) == "0" {
				pr.status = statusUp
			}
		case "gpc-logsize":
			pr.logSize, _ = strconv.ParseInt(strings.TrimSpace(val), 10, 64)
		case "gpc-manifest":
			pr.manifest = true
		case "gpc-nodir":
			pr.noDir = true
		case "gpc-pending":
			if pr.pending == nil {
				pr.pending = &pending{}
			}
			pr.pending.parseLine(val)
		case "gpc-state":
			if m := reState.FindStringSubmatch(val); m != nil {
				pr.state = m[1]
			}
		}
	}
	pr.health = t.parseHealth(strings.Split(head, "\n"))
	if pr.status == statusUnknown && pr.health.Live == LiveStopped {
		pr.status = statusDown // no status command, but the log shows OpenSM exiting
	}
	pr.files, err = parseFiles(files)
	return pr, err
}

// running asks the status command; an exit status other than 0 means not running.
func (t *Target) running(ctx context.Context) (status, error) {
	script := t.statusScript()
	if script == "" {
		return statusUnknown, nil
	}
	stdout, _, _, err := t.Host.Run(ctx, script)
	if err != nil {
		return statusUnknown, err
	}
	if strings.TrimSpace(stdout) == "gpc-status 0" {
		return statusUp, nil
	}
	return statusDown, nil
}

// runSteps runs the commands in order, stopping at the first that fails. The first runs in the
// same session as a look at the log's size, which it returns (offset when there are no steps).
func (t *Target) runSteps(ctx context.Context, steps []string, offset int64) (int64, error) {
	for i, cmd := range steps {
		script := cmd
		if i == 0 {
			script = t.logSizeScript() + "exec /bin/sh -c " + remote.Quote(cmd)
		}
		stdout, stderr, exit, err := t.Host.Run(ctx, script)
		if i == 0 {
			if line, rest, ok := strings.Cut(stdout, "\n"); ok && strings.HasPrefix(line, "gpc-logsize ") {
				if n, perr := strconv.ParseInt(strings.TrimSpace(strings.TrimPrefix(line, "gpc-logsize ")), 10, 64); perr == nil {
					offset = n
				}
				stdout = rest
			}
		}
		if err != nil {
			return offset, err
		}
		if exit != 0 {
			out := strings.TrimSpace(strings.TrimSpace(stdout) + "\n" + strings.TrimSpace(stderr))
			if out != "" {
				out = ": " + Truncate(out, 2000)
			}
			return offset, fmt.Errorf("%s exited with status %d%s", cmd, exit, out)
		}
	}
	return offset, nil
}

var (
	reState         = regexp.MustCompile(`Entering (MASTER|STANDBY|DISCOVERING|NOT-ACTIVE) state`)
	reRoutingResult = regexp.MustCompile(`tables configured|No routing engine able to successfully configure`)
)

// maxLogTail bounds what is read of the log per poll.
const maxLogTail = 64 << 10

// logSinceScript prints what the log gained after offset (all of it when it shrank: rotated or
// truncated), at most the last maxLogTail bytes.
func (t *Target) logSinceScript(offset int64) string {
	q := remote.Quote(t.logFile())
	return fmt.Sprintf("if [ -f %s ]; then off=%d; sz=$(wc -c < %s); [ \"$sz\" -lt \"$off\" ] && off=0; tail -c +$((off+1)) %s | tail -c %d; fi\n",
		q, offset, q, q, maxLogTail)
}

func (t *Target) logSince(ctx context.Context, offset int64) (string, error) {
	stdout, stderr, exit, err := t.Host.Run(ctx, t.logSinceScript(offset))
	if err != nil {
		return "", err
	}
	if exit != 0 {
		return stdout, fmt.Errorf("reading %s: exit status %d: %s", t.logFile(), exit, strings.TrimSpace(stderr))
	}
	return stdout, nil
}

// poll reads the status and the log since offset in one command.
func (t *Target) poll(ctx context.Context, offset int64) (status, string, error) {
	script := t.statusScript()
	stdout, stderr, exit, err := t.Host.Run(ctx, script+t.logSinceScript(offset))
	if err != nil {
		return statusUnknown, "", err
	}
	if exit != 0 {
		return statusUnknown, stdout, fmt.Errorf("reading %s: exit status %d: %s", t.logFile(), exit, strings.TrimSpace(stderr))
	}
	if script == "" {
		return statusUnknown, stdout, nil
	}
	line, rest, _ := strings.Cut(stdout, "\n")
	if line == "gpc-status 0" {
		return statusUp, rest, nil
	}
	return statusDown, rest, nil
}

// verify waits until OpenSM reports the outcome of the change and judges it. After a restart the
// outcome is a routing result (master) or the standby state; after a SIGHUP to a master, a
// routing result; a standby does not sweep on SIGHUP, nor does anything happen without a signal,
// so then only the status is checked. A status command that reports OpenSM down ends the wait.
func (t *Target) verify(ctx context.Context, action Action, prevState string, offset int64) (standby bool, v Verdict, text string, err error) {
	standby = prevState == "STANDBY"
	waitRouting := action == ActionRestart || (action == ActionSIGHUP && !standby)
	deadline := time.Now().Add(t.verifyTimeout())
	for {
		var st status
		st, text, err = t.poll(ctx, offset)
		if err != nil {
			return standby, v, text, err
		}
		routed := reRoutingResult.MatchString(text)
		if action == ActionRestart {
			if m := lastMatch(reState, text); m == "STANDBY" && !routed {
				standby = true
			} else if m != "" {
				standby = false
			}
		}
		done := !waitRouting || routed || (action == ActionRestart && standby)
		if st == statusDown {
			return standby, ParseLog(text), text, errors.New("OpenSM is not running (the status command failed)")
		}
		if done {
			break
		}
		if time.Now().After(deadline) {
			return standby, ParseLog(text), text, fmt.Errorf("OpenSM reported no routing result in %s within %s (is that where OpenSM logs, with force_log_flush TRUE?)", t.logFile(), t.verifyTimeout())
		}
		select {
		case <-ctx.Done():
			return standby, ParseLog(text), text, ctx.Err()
		case <-time.After(t.pollInterval()):
		}
	}
	v = ParseLog(text)
	if standby {
		var p []string
		if v.PartitionsRejected {
			p = append(p, "OpenSM could not parse partitions.conf")
		}
		if !t.Expect.AllowErrors && len(v.Errors) > 0 {
			p = append(p, fmt.Sprintf("%d error lines in the log", len(v.Errors)))
		}
		if len(p) > 0 {
			return standby, v, text, fmt.Errorf("standby OpenSM: %s", strings.Join(p, "; "))
		}
		return standby, v, text, nil
	}
	if !waitRouting {
		return standby, v, text, nil
	}
	return standby, v, text, v.Check(t.Expect)
}

func lastMatch(re *regexp.Regexp, text string) string {
	all := re.FindAllStringSubmatch(text, -1)
	if len(all) == 0 {
		return ""
	}
	return all[len(all)-1][1]
}

// rollback restores the backup and tells OpenSM again the way the change did; if OpenSM was not
// running before the push, it is stopped instead, leaving the host as it was.
//
// An OpenSM that ran before the push but is down now (killed or crashed during the sweep the
// change started) cannot be signalled: it is started on the previous files instead, so the host
// is back as it was, and the PushError says so (Restarted).
func (t *Target) rollback(ctx context.Context, b remote.Backup, action Action, before status) (restarted bool, err error) {
	// Finish the rollback even when the caller's context has ended: a half-rolled-back SM is
	// worse than a late one.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), t.verifyTimeout())
	defer cancel()
	if err := t.Host.Restore(ctx, b); err != nil {
		return false, err
	}
	if before == statusDown {
		_, err := t.runSteps(ctx, []string{t.Service.stopCommand()}, 0)
		return false, err
	}
	var steps []string
	switch action {
	case ActionRestart:
		steps = t.Service.restartSteps()
	case ActionSIGHUP:
		steps = t.Service.reloadSteps()
		if st, err := t.running(ctx); err == nil && st == statusDown {
			steps, restarted = t.Service.restartSteps(), true
			t.say("OpenSM is no longer running: starting it on the previous files")
		}
	}
	if _, err := t.runSteps(ctx, steps, 0); err != nil {
		return restarted, fmt.Errorf("the previous files are back, but telling OpenSM failed: %w", err)
	}
	if st, err := t.running(ctx); err == nil && st == statusDown {
		return restarted, errors.New("the previous files are back, but OpenSM is not running with them")
	}
	return restarted, nil
}

// reExplain picks the log lines that say what OpenSM did with the files.
var reExplain = regexp.MustCompile(`ERR [0-9A-Fa-f]{4}|\] 0x01 -> |cannot build|tables configured|No routing engine|Partition configuration|PARSE ERROR|Entering [A-Z-]+ state|rank 0 \(roots\)|of them leafs|Exiting SM|Unrecognized token|Parsing error|SUBNET UP`)

// explain returns the log lines that explain a verdict, at most 30; the last 10 lines when none
// of them matches.
func explain(text string) []string {
	var out, all []string
	for _, l := range strings.Split(text, "\n") {
		l = strings.TrimRight(l, "\r")
		if strings.TrimSpace(l) == "" {
			continue
		}
		all = append(all, l)
		if reExplain.MatchString(l) {
			out = append(out, l)
		}
	}
	if len(out) == 0 {
		if len(all) > 10 {
			all = all[len(all)-10:]
		}
		return all
	}
	if len(out) > 30 {
		out = append(out[:10], append([]string{"..."}, out[len(out)-19:]...)...)
	}
	return out
}

func sameFiles(a, b Files) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// snapshot returns the files that keep the pre-provider state of a host: a copy of each file
// the first push replaces, as <name>.gpucluster-orig, and the manifest of what existed and
// whether OpenSM was running.
func snapshot(old Files, running status) map[string]string {
	var b strings.Builder
	b.WriteString("# OpenSM files as they were before terraform-provider-gpucluster first wrote them.\n")
	b.WriteString("# Destroying the gpucluster_fabric puts them back; delete this file to forget them.\n")
	fmt.Fprintf(&b, "running %s\n", map[status]string{statusUp: "yes", statusDown: "no", statusUnknown: "unknown"}[running])
	files := map[string]string{}
	for _, n := range FileNames {
		if text, ok := old[n]; ok {
			fmt.Fprintf(&b, "file %s existed\n", n)
			files[n+OriginalSuffix] = text
		} else {
			fmt.Fprintf(&b, "file %s absent\n", n)
		}
	}
	files[OriginalManifest] = b.String()
	return files
}

// ErrNoOriginal is returned by Unpush for a host without a snapshot of its pre-provider files.
var ErrNoOriginal = errors.New("no snapshot of the files before the provider's first push (" + OriginalManifest + ")")

// Unpush puts a host back as it was before the provider's first push: the files that existed
// then get their old content back, the files the provider created are removed, and OpenSM is
// told (SIGHUP or restart, as Reload says) or stopped if it was not running then. The snapshot is
// removed afterwards. Without a snapshot nothing is changed and ErrNoOriginal is returned.
func Unpush(ctx context.Context, t Target) (Result, error) {
	res := Result{Host: t.Name}
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
	dir := t.Paths.Dir()
	manifest, ok, err := t.Host.ReadFile(ctx, path.Join(dir, OriginalManifest))
	if err != nil {
		return fail("read", err)
	}
	if !ok {
		return res, ErrNoOriginal
	}
	wasRunning := statusUnknown
	existed := map[string]bool{}
	for _, line := range strings.Split(manifest, "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) == 2 && f[0] == "running":
			wasRunning = map[string]status{"yes": statusUp, "no": statusDown}[f[1]]
		case len(f) == 3 && f[0] == "file" && f[2] == "existed":
			existed[f[1]] = true
		}
	}
	restored := Files{}
	var remove []string
	for _, n := range FileNames {
		if !existed[n] {
			remove = append(remove, path.Join(dir, n))
			continue
		}
		text, ok, err := t.Host.ReadFile(ctx, path.Join(dir, n+OriginalSuffix))
		if err != nil {
			return fail("read", err)
		}
		if !ok {
			return fail("read", fmt.Errorf("the snapshot lists %s but %s is missing; nothing was changed", n, path.Join(dir, n+OriginalSuffix)))
		}
		restored[n] = text
	}
	current, err := ReadFiles(ctx, t.Host, t.Paths)
	if err != nil {
		return fail("read", err)
	}
	res.Decision = Reload(current, restored)
	res.Action = res.Decision.Action
	if len(restored) > 0 && !sameFiles(pick(current, restored), restored) {
		if _, err := t.Host.WriteFiles(ctx, dir, restored, t.fileMode()); err != nil {
			return fail("write", err)
		}
		res.Written = true
	}
	if len(remove) > 0 {
		if _, stderr, exit, err := t.Host.Run(ctx, remote.Command(append([]string{"rm", "-f", "--"}, remove...)...)); err != nil || exit != 0 {
			if err == nil {
				err = fmt.Errorf("rm exited with status %d: %s", exit, strings.TrimSpace(stderr))
			}
			return fail("write", err)
		}
		res.Written = true
	}
	var steps []string
	switch {
	case wasRunning == statusDown:
		steps, res.Action = []string{t.Service.stopCommand()}, ActionNone
	case res.Action == ActionRestart:
		steps = t.Service.restartSteps()
	case res.Action == ActionSIGHUP:
		steps = t.Service.reloadSteps()
	}
	if _, err := t.runSteps(ctx, steps, 0); err != nil {
		return fail(res.Action.String(), err)
	}
	if wasRunning != statusDown {
		if st, err := t.running(ctx); err == nil && st == statusDown {
			return fail("verify", errors.New("OpenSM is not running with the original files"))
		}
	}
	snap := []string{"rm", "-f", "--", path.Join(dir, OriginalManifest), path.Join(dir, PendingMarker)}
	for _, n := range FileNames {
		snap = append(snap, path.Join(dir, n+OriginalSuffix))
	}
	if _, stderr, exit, err := t.Host.Run(ctx, remote.Command(snap...)); err != nil || exit != 0 {
		if err == nil {
			err = fmt.Errorf("rm exited with status %d: %s", exit, strings.TrimSpace(stderr))
		}
		return fail("cleanup", err)
	}
	return res, nil
}

// pick returns the entries of a whose names are in b.
func pick(a, b Files) Files {
	out := Files{}
	for k := range b {
		if v, ok := a[k]; ok {
			out[k] = v
		}
	}
	return out
}
