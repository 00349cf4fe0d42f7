package firstlight

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/asbuilt"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/counters"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/opensm"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/testrig"
)

// simShell runs a command under the machine's /bin/sh attached to the simulator, as the port
// counters data source runs perfquery on a host of the fabric over SSH.
type simShell struct{ env []string }

func (simShell) Addr() string { return "ibsim" }

func (s simShell) Run(ctx context.Context, cmd string) (string, string, int, error) {
	c := exec.CommandContext(ctx, "/bin/sh", "-c", cmd)
	c.Env = append(os.Environ(), s.env...)
	var out, errb strings.Builder
	c.Stdout, c.Stderr = &out, &errb
	err := c.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return out.String(), errb.String(), ee.ExitCode(), nil
	}
	return out.String(), errb.String(), 0, err
}

// TestNoisyLinkInIBSim: a floor cabled right whose one node cable's switch port counts symbol
// errors between two reads (ibsim's PerformanceSet, read with the real perfquery after OpenSM
// gave the fabric LIDs, judged by internal/counters) gives exactly one row: replace that link.
func TestNoisyLinkInIBSim(t *testing.T) {
	testrig.RequirePeers(t)
	gen, design := smallDesign(t)
	floor, rn := ownNames(design)
	cat := catalog.Default()
	fg, probs := fabric.Build(floor, cat)
	if fabric.HasErrors(probs) {
		t.Fatal(probs)
	}
	sim := startDesignSim(t, fg)
	at := fg.Devices[0].Name
	conf := filepath.Join(sim.Dir, "opensm.conf")
	if err := os.WriteFile(conf, []byte("routing_engine minhop\nlog_file "+filepath.Join(sim.Dir, "opensm.log")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := sim.RunOpenSMOnce(t, at, conf, 2*time.Minute); err != nil {
		t.Fatal(err)
	}
	res, err := sim.Run(t, at, time.Minute, "ibnetdiscover")
	if err != nil {
		t.Fatal(err)
	}
	loaded, err := asbuilt.LoadText(res.Stdout, "", asbuilt.ReadOptions{Simulated: true})
	if err != nil {
		t.Fatal(err)
	}
	cables := opensm.LocateCables(fg, loaded.Discovered)
	queries := opensm.CableQueries(cables, false)
	sh := simShell{env: sim.Env(at)}
	ctx := context.Background()
	read := func() counters.Sample {
		s, problems, err := counters.Take(ctx, sh, "perfquery", queries, false, 0)
		if err != nil || len(problems) > 0 {
			t.Fatalf("perfquery: %v %v", err, problems)
		}
		return s
	}
	noisyEnd := e(rn["leaf06"], 2)
	first := read()
	time.Sleep(300 * time.Millisecond)
	sim.Console(t, fmt.Sprintf("PerformanceSet %q[%d] PortCounters.SymbolErrorCounter=500", noisyEnd.Device, noisyEnd.Port))
	last := read()
	reports := counters.JudgeCables(cables, first.Last, last.Last, last.At, nil, counters.DefaultLimits())
	verdicts := map[string]Counter{}
	suspect := 0
	for _, r := range reports {
		verdicts[r.Label] = Counter{Verdict: string(r.Verdict), Reason: r.Reason}
		if r.Verdict != counters.OK {
			suspect++
		}
	}
	if suspect != 1 {
		t.Fatalf("%d cables judged suspect or down, want the one", suspect)
	}
	r := validateFit(t, gen, design, loaded.Floor.Spec, Input{Counters: verdicts})
	var want string
	for _, c := range design.Cables {
		if c.B == e("leaf06", 2) || c.A == e("leaf06", 2) {
			want = rowKey(Row{Action: ActReplace, Verdict: Noisy, A: Where{End: c.A.String()}, B: Where{End: c.B.String()}})
		}
	}
	if got := keys(r.Rows); strings.Join(got, "\n") != want || r.Summary.Noisy != 1 || r.Summary.OK != len(design.Cables)-1 {
		t.Errorf("rows %q, want %q; summary %+v", got, want, r.Summary)
	}
	if !strings.Contains(r.Rows[0].Detail, "suspect") {
		t.Errorf("detail %q", r.Rows[0].Detail)
	}
}
