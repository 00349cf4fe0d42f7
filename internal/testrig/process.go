package testrig

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Need fails the test unless the program is on PATH, naming the Debian package that has it. A
// test that needs a peer program calls RequirePeers first (mustBeAsked fails it otherwise).
func Need(t TB, program, debianPackage string) string {
	t.Helper()
	mustBeAsked(t, program)
	p, err := exec.LookPath(program)
	if err != nil {
		t.Fatalf("%s is not installed: apt-get install %s (the README's test command installs it)", program, debianPackage)
	}
	return p
}

// FreePort returns a TCP port on 127.0.0.1 that was free a moment ago.
func FreePort(t TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("finding a free port: %v", err)
	}
	defer l.Close()
	a, ok := l.Addr().(*net.TCPAddr)
	if !ok {
		t.Fatalf("finding a free port: %s is no TCP address", l.Addr())
	}
	return a.Port
}

// FreeUDPPort returns a UDP port on 127.0.0.1 that was free a moment ago.
func FreeUDPPort(t TB) int {
	t.Helper()
	c, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("finding a free UDP port: %v", err)
	}
	defer c.Close()
	a, ok := c.LocalAddr().(*net.UDPAddr)
	if !ok {
		t.Fatalf("finding a free UDP port: %s is no UDP address", c.LocalAddr())
	}
	return a.Port
}

// Process is a peer program started by a test.
type Process struct {
	Cmd     *exec.Cmd
	out     *syncBuffer
	done    chan struct{}
	err     error
	pidFile string
}

// PeerPIDsEnv names a directory where Start leaves a pid file per peer while it runs
// ("<program>-<pid>.pid": the PID, which is also its process group, and its StartTime), so that
// what a crashed parent left running can be found and stopped (gpucluster-sim down, `make
// demo-down`). Unset (tests), no file is written.
const PeerPIDsEnv = "GPUCLUSTER_PEER_PIDS"

// Start runs a program in its own process group, collecting stdout and stderr, and stops it
// when the test ends; on Linux the kernel also kills it when this process dies (peerAttr).
func Start(t TB, dir string, env []string, name string, args ...string) *Process {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	cmd.SysProcAttr = peerAttr()
	p := &Process{Cmd: cmd, out: &syncBuffer{}, done: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = p.out, p.out
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", name, err)
	}
	if pids := os.Getenv(PeerPIDsEnv); pids != "" {
		pid := cmd.Process.Pid
		p.pidFile = filepath.Join(pids, fmt.Sprintf("%s-%d.pid", filepath.Base(name), pid))
		err := os.MkdirAll(pids, 0o700)
		if err == nil {
			err = os.WriteFile(p.pidFile, []byte(fmt.Sprintf("%d %s\n", pid, StartTime(pid))), 0o600)
		}
		if err != nil {
			_ = syscall.Kill(-pid, syscall.SIGKILL)
			t.Fatalf("keeping the pid file of %s: %v", name, err)
		}
	}
	go func() { p.err = cmd.Wait(); close(p.done) }()
	t.Cleanup(p.Stop)
	return p
}

// Output returns what the process printed so far.
func (p *Process) Output() string { return p.out.String() }

// Exited reports whether the process has ended.
func (p *Process) Exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// Wait waits for the process to end, at most d.
func (p *Process) Wait(d time.Duration) error {
	select {
	case <-p.done:
		return p.err
	case <-time.After(d):
		return fmt.Errorf("%s still running after %s", p.Cmd.Path, d)
	}
}

// Stop ends the process group: SIGTERM, then SIGKILL after two seconds.
func (p *Process) Stop() {
	if p.pidFile != "" {
		defer os.Remove(p.pidFile)
	}
	if p.Exited() {
		return
	}
	pgid := -p.Cmd.Process.Pid
	_ = syscall.Kill(pgid, syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(2 * time.Second):
		_ = syscall.Kill(pgid, syscall.SIGKILL)
		<-p.done
	}
}

// WaitFor polls cond every 20 ms until it holds or the timeout passes.
func WaitFor(timeout time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(timeout)
	for {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// WaitForOutput waits until the process has printed want, or fails the test with its output.
func (p *Process) WaitForOutput(t TB, want string, timeout time.Duration) {
	t.Helper()
	if !WaitFor(timeout, func() bool { return strings.Contains(p.Output(), want) || p.Exited() }) || !strings.Contains(p.Output(), want) {
		t.Fatalf("%s did not print %q within %s; output:\n%s", p.Cmd.Path, want, timeout, p.Output())
	}
}

type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// StopLeftovers stops the peers whose pid files (Start's, under PeerPIDsEnv) are in dir: a process
// group whose leader is still the process the file names (same PID and StartTime) gets SIGTERM,
// then SIGKILL after five seconds; a file whose process is gone, or whose PID now names another
// process, is only removed. It says what it did, one line per file. What a crashed parent left
// behind is found this way (gpucluster-sim down, `make demo-down`).
func StopLeftovers(dir string) ([]string, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.pid"))
	if err != nil || len(files) == 0 {
		return nil, err
	}
	var said []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return said, err
		}
		var pid int
		var start string
		if n, _ := fmt.Sscan(string(b), &pid, &start); n < 1 || pid <= 1 {
			said = append(said, fmt.Sprintf("%s: not a pid file, removed", f))
			_ = os.Remove(f)
			continue
		}
		name := strings.TrimSuffix(filepath.Base(f), fmt.Sprintf("-%d.pid", pid))
		switch now := StartTime(pid); {
		case now == "" || zombie(pid):
			said = append(said, fmt.Sprintf("%s (pid %d): already gone", name, pid))
		case start == "" || now != start:
			said = append(said, fmt.Sprintf("%s (pid %d): the PID is another process's now, left alone", name, pid))
		default:
			_ = syscall.Kill(-pid, syscall.SIGTERM)
			how := "stopped"
			if !WaitFor(5*time.Second, func() bool { return StartTime(pid) != start || zombie(pid) }) {
				_ = syscall.Kill(-pid, syscall.SIGKILL)
				how = "killed (it ignored SIGTERM for 5 s)"
			}
			said = append(said, fmt.Sprintf("%s (pid %d): %s", name, pid, how))
		}
		_ = os.Remove(f)
	}
	return said, nil
}

// zombie says a process has ended but its parent has not reaped it (state Z in /proc/<pid>/stat):
// stopped, as far as its peers are concerned.
func zombie(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && strings.HasPrefix(strings.TrimSpace(s[i+1:]), "Z")
}
