package testrig

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// OpenSMService is an OpenSM attached to a simulator and run the way an SM host runs it: as a
// daemon controlled by start, stop, reload and status commands (what a systemd unit would do),
// so that the provider's push can drive it over SSH. The control script sets the simulator's
// environment itself (LD_PRELOAD of umad2sim, IBSIM_SOCKNAME, SIM_HOST, OSM_TMP_DIR,
// OSM_CACHE_DIR), because sshd starts commands with a clean environment.
type OpenSMService struct {
	Dir     string // OpenSM's cache (guid2lid) and dumps; the pid file and stdout live here
	Script  string // the control script: `Script start|stop|reload|status`
	PIDFile string
	Stdout  string // OpenSM's stdout and stderr (the "Reading Cached Option File" lines)

	Start, Stop, Reload, Status string // the commands, ready for subnet_manager
}

// OpenSMService writes a control script into dir for an OpenSM attached at simHost (a node id
// of the net file, "gpu001 mlx5_0") that reads its options from conf (`opensm -F conf`). Nothing
// runs until the start command does. OpenSM runs in its own session with its PID in a pid file;
// when the test ends it is stopped by that PID.
//
// start is a no-op while OpenSM runs and fails when OpenSM dies within 0.2 s; stop sends SIGTERM
// and waits up to 10 s (then SIGKILL), so a restart never has two OpenSMs on the simulator;
// reload sends SIGHUP; status succeeds while the PID lives.
func (s *IBSim) OpenSMService(t TB, simHost, conf, dir string) *OpenSMService {
	t.Helper()
	Need(t, "opensm", "opensm")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatalf("creating %s: %v", dir, err)
	}
	o := &OpenSMService{
		Dir:     dir,
		Script:  filepath.Join(dir, "opensmctl"),
		PIDFile: filepath.Join(dir, "opensm.pid"),
		Stdout:  filepath.Join(dir, "opensm.stdout"),
	}
	q := shellQuote
	script := strings.Join([]string{
		"#!/bin/sh",
		"# OpenSM on the ibsim simulator " + s.Sock + ", controlled like a service (written by a test).",
		"export LD_PRELOAD=" + q(UMAD2SimLib) + " IBSIM_SOCKNAME=" + q(s.Sock) + " SIM_HOST=" + q(simHost),
		"export OSM_TMP_DIR=" + q(dir) + " OSM_CACHE_DIR=" + q(dir),
		"pidf=" + q(o.PIDFile),
		`running() { [ -f "$pidf" ] && kill -0 "$(cat "$pidf")" 2>/dev/null; }`,
		`case "$1" in`,
		`start)`,
		`  running && exit 0`,
		// In a non-interactive shell a background job does not lead a process group, so setsid
		// execs OpenSM in place and $! is OpenSM's PID.
		"  setsid opensm -F " + q(conf) + " >>" + q(o.Stdout) + " 2>&1 </dev/null &",
		`  echo $! >"$pidf"`,
		`  sleep 0.2`,
		`  running || { echo "opensm exited at start:" >&2; tail -n 20 ` + q(o.Stdout) + ` >&2; exit 1; }`,
		`  ;;`,
		`stop)`,
		`  if running; then`,
		`    pid=$(cat "$pidf"); kill "$pid"; i=0`,
		`    while kill -0 "$pid" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i+1)); done`,
		`    kill -0 "$pid" 2>/dev/null && kill -9 "$pid"`,
		`  fi`,
		`  rm -f "$pidf"`,
		`  ;;`,
		`reload) running && kill -HUP "$(cat "$pidf")" ;;`,
		`status) running ;;`,
		`*) echo "usage: $0 start|stop|reload|status" >&2; exit 2 ;;`,
		`esac`,
		"",
	}, "\n")
	if err := os.WriteFile(o.Script, []byte(script), 0o755); err != nil {
		t.Fatalf("writing %s: %v", o.Script, err)
	}
	o.Start, o.Stop, o.Reload, o.Status = o.Script+" start", o.Script+" stop", o.Script+" reload", o.Script+" status"
	t.Cleanup(o.kill)
	return o
}

// PID is the PID of the running OpenSM, 0 when it is not running.
func (o *OpenSMService) PID() int {
	b, err := os.ReadFile(o.PIDFile)
	if err != nil {
		return 0
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 0 || syscall.Kill(pid, 0) != nil {
		return 0
	}
	return pid
}

// Output returns what OpenSM printed on stdout and stderr so far.
func (o *OpenSMService) Output() string {
	b, _ := os.ReadFile(o.Stdout)
	return string(b)
}

// kill stops the OpenSM of the pid file, by PID: SIGTERM, then SIGKILL after 5 s.
func (o *OpenSMService) kill() {
	pid := o.PID()
	if pid == 0 {
		return
	}
	_ = syscall.Kill(pid, syscall.SIGTERM)
	if !WaitFor(5*time.Second, func() bool { return syscall.Kill(pid, 0) != nil }) {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
}

// String describes the service.
func (o *OpenSMService) String() string { return fmt.Sprintf("opensm service %s", o.Script) }

// shellQuote quotes s for POSIX sh.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
