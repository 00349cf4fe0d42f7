package opensm

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/remote"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/testrig"
)

// The three faults of issue 32 (hostile round, point 9), each with the real peers: OpenSM on
// ibsim behind a real sshd. Each must leave the host as it was (every file of the configuration
// directory byte for byte, with its inode; OpenSM's PID and what it runs) and say what happened.

// dirState is every entry of a directory but skip: content, mode and inode (a file put back
// by a rollback must be the very file that was there, not a copy).
func dirState(t *testing.T, dir string, skip ...string) string {
	t.Helper()
	des, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
outer:
	for _, de := range des {
		for _, s := range skip {
			if de.Name() == s {
				continue outer
			}
		}
		fi, err := os.Lstat(filepath.Join(dir, de.Name()))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(filepath.Join(dir, de.Name()))
		st, ok := fi.Sys().(*syscall.Stat_t)
		if !ok {
			t.Fatalf("%s: no inode in %T", de.Name(), fi.Sys())
		}
		out = append(out, fmt.Sprintf("%s %v ino=%d %q", de.Name(), fi.Mode(), st.Ino, b))
	}
	sort.Strings(out)
	return strings.Join(out, "\n")
}

// faultSite is a site whose first push (no HCA 50) is done, verified and settled; next adds HCA
// 50 to the compute partition.
type faultSite struct {
	*smSite
	sim   *testrig.IBSim
	base  Files
	next  Files
	pid   int
	lid50 int
}

func newFaultSite(t *testing.T, mountDir func(dir string)) *faultSite {
	t.Helper()
	g, sim := simFatTree(t)
	site := newSite(t, sim, "127.0.0.1", nil, smHost, sim.Dir)
	if mountDir != nil {
		mountDir(site.dir)
	}
	f := &faultSite{smSite: site, sim: sim, base: site.render(t, g, GraphOptions{}, nil), next: site.render(t, g, GraphOptions{}, addCompute(50))}
	if _, err := Push(t.Context(), site.target(f.base, Expect{Engine: "ftree", Roots: 2})); err != nil {
		t.Fatalf("first push: %v", err)
	}
	f.pid = site.svc.PID()
	f.lid50 = sim.LIDs(t)[hcaGUID(50).String()]
	if p := pkeysOf(t, sim, f.lid50); strings.Contains(p, "0x8001") {
		t.Fatalf("HCA 50 is in the compute partition before the change:\n%s", p)
	}
	return f
}

// keptPrevious checks that OpenSM runs as before the failed push: the same process, and HCA
// 50, which only the new files add, is not a member of the compute partition.
func (f *faultSite) keptPrevious(t *testing.T) {
	t.Helper()
	if pid := f.svc.PID(); pid != f.pid {
		t.Errorf("OpenSM's PID is %d, was %d: it was restarted or stopped", pid, f.pid)
	}
	if p := pkeysOf(t, f.sim, f.lid50); strings.Contains(p, "0x8001") {
		t.Errorf("HCA 50 became a member: OpenSM runs the new files:\n%s", p)
	}
	if !sameFiles(f.onDisk(t), f.base) || f.hasPending() {
		t.Errorf("the files in %s are not the previous ones (or the pending marker is there)", f.dir)
	}
}

// TestPushDiskFillsDuringPush: the SM directory is a 256 KiB tmpfs. After the push has read the
// host, another writer fills it; the write is refused before anything is staged, the error
// names the host, the directory, the files and the space, and the directory, OpenSM and what it
// runs are exactly as before. Then the same with the file system out of inodes (bytes free, so
// the space check passes and staging fails): the error names the file that could not be
// created, and again nothing changed. With room again, the push goes through.
func TestPushDiskFillsDuringPush(t *testing.T) {
	testrig.RequirePeers(t)
	f := newFaultSite(t, func(dir string) { testrig.MountTmpfs(t, dir, "256k") })
	ctx := t.Context()
	ftree := Expect{Engine: "ftree", Roots: 2}
	filler := filepath.Join(f.dir, "filler")
	before := dirState(t, f.dir)

	testHookBeforeWrite = func() {
		// Fill to the last byte (the write fails with ENOSPC: that is the point).
		fh, err := os.Create(filler)
		if err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, 4096)
		for {
			if _, err := fh.Write(buf); err != nil {
				break
			}
		}
		_ = fh.Close()
	}
	_, err := Push(ctx, f.target(f.next, ftree))
	testHookBeforeWrite = nil
	var perr *PushError
	if !errors.As(err, &perr) || perr.Stage != "write" || !errors.Is(err, remote.ErrNoSpace) {
		t.Fatalf("push onto a full disk: %v; want a write error with ErrNoSpace", err)
	}
	t.Logf("full disk: %v", err)
	for _, want := range []string{f.sshd.Addr(), f.dir, FileOpenSMConf, FilePartitions, "nothing was changed"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error does not name %q: %v", want, err)
		}
	}
	if got := dirState(t, f.dir, "filler"); got != before {
		t.Errorf("the directory changed:\n--- before\n%s\n--- after\n%s", before, got)
	}
	f.keptPrevious(t)

	// Out of inodes: one more file may be created, the push stages eight.
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	testHookBeforeWrite = func() { testrig.LimitInodes(t, f.dir, 1) }
	_, err = Push(ctx, f.target(f.next, ftree))
	testHookBeforeWrite = nil
	if !errors.As(err, &perr) || perr.Stage != "write" || !strings.Contains(err.Error(), "No space left on device") {
		t.Fatalf("push onto a file system out of inodes: %v", err)
	}
	t.Logf("out of inodes: %v", err)
	for _, want := range []string{f.sshd.Addr(), f.dir + "/", "nothing was changed"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error does not name %q: %v", want, err)
		}
	}
	if got := dirState(t, f.dir); got != before {
		t.Errorf("the directory changed (a staged temporary left behind?):\n--- before\n%s\n--- after\n%s", before, got)
	}
	f.keptPrevious(t)

	testrig.LimitInodes(t, f.dir, 1000)
	if r, err := Push(ctx, f.target(f.next, ftree)); err != nil || r.Action != ActionSIGHUP {
		t.Fatalf("push with room again: %+v, %v", r, err)
	}
	if !testrig.WaitFor(20*time.Second, func() bool { return strings.Contains(pkeysOf(t, f.sim, f.lid50), "0x8001") }) {
		t.Fatal("after the push with room again HCA 50 lacks 0x8001")
	}
}

// TestPushWriteFailsMidway: torus-2QoS.conf, the last file the commit renames into place, is a
// bind mount on the SM host, so renaming onto it fails (EBUSY) after every other file was renamed.
// The commit script puts the original files back; the push fails saying which file and why, and
// the directory (same inodes), OpenSM and what it runs are as before.
func TestPushWriteFailsMidway(t *testing.T) {
	testrig.RequirePeers(t)
	f := newFaultSite(t, nil)
	before := dirState(t, f.dir)
	testrig.BindOver(t, filepath.Join(f.dir, FileTorus2QoS))

	_, err := Push(t.Context(), f.target(f.next, Expect{Engine: "ftree", Roots: 2}))
	var perr *PushError
	if !errors.As(err, &perr) || perr.Stage != "write" {
		t.Fatalf("push with a file that cannot be replaced: %v", err)
	}
	t.Logf("error: %v", err)
	for _, want := range []string{f.sshd.Addr(), "cannot move the new " + filepath.Join(f.dir, FileTorus2QoS) + " into place", "Device or resource busy", "every file was left as it was"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error lacks %q: %v", want, err)
		}
	}
	if got := dirState(t, f.dir); got != before {
		t.Errorf("the directory changed:\n--- before\n%s\n--- after\n%s", before, got)
	}
	f.keptPrevious(t)
}

// TestPushSMKilledDuringSweep: the reload command sends SIGHUP, waits until OpenSM logs the
// first line of the heavy sweep it starts (a rendezvous on the log, no sleep decides anything),
// SIGKILLs OpenSM and returns once it is gone, so OpenSM is dead whenever the push verifies. (On
// this 38-node fabric the sweep logs its routing result within a millisecond, usually before the
// kill lands: what is tested is an SM that dies in the sweep the push started, not that the kill
// lands before the routing.) The push fails saying OpenSM is not running, restores the previous
// files and, OpenSM having run before the push, starts it again on them: a new process that
// routes with ftree, without HCA 50.
func TestPushSMKilledDuringSweep(t *testing.T) {
	testrig.RequirePeers(t)
	f := newFaultSite(t, nil)
	tg := f.target(f.next, Expect{Engine: "ftree", Roots: 2})
	q := remote.Quote
	tg.Service.Reload = fmt.Sprintf(`log=%[1]s; sz=$(wc -c < "$log"); pid=$(cat %[2]s); %[3]s || exit $?
i=0; while [ "$(wc -c < "$log")" -le "$sz" ]; do i=$((i+1)); [ $i -gt 3000 ] && { echo 'OpenSM logged nothing after SIGHUP' >&2; exit 9; }; sleep 0.01; done
kill -9 "$pid"; while kill -0 "$pid" 2>/dev/null; do sleep 0.01; done`, q(f.log), q(f.svc.PIDFile), f.svc.Reload)
	offset := len(f.logText(t))

	_, err := Push(t.Context(), tg)
	var perr *PushError
	if !errors.As(err, &perr) || perr.Stage != "verify" {
		t.Fatalf("push with OpenSM killed during the sweep: %v", err)
	}
	t.Logf("error: %v", err)
	if !perr.RolledBack || perr.RollbackErr != nil || !perr.Restarted {
		t.Errorf("rolled back %v, restarted %v, rollback error %v; want the previous files back and OpenSM started on them", perr.RolledBack, perr.Restarted, perr.RollbackErr)
	}
	for _, want := range []string{f.sshd.Addr(), "OpenSM is not running", "OpenSM went down during the change", "started again"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error lacks %q: %v", want, err)
		}
	}
	// Restore copies each .prev back (new inodes) and keeps the .prev files, so the live files
	// are compared byte for byte, and nothing else may be left: no marker, no temporary.
	if !sameFiles(f.onDisk(t), f.base) || f.hasPending() {
		t.Errorf("the files in %s are not the previous ones (or the pending marker is there)", f.dir)
	}
	if left, _ := filepath.Glob(filepath.Join(f.dir, ".*.gpc-*")); len(left) > 0 {
		t.Errorf("temporaries left behind: %v", left)
	}
	pid := f.svc.PID()
	if pid == 0 || pid == f.pid {
		t.Fatalf("OpenSM's PID is %d (killed: %d): not started again", pid, f.pid)
	}
	if !testrig.WaitFor(20*time.Second, func() bool {
		v := ParseLog(lastRun(f.logText(t)[offset:]))
		return v.Engine == "ftree" && v.Roots == 2
	}) {
		t.Fatalf("OpenSM started again does not route with ftree:\n%s", f.logText(t)[offset:])
	}
	if p := pkeysOf(t, f.sim, f.lid50); strings.Contains(p, "0x8001") {
		t.Errorf("HCA 50 became a member: OpenSM runs the new files:\n%s", p)
	}
}
