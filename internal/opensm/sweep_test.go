package opensm

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/testrig"
)

// TestSweepSimulated drives Sweep over a real SSH connection against OpenSM on the simulated fat
// tree. A partition that a person added to partitions.conf by hand reaches the ports only after
// the sweep (read back with smpquery, not from OpenSM's own log); OpenSM is signalled, not
// restarted; no file changes; and the routing run after it is verified against what the files on
// the host say (ftree with both spines as roots). A stopped OpenSM is refused before anything is
// sent.
func TestSweepSimulated(t *testing.T) {
	testrig.RequirePeers(t)
	g, sim := simFatTree(t)
	site := newSite(t, sim, "127.0.0.1", nil, smHost, sim.Dir)
	ctx := t.Context()
	base := site.render(t, g, GraphOptions{}, nil)
	if _, err := Push(ctx, site.target(base, Expect{Engine: "ftree", Roots: 2})); err != nil {
		t.Fatalf("Push: %v\n%s", err, site.svc.Output())
	}
	pid := site.svc.PID()

	// A hand edit: HCA 50 joins compute. The sweep must make OpenSM read it.
	edited := site.render(t, g, GraphOptions{}, addCompute(50))[FilePartitions]
	if err := os.WriteFile(filepath.Join(site.dir, FilePartitions), []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	lid := sim.LIDs(t)[hcaGUID(50).String()]
	if p := pkeysOf(t, sim, lid); strings.Contains(p, "0x8001") {
		t.Fatalf("HCA 50 is in compute before the sweep:\n%s", p)
	}
	before := site.onDisk(t)
	tg := site.target(nil, Expect{}) // the expectation comes from the files on the host
	var steps []string
	tg.Progress = func(s string) { steps = append(steps, s) }
	r, err := Sweep(ctx, tg)
	if err != nil {
		t.Fatalf("Sweep: %v", err)
	}
	if r.Action != ActionSIGHUP || r.Written || r.Verdict.Engine != "ftree" || r.Verdict.Roots != 2 {
		t.Fatalf("result %+v", r)
	}
	if p := pkeysOf(t, sim, lid); !strings.Contains(p, "0x8001") {
		t.Fatalf("after the sweep HCA 50 lacks 0x8001:\n%s", p)
	}
	if site.svc.PID() != pid {
		t.Fatal("the sweep restarted OpenSM instead of signalling it")
	}
	if !sameFiles(before, site.onDisk(t)) {
		t.Fatal("the sweep changed files on the host")
	}
	want := []string{"signalling OpenSM (SIGHUP)", "verified: ftree tables configured on all switches, 2 root switches"}
	if len(steps) != len(want) || !strings.Contains(steps[0], want[0]) || !strings.Contains(steps[1], want[1]) {
		t.Fatalf("progress:\n%s", strings.Join(steps, "\n"))
	}

	if _, err := runLocal(site.svc.Stop); err != nil {
		t.Fatal(err)
	}
	_, err = Sweep(ctx, site.target(nil, Expect{}))
	var pe *PushError
	if !errors.As(err, &pe) || pe.Stage != "check" || !strings.Contains(err.Error(), "OpenSM is not running") {
		t.Fatalf("sweep of a stopped OpenSM: %v", err)
	}
	if site.svc.PID() != 0 {
		t.Fatal("the refused sweep started OpenSM")
	}
}

// TestExpectFromFiles: the expectation read back from rendered files equals the one the render
// was made with (ExpectFor on its Config), for each engine family.
func TestExpectFromFiles(t *testing.T) {
	g := buildGraph(t, fatTreeSpec(4, 2, 4))
	for _, engine := range []string{"", "ftree", "updn", "minhop", "ftree,minhop"} {
		cfg, err := FromGraph(g, GraphOptions{RoutingEngine: engine})
		if err != nil {
			t.Fatalf("%q: %v", engine, err)
		}
		files, err := Render(cfg)
		if err != nil {
			t.Fatalf("%q: %v", engine, err)
		}
		if got, want := ExpectFromFiles(files), ExpectFor(cfg); got != want {
			t.Errorf("engine %q: read back %+v, rendered with %+v", engine, got, want)
		}
	}
}
