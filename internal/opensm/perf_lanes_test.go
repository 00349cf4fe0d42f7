package opensm

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/testrig"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/topogen"
)

// TestPerfBatchRunsInLanes: 16 runs of a perfquery stand-in run PerfLanes at a time, and come
// back each with its own stdout, stderr and status, in query order. The stand-in proves the lanes
// without timing anything: each run marks itself live in a shared directory and waits (5 s at
// most) until PerfLanes runs are live at once, which runs in turn never are; each also prints how
// many were live when it started, which is never more than PerfLanes.
func TestPerfBatchRunsInLanes(t *testing.T) {
	dir := t.TempDir()
	perf := fmt.Sprintf(`sh -c 'd=%s; touch $d/live.$1; c=$(ls $d | grep -c live); n=0
while [ ! -e $d/met ] && [ $n -lt 100 ]; do
  [ $(ls $d | grep -c live) -ge %d ] && touch $d/met
  sleep 0.05; n=$((n+1))
done
rm $d/live.$1
if [ "$1" = 7 ]; then echo "no lid $1" >&2; exit 2; fi; echo "lid $1 live $c"' x`, dir, PerfLanes)
	var qs []PerfQuery
	for i := 0; i < 16; i++ {
		qs = append(qs, PerfQuery{Name: fmt.Sprint(i), Args: []string{fmt.Sprint(i)}})
	}
	res, err := RunEachPerfQuery(context.Background(), localShell{}, perf, qs)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range res {
		switch {
		case i == 7:
			if r.Err == nil || !strings.Contains(r.Err.Error(), "exited with status 2: no lid 7") {
				t.Errorf("query 7: %+v", r)
			}
		case r.Err != nil || !strings.HasPrefix(r.Out, fmt.Sprintf("lid %d live ", i)):
			t.Errorf("query %d: %+v", i, r)
		default:
			var live int
			if _, err := fmt.Sscanf(strings.TrimPrefix(r.Out, fmt.Sprintf("lid %d live ", i)), "%d", &live); err != nil || live > PerfLanes {
				t.Errorf("query %d started with %d runs live, more than %d lanes (%v)", i, live, PerfLanes, err)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "met")); err != nil {
		t.Errorf("%d runs were never live at once: not run %d at a time", PerfLanes, PerfLanes)
	}
}

// simShell runs a batch with sh on this machine, attached to the simulator at host: what the
// SM host's sshd runs, without SSH.
type simShell struct {
	sim  *testrig.IBSim
	host string
}

func (simShell) Addr() string { return "ibsim" }

func (s simShell) Run(ctx context.Context, script string) (string, string, int, error) {
	c := exec.CommandContext(ctx, "/bin/sh", "-c", script)
	c.Dir, c.Env = s.sim.Dir, append(os.Environ(), s.sim.Env(s.host)...)
	var out, errb strings.Builder
	c.Stdout, c.Stderr = &out, &errb
	err := c.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return out.String(), errb.String(), ee.ExitCode(), nil
	}
	return out.String(), errb.String(), 0, err
}

// TestPerfBatchOnIBSim reads every cable end of a 16-node fat tree on ibsim with the real
// perfquery (one run per switch, one per HCA port), in turn and in lanes: each run reads the same
// ports either way, and every run answers. The times are logged, not judged: under ibsim a run is
// mostly the simulator's CPU, which a loaded machine shares out unevenly (TestPerfBatchRunsInLanes
// judges the lanes' time with runs that only wait).
func TestPerfBatchOnIBSim(t *testing.T) {
	testrig.RequirePeers(t)
	_, g := testrig.Generate(t, topogen.Params{Kind: topogen.KindFatTree, Nodes: 16, Tiers: 2})
	sim := testrig.StartIBSim(t, ExpectedTopology(g))
	conf := filepath.Join(sim.Dir, "opensm.conf")
	if err := os.WriteFile(conf, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if res, err := sim.RunOpenSMOnce(t, smHost, conf, 180*time.Second); err != nil {
		t.Fatalf("opensm: %v\n%s", err, res.Stdout)
	}
	res, err := sim.Run(t, smHost, 120*time.Second, "ibnetdiscover")
	if err != nil {
		t.Fatal(err)
	}
	disc, err := ParseTopology(res.Stdout)
	if err != nil {
		t.Fatal(err)
	}
	qs := CableQueries(DiscoveredCables(disc), false)
	h := simShell{sim: sim, host: smHost}
	var want [][][2]int
	for round := 0; round < 1; round++ {
		for _, lanes := range []int{1, PerfLanes} {
			began := time.Now()
			out, err := runScript(context.Background(), h, perfBatch("perfquery", qs, lanes))
			took := time.Since(began)
			if err != nil {
				t.Fatal(err)
			}
			got, err := parseEach(out, "perfquery", qs)
			if err != nil {
				t.Fatal(err)
			}
			// The ports each run read (its blocks' LIDs and ports): the counters themselves move,
			// for perfquery's own MADs cross the switches' ports.
			var ports [][][2]int
			for i, r := range got {
				blocks, perr := ParsePerfQuery(r.Out)
				if r.Err != nil || perr != nil || len(blocks) == 0 {
					t.Fatalf("lanes %d, query %d (%s): %+v %v", lanes, i, qs[i].Name, r, perr)
				}
				var ps [][2]int
				for _, b := range blocks {
					ps = append(ps, EndKey(b.LID, b.Port))
				}
				ports = append(ports, ps)
			}
			if want == nil {
				want = ports
			} else if !reflect.DeepEqual(ports, want) {
				t.Fatalf("lanes %d read other ports than runs in turn", lanes)
			}
			t.Logf("round %d: %d perfquery runs in %d lane(s): %s", round, len(qs), lanes, took.Round(time.Millisecond))
		}
	}
}
