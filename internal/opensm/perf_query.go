package opensm

// Which perfquery calls read a fabric's port counters, and how many of them share one SSH
// session: the calls are batched into one POSIX sh script whose output is framed by marker
// lines, so each call's stdout, exit status and stderr come back apart. perfquery's arguments
// follow perfquery(8) (infiniband-diags): -x for PortCountersExtended, -l to loop over the ports
// of a device when the port is 255, -G to address a device by GUID (resolved by the SM).

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/remote"
)

// PerfQuery is one perfquery run and how to label the blocks it prints.
type PerfQuery struct {
	Args   []string     // perfquery's arguments, the command itself excluded
	Name   string       // label of every block it yields
	GUID   string       // GUID asked for (or the switch's node GUID); empty when asked by LID
	Linked map[int]bool // keep only the blocks of these ports (nil: all)
}

// PortSelector names one device (by GUID or, when GUID is empty, by LID) and one of its ports
// (Port 0: every port).
type PortSelector struct {
	Name string // label; default: the GUID or "lid N"
	GUID string
	LID  int
	Port int
}

// PortQuery is the perfquery run that reads what s selects.
func PortQuery(s PortSelector, extended bool) PerfQuery {
	q := PerfQuery{Name: s.Name, Args: perfFlags(extended)}
	port := "255"
	if s.Port == 0 {
		q.Args = append(q.Args, "-l")
	} else {
		port = strconv.Itoa(s.Port)
	}
	if s.GUID != "" {
		q.GUID = strings.ToLower(s.GUID)
		q.Args = append(q.Args, "-G", q.GUID, port)
		if q.Name == "" {
			q.Name = q.GUID
		}
		return q
	}
	q.Args = append(q.Args, strconv.Itoa(s.LID), port)
	if q.Name == "" {
		q.Name = "lid " + strconv.Itoa(s.LID)
	}
	return q
}

func perfFlags(extended bool) []string {
	if extended {
		return []string{"-x"}
	}
	return nil
}

// notCounters are fields perfquery prints in a block that select rather than count.
var notCounters = map[string]bool{"PortSelect": true, "CounterSelect": true, "CounterSelect2": true}

// Counts is what q keeps of a block: nothing when the block's port is not one q asked for,
// otherwise the block's counters without the fields that select rather than count.
func (q PerfQuery) Counts(b PortCounters) (map[string]uint64, bool) {
	if q.Linked != nil && !q.Linked[b.Port] {
		return nil, false
	}
	out := map[string]uint64{}
	for k, v := range b.Counters {
		if !notCounters[k] {
			out[k] = v
		}
	}
	return out, true
}

// Runner runs a command under POSIX sh on a host; *remote.Client satisfies it.
type Runner interface {
	Run(ctx context.Context, cmd string) (stdout, stderr string, exit int, err error)
	Addr() string
}

var _ Runner = (*remote.Client)(nil)

// PerfResult is one query's outcome in RunEachPerfQuery: its stdout, or why it failed.
type PerfResult struct {
	Out string
	Err error
}

// RunEachPerfQuery runs every query in one session on h (PerfBatch) and returns each one's
// stdout. perf is perfquery as the host runs it (its arguments are appended). Some ports may not
// answer (a device behind a failed cable): a query that exits non-zero fails alone, with its
// stderr in its Err; the error returned is the session's (no connection, the batch itself
// failed).
func RunEachPerfQuery(ctx context.Context, h Runner, perf string, queries []PerfQuery) ([]PerfResult, error) {
	if len(queries) == 0 {
		return nil, nil
	}
	stdout, err := runBatch(ctx, h, perf, queries)
	if err != nil {
		return nil, err
	}
	return parseEach(stdout, perf, queries)
}

func runBatch(ctx context.Context, h Runner, perf string, queries []PerfQuery) (string, error) {
	return runScript(ctx, h, PerfBatch(perf, queries))
}

func runScript(ctx context.Context, h Runner, script string) (string, error) {
	stdout, stderr, exit, err := h.Run(ctx, script)
	if err != nil {
		return "", err
	}
	if exit != 0 {
		return "", fmt.Errorf("running perfquery on %s: exit status %d: %s", h.Addr(), exit, strings.TrimSpace(stderr))
	}
	return stdout, nil
}

// PerfLanes is how many perfquery runs a batch keeps going at once. A run is mostly waiting (a
// process start, the umad device, one MAD round trip per port to the port's own performance
// agent, not to the SM), so runs in parallel take about 1/PerfLanes of the time of runs in turn:
// a floor of 40 DGX reads 320 HCA ports with one run each. It stays small because every run is
// a umad client of the host, and ibsim, the simulator the tests attach to, serves at most 10
// clients (OpenSM among them) and two samples may run at once.
const PerfLanes = 4

// PerfBatch is the sh script that runs every query, PerfLanes at a time (query i in lane i mod
// PerfLanes, each lane one after the other), each into files of its own, then prints each in
// query order, framed by "gpc-query N", its stdout, "gpc-rc STATUS" and its stderr lines
// prefixed "gpc-stderr ". The frames are those of runs in turn, so parseEach reads either.
func PerfBatch(perf string, queries []PerfQuery) string { return perfBatch(perf, queries, PerfLanes) }

// perfBatch is PerfBatch with the number of lanes given (1: the runs in turn).
func perfBatch(perf string, queries []PerfQuery, lanes int) string {
	var b strings.Builder
	b.WriteString("d=$(mktemp -d) || exit 1\n")
	if len(queries) < lanes {
		lanes = len(queries)
	}
	for l := 0; l < lanes; l++ {
		b.WriteString("(\n")
		for i := l; i < len(queries); i += lanes {
			fmt.Fprintf(&b, "%s %s >\"$d/%d.out\" 2>\"$d/%d.err\"; echo $? >\"$d/%d.rc\"\n", perf, remote.Command(queries[i].Args...), i, i, i)
		}
		b.WriteString(") &\n")
	}
	b.WriteString("wait\n")
	fmt.Fprintf(&b, "i=0; while [ \"$i\" -lt %d ]; do echo \"gpc-query $i\"; cat \"$d/$i.out\"; echo \"gpc-rc $(cat \"$d/$i.rc\")\"; sed 's/^/gpc-stderr /' \"$d/$i.err\"; i=$((i + 1)); done\n", len(queries))
	b.WriteString("rm -rf \"$d\"\n")
	return b.String()
}

// parseEach splits the output of PerfBatch into each query's result. A query the output does
// not frame at all (the batch stopped early) is an error of its own.
func parseEach(stdout, perf string, queries []PerfQuery) ([]PerfResult, error) {
	out := make([]PerfResult, len(queries))
	cur, rc := -1, make([]int, len(queries))
	framed := make([]bool, len(queries))
	errs := make([][]string, len(queries))
	body := make([]strings.Builder, len(queries))
	for _, line := range strings.Split(stdout, "\n") {
		switch {
		case strings.HasPrefix(line, "gpc-query "):
			n, err := strconv.Atoi(strings.TrimPrefix(line, "gpc-query "))
			if err != nil || n < 0 || n >= len(queries) {
				return nil, fmt.Errorf("unexpected perfquery output line %q", line)
			}
			cur = n
			framed[n] = true
		case cur < 0:
		case strings.HasPrefix(line, "gpc-rc "):
			rc[cur], _ = strconv.Atoi(strings.TrimPrefix(line, "gpc-rc "))
		case strings.HasPrefix(line, "gpc-stderr "):
			errs[cur] = append(errs[cur], strings.TrimPrefix(line, "gpc-stderr "))
		default:
			body[cur].WriteString(line + "\n")
		}
	}
	for i, q := range queries {
		switch {
		case !framed[i]:
			out[i].Err = fmt.Errorf("%s %s (%s) did not run: the batch stopped before it", perf, remote.Command(q.Args...), q.Name)
		case rc[i] != 0:
			out[i].Err = fmt.Errorf("%s %s (%s) exited with status %d: %s", perf, remote.Command(q.Args...), q.Name, rc[i], Truncate(strings.Join(errs[i], "\n"), 2000))
		default:
			out[i].Out = body[i].String()
		}
	}
	return out, nil
}
