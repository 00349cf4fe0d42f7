package testrig

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// UMAD2SimLib is the umad2sim wrapper of ibsim-utils: preloaded into a libibumad program
// (OpenSM, the infiniband-diags) it sends the program's MADs to ibsim instead of /dev/umadN.
const UMAD2SimLib = "/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so"

// IBSim is a running InfiniBand fabric simulator (ibsim 0.10) with its own socket name, net file
// and console, in its own temporary directory. Programs attach to it through Run, RunOpenSMOnce
// and StartOpenSM, which preload UMAD2SimLib with the right environment.
type IBSim struct {
	Dir     string // working directory: net file, console fifo, OpenSM's cache and dumps
	NetFile string // path of the net file ibsim loaded
	Sock    string // IBSIM_SOCKNAME: the abstract socket name of this simulator

	proc    *Process
	console *os.File
	mu      sync.Mutex
	seq     int
}

var ibsimSeq atomic.Int64

// Default ibsim limits (ibsim -h; sim.h MAXNETNODES, MAXNETSWITCHS, MAXNETPORTS).
const (
	ibsimMaxNodes    = 2048
	ibsimMaxSwitches = 256
	ibsimMaxPorts    = 13312
)

// StartIBSim starts ibsim on the given net file text (ibnetdiscover format) and waits until it
// listens. The console is a fifo opened read-write by the shell that execs ibsim (`<>console`):
// a console on /dev/null makes ibsim spin at 100% CPU, and a fifo with no writer ends its
// console loop. The simulator is stopped by PID when the test ends.
func StartIBSim(t TB, net string) *IBSim {
	t.Helper()
	Need(t, "ibsim", "ibsim-utils")
	if _, err := os.Stat(UMAD2SimLib); err != nil {
		t.Fatalf("%s is missing: apt-get install ibsim-utils", UMAD2SimLib)
	}
	dir := t.TempDir()
	s := &IBSim{Dir: dir, NetFile: filepath.Join(dir, "fabric.net")}
	if err := os.WriteFile(s.NetFile, []byte(net), 0o644); err != nil {
		t.Fatalf("writing net file: %v", err)
	}
	fifo := filepath.Join(dir, "console")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatalf("mkfifo %s: %v", fifo, err)
	}
	// One simulator per socket name: a second one on a taken name dies after its banner and
	// its clients silently talk to the first. Pick a name nobody listens on.
	for {
		s.Sock = fmt.Sprintf("gpcsim%d-%d", os.Getpid(), ibsimSeq.Add(1))
		if !unixSocketListening("@" + s.Sock + ":ctl") {
			break
		}
	}
	args := []string{"-s"}
	nodes, switches, ports := netFileSize(net)
	if nodes >= ibsimMaxNodes {
		args = append(args, "-N", strconv.Itoa(nodes+1))
	}
	if switches >= ibsimMaxSwitches {
		args = append(args, "-S", strconv.Itoa(switches+1))
	}
	if ports >= ibsimMaxPorts {
		args = append(args, "-P", strconv.Itoa(ports+1))
	}
	cmd := "exec ibsim " + strings.Join(args, " ") + " fabric.net <>console"
	s.proc = Start(t, dir, []string{"IBSIM_SOCKNAME=" + s.Sock, "LD_PRELOAD="}, "sh", "-c", cmd)
	s.proc.WaitForOutput(t, "Network simulator ready", 30*time.Second)
	if !WaitFor(10*time.Second, func() bool { return unixSocketListening("@"+s.Sock+":ctl") || s.proc.Exited() }) || s.proc.Exited() {
		t.Fatalf("ibsim did not bind its socket %s; output:\n%s", s.Sock, s.proc.Output())
	}
	f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
	if err != nil {
		t.Fatalf("opening ibsim console: %v", err)
	}
	s.console = f
	t.Cleanup(func() { f.Close() })
	return s
}

// netFileSize counts nodes, switches and ports (port 0 included) of a net file, to raise
// ibsim's limits when the fabric needs it.
func netFileSize(net string) (nodes, switches, ports int) {
	for _, line := range strings.Split(net, "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		switch f[0] {
		case "Switch", "Ca", "Hca", "Rt":
			n, _ := strconv.Atoi(f[1])
			nodes++
			ports += n + 1
			if f[0] == "Switch" {
				switches++
			}
		}
	}
	return
}

// unixSocketListening reports whether a unix socket with the given name (abstract names start
// with '@') is bound, from /proc/net/unix. ibsim binds its abstract names with the terminating
// NUL, which /proc shows as a trailing '@'.
func unixSocketListening(name string) bool {
	b, err := os.ReadFile("/proc/net/unix")
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) >= 8 && (f[len(f)-1] == name || f[len(f)-1] == name+"@") {
			return true
		}
	}
	return false
}

// Output returns everything ibsim printed: its banner, console prompts and replies, warnings.
func (s *IBSim) Output() string { return s.proc.Output() }

// Process returns the simulator's process (for its PID).
func (s *IBSim) Process() *Process { return s.proc }

// Console sends one console command ("Unlink \"leaf01\"[5]", "PerformanceSet ...") and returns
// ibsim's reply. A comment line sent after the command marks the end of the reply: ibsim echoes
// comments. Commands must fit ibsim's 128-byte console line.
func (s *IBSim) Console(t TB, command string) string {
	t.Helper()
	if len(command) >= 127 || strings.ContainsAny(command, "\n\r") {
		t.Fatalf("ibsim console command %q must be one line shorter than 127 bytes", command)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seq++
	marker := fmt.Sprintf("# gpc-console-%d", s.seq)
	start := len(s.proc.Output())
	if _, err := fmt.Fprintf(s.console, "%s\n%s\n", command, marker); err != nil {
		t.Fatalf("writing to ibsim console: %v", err)
	}
	var reply string
	ok := WaitFor(10*time.Second, func() bool {
		out := s.proc.Output()[start:]
		i := strings.Index(out, marker)
		if i < 0 {
			return false
		}
		reply = out[:i]
		return true
	})
	if !ok {
		t.Fatalf("ibsim did not answer %q; output since:\n%s", command, s.proc.Output()[start:])
	}
	reply = strings.ReplaceAll(reply, "sim> ", "")
	return strings.TrimSpace(reply)
}

// Env is the environment of a program attached to the simulator at node simHost (a node id
// of the net file, "gpu001 mlx5_0"). OpenSM keeps its cache (guid2lid, ...) and dumps in Dir.
func (s *IBSim) Env(simHost string) []string {
	return []string{
		"LD_PRELOAD=" + UMAD2SimLib,
		"IBSIM_SOCKNAME=" + s.Sock,
		"SIM_HOST=" + simHost,
		"OSM_TMP_DIR=" + s.Dir,
		"OSM_CACHE_DIR=" + s.Dir,
	}
}

// Result is the outcome of a client run.
type Result struct {
	Stdout, Stderr string
	Elapsed        time.Duration
}

// Run runs a client program (ibnetdiscover, smpquery, perfquery, saquery, opensm ...) attached
// at simHost, in Dir, and waits at most timeout. On timeout the program's process group is
// killed by its PID and an error returned. A non-zero exit is an error too; the output is
// returned in both cases.
func (s *IBSim) Run(t TB, simHost string, timeout time.Duration, program string, args ...string) (Result, error) {
	t.Helper()
	Need(t, program, debianPackageOf(program))
	cmd := exec.Command(program, args...)
	cmd.Dir = s.Dir
	cmd.Env = append(os.Environ(), s.Env(simHost)...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	began := time.Now()
	if err := cmd.Start(); err != nil {
		return Result{}, fmt.Errorf("starting %s: %w", program, err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(timeout):
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		err = fmt.Errorf("%s %s still running after %s: %v", program, strings.Join(args, " "), timeout, <-done)
	}
	r := Result{Stdout: stdout.String(), Stderr: stderr.String(), Elapsed: time.Since(began)}
	if err != nil {
		return r, fmt.Errorf("%s %s: %w\nstderr: %s", program, strings.Join(args, " "), err, r.Stderr)
	}
	return r, nil
}

func debianPackageOf(program string) string {
	switch program {
	case "opensm":
		return "opensm"
	case "ibsim":
		return "ibsim-utils"
	}
	return "infiniband-diags"
}

// RunOpenSMOnce runs `opensm -F conf -o` attached at simHost: one sweep, routing, and exit. The
// returned text is OpenSM's stdout and stderr. OpenSM does not exit when no engine can route
// (routing_engine ...,no_fallback), so the run is bounded by timeout.
func (s *IBSim) RunOpenSMOnce(t TB, simHost, conf string, timeout time.Duration) (Result, error) {
	t.Helper()
	return s.Run(t, simHost, timeout, "opensm", "-F", conf, "-o")
}

// StartOpenSM starts a long-running OpenSM (`opensm -F conf`) attached at simHost. Send it
// SIGHUP with Process.Cmd.Process.Signal; it is stopped by PID when the test ends.
func (s *IBSim) StartOpenSM(t TB, simHost, conf string) *Process {
	t.Helper()
	Need(t, "opensm", "opensm")
	return Start(t, s.Dir, s.Env(simHost), "opensm", "-F", conf)
}

// LIDs reads the LIDs OpenSM assigned from its guid2lid cache in Dir: port GUID ("0x" and 16
// hex digits) to base LID.
func (s *IBSim) LIDs(t TB) map[string]int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(s.Dir, "guid2lid"))
	if err != nil {
		t.Fatalf("reading OpenSM's guid2lid: %v", err)
	}
	out := map[string]int{}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		lid, err := strconv.ParseUint(f[1], 0, 16)
		if err != nil {
			continue
		}
		out[strings.ToLower(f[0])] = int(lid)
	}
	return out
}
