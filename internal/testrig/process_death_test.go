package testrig

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// gone says a process has ended (reaped, or a zombie waiting for its new parent).
func gone(pid int) bool { return syscall.Kill(pid, 0) != nil || zombie(pid) }

// TestPeerParentHelper is the parent process of TestPeersDieWithTheirParent: run by itself it
// does nothing.
func TestPeerParentHelper(t *testing.T) {
	if os.Getenv("TESTRIG_PARENT_HELPER") != "1" {
		return
	}
	p := Start(t, t.TempDir(), nil, "sleep", "1000")
	fmt.Printf("peer %d\n", p.Cmd.Process.Pid)
	time.Sleep(time.Minute) // until killed
}

// Issue 32, point 8: a peer dies with the process that started it, even when that process is
// killed outright (no cleanup runs), and its pid file stays behind for StopLeftovers to find.
func TestPeersDieWithTheirParent(t *testing.T) {
	pids := t.TempDir()
	helper := exec.Command(os.Args[0], "-test.run=^TestPeerParentHelper$", "-test.count=1")
	helper.Env = append(os.Environ(), "TESTRIG_PARENT_HELPER=1", PeerPIDsEnv+"="+pids)
	out, err := helper.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := helper.Start(); err != nil {
		t.Fatal(err)
	}
	var peer int
	if line, err := bufio.NewReader(out).ReadString('\n'); err != nil || !strings.HasPrefix(line, "peer ") {
		_ = helper.Process.Kill()
		t.Fatalf("the helper said %q: %v", line, err)
	} else if _, err := fmt.Sscanf(line, "peer %d", &peer); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(pids, "sleep-*.pid"))
	if len(files) != 1 {
		t.Errorf("pid files %v, want one for sleep", files)
	} else if b, _ := os.ReadFile(files[0]); string(b) != fmt.Sprintf("%d %s\n", peer, StartTime(peer)) {
		t.Errorf("pid file %q for pid %d started at %s", b, peer, StartTime(peer))
	}
	_ = helper.Process.Kill() // SIGKILL: no cleanup of its own runs
	_ = helper.Wait()
	if !WaitFor(5*time.Second, func() bool { return gone(peer) }) {
		_ = syscall.Kill(-peer, syscall.SIGKILL)
		t.Fatalf("peer %d outlived the process that started it", peer)
	}
	// The crash left its pid file; the peer it names is gone.
	said, err := StopLeftovers(pids)
	if err != nil || len(said) != 1 || said[0] != fmt.Sprintf("sleep (pid %d): already gone", peer) {
		t.Errorf("StopLeftovers: %q %v", said, err)
	}
}

// StopLeftovers stops the process group a pid file names, and leaves alone a PID that names
// another process now (a reused PID after a crash) and a PID that is gone.
func TestStopLeftovers(t *testing.T) {
	dir := t.TempDir()
	// A peer left behind: its own process group, no parent-death signal (as on another OS).
	orphan := exec.Command("sh", "-c", "sleep 1000 & wait")
	orphan.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := orphan.Start(); err != nil {
		t.Fatal(err)
	}
	pid := orphan.Process.Pid
	t.Cleanup(func() { _ = syscall.Kill(-pid, syscall.SIGKILL); _ = orphan.Wait() })
	go func() { _ = orphan.Wait() }()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(fmt.Sprintf("sh-%d.pid", pid), fmt.Sprintf("%d %s\n", pid, StartTime(pid)))
	self := os.Getpid()
	write(fmt.Sprintf("ibsim-%d.pid", self), fmt.Sprintf("%d 1\n", self)) // this PID is another process now
	said, err := StopLeftovers(dir)
	want := []string{fmt.Sprintf("ibsim (pid %d): the PID is another process's now, left alone", self), fmt.Sprintf("sh (pid %d): stopped", pid)}
	if err != nil || strings.Join(said, "\n") != strings.Join(want, "\n") {
		t.Errorf("StopLeftovers:\n got %q\nwant %q (%v)", said, want, err)
	}
	if !WaitFor(5*time.Second, func() bool { return gone(pid) }) {
		t.Error("the left-behind peer still runs")
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "*")); len(left) != 0 {
		t.Errorf("pid files left: %v", left)
	}
}
