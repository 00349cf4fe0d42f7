// Command gpucluster-sim runs a simulated GPU cluster on loopback for the provider (see
// internal/demo and internal/testrig): `make demo` runs `gpucluster-sim demo`, which applies
// examples/clusters/simulated to it end to end and stops every peer; `make demo-up` runs
// `gpucluster-sim up`, which keeps the cluster running for exploration until `make demo-down`
// (SIGTERM) or Ctrl-C.
//
// The peers die with it however it ends: each is in its own process group with a parent-death
// signal (internal/testrig's Start), and `demo` itself is ended when the process that started it
// (make) dies, stopping every peer first. Each peer leaves a pid file under DIR/pids while it
// runs: `gpucluster-sim down` (what `make demo-down` runs) stops whatever a crash left running,
// and every start does so before it empties DIR.
//
//	gpucluster-sim demo|up|down [-dir bin/demo] [-provider-dir bin] [-example examples/clusters/simulated]
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/demo"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/testrig"
)

func main() {
	if len(os.Args) < 2 || (os.Args[1] != "demo" && os.Args[1] != "up" && os.Args[1] != "down") {
		fmt.Fprintln(os.Stderr, "usage: gpucluster-sim demo|up|down [-dir DIR] [-provider-dir DIR] [-example DIR]")
		os.Exit(2)
	}
	verb := os.Args[1]
	fs := flag.NewFlagSet(verb, flag.ExitOnError)
	dir := fs.String("dir", "bin/demo", "work directory (peers, the example's copy, state, logs); emptied first")
	providerDir := fs.String("provider-dir", "bin", "directory with the built terraform-provider-gpucluster")
	example := fs.String("example", demo.DefaultExample, "the example to apply, relative to the repository")
	_ = fs.Parse(os.Args[2:])
	if verb == "demo" {
		// make's child: when make is killed (timeout, a closed terminal), so is the demo, which
		// then stops its peers (the signal handler below).
		dieWithParent(syscall.SIGTERM)
	}

	repo, err := os.Getwd()
	if err != nil {
		fail(err)
	}
	abs := func(p string) string {
		a, err := filepath.Abs(p)
		if err != nil {
			fail(err)
		}
		return a
	}
	work := abs(*dir)
	// What an earlier run that crashed left running is stopped before its directory goes.
	if err := stopLeftovers(work); err != nil {
		fail(err)
	}
	if verb == "down" {
		return
	}
	tf, err := exec.LookPath("terraform")
	if err != nil {
		fail(errors.New("terraform (>= 1.11) must be on PATH"))
	}
	if err := os.RemoveAll(work); err != nil {
		fail(err)
	}
	if err := os.Setenv(testrig.PeerPIDsEnv, filepath.Join(work, "pids")); err != nil {
		fail(err)
	}
	r := newRunner(work)
	o := demo.Options{Repo: repo, Example: *example, Dir: work, ProviderDir: abs(*providerDir), Terraform: tf, Out: os.Stdout}

	// Ctrl-C and `make demo-down` (SIGTERM) stop the peers before the command exits.
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	go func() {
		s := <-sig
		fmt.Fprintf(os.Stderr, "\n%s: stopping every peer\n", s)
		r.cleanup()
		os.Exit(130)
	}()

	code := r.run(func() {
		if verb == "demo" {
			demo.Run(r, o)
			return
		}
		s := demo.Up(r, o)
		fmt.Printf("\nThe simulated cluster is up. Run terraform against it by hand:\n\n"+
			"  export TF_CLI_CONFIG_FILE=%s\n  cd %s\n  terraform apply\n\n"+
			"The variables are in terraform.tfvars.json (the fleet's BMC password in secrets.auto.tfvars.json, mode 0600).\n"+
			"Stop it with `make demo-down` (or Ctrl-C here).\n", s.CLIConf, s.Work)
		select {} // until a signal
	})
	os.Exit(code)
}

// stopLeftovers stops the peers a run in work left running (their pid files under work/pids),
// and the OpenSMs its service scripts started (setsid: out of every process group; their
// opensm.pid files), saying what it did.
func stopLeftovers(work string) error {
	said, err := testrig.StopLeftovers(filepath.Join(work, "pids"))
	for _, s := range said {
		fmt.Println("gpucluster-sim: " + s)
	}
	if err != nil {
		return err
	}
	return filepath.WalkDir(work, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() != "opensm.pid" {
			return nil //nolint:nilerr // a directory that went away while walking holds nothing to stop
		}
		if s := stopOpenSM(p, work); s != "" {
			fmt.Println("gpucluster-sim: " + s)
		}
		return nil
	})
}

// stopOpenSM stops the OpenSM an opensm.pid file names if that PID is still an opensm started on
// a configuration under work (a PID alone may be another process's by now).
func stopOpenSM(pidFile, work string) string {
	b, err := os.ReadFile(pidFile)
	if err != nil {
		return ""
	}
	var pid int
	if _, err := fmt.Sscan(string(b), &pid); err != nil || pid <= 1 {
		return ""
	}
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	args := strings.Split(string(cmdline), "\x00")
	if err != nil || filepath.Base(args[0]) != "opensm" || !strings.Contains(string(cmdline), work+"/") {
		return ""
	}
	_ = syscall.Kill(pid, syscall.SIGTERM)
	if !testrig.WaitFor(5*time.Second, func() bool { return syscall.Kill(pid, 0) != nil }) {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	_ = os.Remove(pidFile)
	return fmt.Sprintf("opensm (pid %d, %s): stopped", pid, pidFile)
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "gpucluster-sim:", err)
	os.Exit(1)
}

// runner is the testrig.TB of a command: Fatal ends the run (the peers are stopped, the command
// exits 1), Cleanup stacks what stops the peers, TempDir gives directories under the work dir.
type runner struct {
	dir      string
	mu       sync.Mutex
	cleanups []func()
	temps    int
}

func newRunner(dir string) *runner { return &runner{dir: dir} }

// fatal is the panic value of Fatal; run recovers it.
type fatal struct{ msg string }

func (r *runner) Helper() {}

func (r *runner) Fatal(args ...any) { panic(fatal{fmt.Sprint(args...)}) }

func (r *runner) Fatalf(format string, args ...any) { panic(fatal{fmt.Sprintf(format, args...)}) }

func (r *runner) Errorf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "gpucluster-sim: "+format+"\n", args...)
}

func (r *runner) Cleanup(f func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.cleanups = append(r.cleanups, f)
}

func (r *runner) TempDir() string {
	r.mu.Lock()
	r.temps++
	d := filepath.Join(r.dir, "tmp", fmt.Sprintf("%03d", r.temps))
	r.mu.Unlock()
	if err := os.MkdirAll(d, 0o700); err != nil {
		r.Fatalf("%v", err)
	}
	return d
}

// cleanup runs the cleanups once, last first, as testing does.
func (r *runner) cleanup() {
	r.mu.Lock()
	fs := r.cleanups
	r.cleanups = nil
	r.mu.Unlock()
	for i := len(fs) - 1; i >= 0; i-- {
		fs[i]()
	}
}

// run runs f, then the cleanups; a Fatal in f is reported and makes the exit code 1.
func (r *runner) run(f func()) (code int) {
	defer r.cleanup()
	defer func() {
		if v := recover(); v != nil {
			ft, ok := v.(fatal)
			if !ok {
				panic(v)
			}
			fmt.Fprintln(os.Stderr, "\ngpucluster-sim: "+ft.msg)
			code = 1
		}
	}()
	f()
	return 0
}
