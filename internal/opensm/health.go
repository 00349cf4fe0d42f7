package opensm

// Whether OpenSM runs and routes on a host: what a refresh reads besides the files, so that a
// dead or unrouted subnet manager shows in the plan (issue 22: OpenSM killed with its files in
// sync planned as "No changes" through every apply), and what a push repairs.

import (
	"context"
	"fmt"
	"path"
	"regexp"
	"strings"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/remote"
)

// Liveness is what the status command and the log say of OpenSM on a host.
type Liveness int

const (
	// LiveUnknown: no status command, and the log does not show OpenSM exiting.
	LiveUnknown Liveness = iota
	// LiveRunning: it runs; as master, its last routing run since it became master configured
	// the switch tables (or it has not finished one yet).
	LiveRunning
	// LiveStopped: the status command fails, or without one the log ends with OpenSM exiting.
	LiveStopped
	// LiveUnrouted: it runs as master, but its last routing run configured no switch tables.
	LiveUnrouted
)

func (l Liveness) String() string {
	switch l {
	case LiveRunning:
		return "running"
	case LiveStopped:
		return "not running"
	case LiveUnrouted:
		return "running without routes"
	}
	return "unknown"
}

// Health is OpenSM's liveness on a host and what says so.
type Health struct {
	Live  Liveness
	State string // the last SM state in the log: MASTER, STANDBY, DISCOVERING, NOT-ACTIVE or ""
	Why   string // for messages: the status command's exit status, or the log line
}

// NeedsRepair tells whether a push must act on the host although its files may be in sync.
func (h Health) NeedsRepair() bool { return h.Live == LiveStopped || h.Live == LiveUnrouted }

// healthTail bounds how much of the log's end is searched for the lifecycle lines: enough for
// hours of a large fabric's sweeps at the default log level, and cheap to read over SSH.
const healthTail = 4 << 20

var (
	reLife   = regexp.MustCompile(`Entering [A-Z-]+ state|Exiting SM|tables configured|No routing engine able to successfully configure`)
	reLifeSh = `Entering [A-Z-]+ state|Exiting SM|tables configured|No routing engine able to successfully configure`
)

// healthScript prints "gpc-status <exit>" (with a status command) and the last lifecycle lines of
// the log's tail (lifeScript).
func (t *Target) healthScript() string { return t.statusScript() + t.lifeScript() }

// lifeScript prints the last lifecycle lines of the log's tail, each as "gpc-life <line>".
func (t *Target) lifeScript() string {
	q := remote.Quote(t.logFile())
	return fmt.Sprintf("if [ -f %s ]; then tail -c %d %s | grep -a -E %s | tail -n 40 | sed 's/^/gpc-life /'; fi\n",
		q, healthTail, q, remote.Quote(reLifeSh))
}

// parseHealth judges the lines healthScript printed (other lines are ignored).
func (t *Target) parseHealth(lines []string) Health {
	h := Health{Live: LiveUnknown}
	status, hasStatus := "", false
	var life []string
	for _, line := range lines {
		key, val, _ := strings.Cut(line, " ")
		switch key {
		case "gpc-status":
			status, hasStatus = strings.TrimSpace(val), true
		case "gpc-life":
			if reLife.MatchString(val) {
				life = append(life, strings.TrimSpace(val))
			}
		}
	}
	// The lifecycle since OpenSM last changed state: the state, then what followed it.
	lastState := -1
	for i, l := range life {
		if m := reState.FindStringSubmatch(l); m != nil {
			h.State, lastState = m[1], i
		}
	}
	exited, routing := "", ""
	for _, l := range life[lastState+1:] {
		switch {
		case strings.Contains(l, "Exiting SM"):
			exited = l
		case reRoutingResult.MatchString(l):
			routing = l
		}
	}
	switch {
	case hasStatus && status != "0":
		h.Live, h.Why = LiveStopped, fmt.Sprintf("its status command (%s) exits %s", t.Service.statusCommand(), status)
		return h
	case !hasStatus && exited != "":
		h.Live, h.Why = LiveStopped, "its log ends with it exiting: "+exited
		return h
	case !hasStatus && len(life) == 0:
		return h
	}
	h.Live = LiveRunning
	if h.State == "MASTER" && strings.Contains(routing, "No routing engine") {
		h.Live, h.Why = LiveUnrouted, "its last routing run as master failed: "+routing
	}
	return h
}

// HostState is what a refresh reads from one SM host.
type HostState struct {
	// Files are the files OpenSM runs; none while PendingMarker is on the host (the files on
	// disk were written by a push that never saw OpenSM take them). Read only when asked.
	Files   Files
	Pending bool // PendingMarker is on the host: what OpenSM runs is not known
	Health  Health
}

// ReadHostState reads, in one command, the health of OpenSM on t's host and, when withFiles, the
// files it runs. t needs Host, Paths, Service and LogFile.
func ReadHostState(ctx context.Context, t Target, withFiles bool) (HostState, error) {
	var st HostState
	script := t.healthScript() + "echo gpc-health-end\n"
	if withFiles {
		script += fmt.Sprintf("if [ -f %s ]; then echo gpc-pending-marker; fi\n", remote.Quote(path.Join(t.Paths.Dir(), PendingMarker))) + filesScript(t.Paths)
	}
	stdout, stderr, exit, err := t.Host.Run(ctx, script)
	if err != nil {
		return st, err
	}
	if exit != 0 {
		return st, fmt.Errorf("reading OpenSM's state and files in %s: exit status %d: %s", t.Paths.Dir(), exit, strings.TrimSpace(stderr))
	}
	head, rest, ok := strings.Cut(stdout, "gpc-health-end\n")
	if !ok {
		return st, fmt.Errorf("reading OpenSM's state: unexpected output %q", Truncate(stdout, 200))
	}
	st.Health = t.parseHealth(strings.Split(head, "\n"))
	if !withFiles {
		return st, nil
	}
	if r, ok := strings.CutPrefix(rest, "gpc-pending-marker\n"); ok {
		if _, err := parseFiles(r); err != nil {
			return st, err
		}
		st.Pending, st.Files = true, Files{}
		return st, nil
	}
	st.Files, err = parseFiles(rest)
	return st, err
}
