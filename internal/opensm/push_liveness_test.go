package opensm

import (
	"errors"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/testrig"
)

// killOpenSM SIGKILLs the site's OpenSM (no "Exiting SM" in its log) and waits until it is gone.
func (s *smSite) killOpenSM(t *testing.T) {
	t.Helper()
	pid := s.svc.PID()
	if pid == 0 {
		t.Fatal("OpenSM is not running")
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if !testrig.WaitFor(10*time.Second, func() bool { return s.svc.PID() == 0 }) {
		t.Fatalf("OpenSM %d still there after SIGKILL", pid)
	}
}

// TestPushRepairsDeadSM (issue 22, item 4): OpenSM SIGKILLed with its files in sync. The refresh
// read (ReadHostState) says it is not running, from the status command; a push of the same files
// restarts it and verifies ftree, where it used to find nothing to do.
func TestPushRepairsDeadSM(t *testing.T) {
	testrig.RequirePeers(t)
	g, sim := simFatTree(t)
	site := newSite(t, sim, "127.0.0.1", nil, smHost, sim.Dir)
	ctx := t.Context()
	ftree := Expect{Engine: "ftree", Roots: 2}
	files := site.render(t, g, GraphOptions{}, nil)
	if _, err := Push(ctx, site.target(files, ftree)); err != nil {
		t.Fatalf("first push: %v", err)
	}
	st, err := ReadHostState(ctx, site.target(nil, Expect{}), true)
	if err != nil || st.Health.Live != LiveRunning || st.Health.State != "MASTER" || !sameFiles(st.Files, files) || st.Pending {
		t.Fatalf("after the first push: %+v, %v", st, err)
	}
	site.killOpenSM(t)
	st, err = ReadHostState(ctx, site.target(nil, Expect{}), true)
	if err != nil || st.Health.Live != LiveStopped || !st.Health.NeedsRepair() || !strings.Contains(st.Health.Why, "status") || !sameFiles(st.Files, files) {
		t.Fatalf("after SIGKILL: %+v, %v", st, err)
	}
	r, err := Push(ctx, site.target(files, ftree))
	if err != nil {
		t.Fatalf("repairing push: %v", err)
	}
	if r.Action != ActionRestart || r.Verdict.Engine != "ftree" || r.Verdict.Roots != 2 || !strings.Contains(strings.Join(r.Decision.Reasons, "; "), "OpenSM is not running") {
		t.Fatalf("repairing push: %+v", r)
	}
	if site.svc.PID() == 0 || site.hasPending() {
		t.Fatalf("after the repair: pid %d, marker %v", site.svc.PID(), site.hasPending())
	}
	if st, err := ReadHostState(ctx, site.target(nil, Expect{}), false); err != nil || st.Health.Live != LiveRunning {
		t.Fatalf("after the repair: %+v, %v", st, err)
	}
}

// TestPushKilledWhileLanding (issue 22, item 4): OpenSM is SIGKILLed between the write of a
// partitions change and its SIGHUP; then a control script the user may not run. Both fail and
// roll the files back. The first finds OpenSM, which ran before the push, dead, and starts it on
// the previous files (issue 32: it used to leave it down); the next push signals it with the new
// files. The second cannot tell OpenSM; the error says so without claiming a pending marker the
// restore removed (it used to).
func TestPushKilledWhileLanding(t *testing.T) {
	testrig.RequirePeers(t)
	g, sim := simFatTree(t)
	site := newSite(t, sim, "127.0.0.1", nil, smHost, sim.Dir)
	ctx := t.Context()
	ftree := Expect{Engine: "ftree", Roots: 2}
	base := site.render(t, g, GraphOptions{}, nil)
	if _, err := Push(ctx, site.target(base, ftree)); err != nil {
		t.Fatalf("first push: %v", err)
	}
	withHCA50 := site.render(t, g, GraphOptions{}, addCompute(50))

	testHookAfterWrite = func() { site.killOpenSM(t) }
	_, err := Push(ctx, site.target(withHCA50, ftree))
	testHookAfterWrite = nil
	var perr *PushError
	if !errors.As(err, &perr) || perr.RollbackErr != nil || !perr.RolledBack || !perr.Restarted {
		t.Fatalf("push with OpenSM killed after the write: %v (%+v)", err, perr)
	}
	if strings.Contains(err.Error(), PendingMarker) || site.hasPending() {
		t.Errorf("marker on the host %v; error: %v", site.hasPending(), err)
	}
	if !strings.Contains(err.Error(), "OpenSM went down during the change: the previous files were restored and OpenSM was started again on them") || !sameFiles(site.onDisk(t), base) {
		t.Errorf("error does not say the files were restored and OpenSM started, or they were not: %v", err)
	}
	if site.svc.PID() == 0 {
		t.Error("OpenSM is not running after the rollback")
	}
	t.Logf("error: %v", err)

	r, err := Push(ctx, site.target(withHCA50, ftree))
	if err != nil || r.Action != ActionSIGHUP || site.svc.PID() == 0 {
		t.Fatalf("next push: %+v, %v", r, err)
	}

	// A reload command the SSH user may not run: the SIGHUP stage fails, the rollback restores
	// the files and fails to tell OpenSM the same way.
	denied := site.target(site.render(t, g, GraphOptions{}, func(c *Config) { addCompute(50)(c); addCompute(51)(c) }), ftree)
	denied.Service.Reload = "echo 'opensmctl: Permission denied' >&2; exit 4"
	_, err = Push(ctx, denied)
	if !errors.As(err, &perr) || perr.Stage != "sighup" || perr.RollbackErr == nil || perr.Pending != PendingGone || site.hasPending() {
		t.Fatalf("push with a reload the user may not run: %v", err)
	}
	if strings.Contains(err.Error(), "keeps "+PendingMarker) || !strings.Contains(err.Error(), "Permission denied") {
		t.Errorf("error: %v", err)
	}
	if !sameFiles(site.onDisk(t), withHCA50) {
		t.Error("the files before the denied push are not back")
	}
}
