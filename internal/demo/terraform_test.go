package demo

import (
	"os/exec"
	"strings"
	"testing"
	"time"
)

// A command that prints only heartbeats is stopped once the limit passes without progress.
func TestRunWatchedStopsACommandWithoutProgress(t *testing.T) {
	cmd := exec.Command("sh", "-c", `echo "gpucluster_hca.x: Creating..."; while :; do echo "gpucluster_hca.x: Still creating... [10s elapsed]"; sleep 0.1; done`)
	began := time.Now()
	out, stalled, err := runWatched(cmd, 1500*time.Millisecond)
	if stalled != "gpucluster_hca.x: Still creating... [10s elapsed]" {
		t.Fatalf("stalled = %q, want the last heartbeat; err %v", stalled, err)
	}
	if err == nil {
		t.Fatalf("a killed command returned no error")
	}
	if took := time.Since(began); took > time.Minute {
		t.Fatalf("stopped after %s", took)
	}
	if !strings.HasPrefix(string(out), "gpucluster_hca.x: Creating...\n") {
		t.Fatalf("output lost its first line: %q", string(out)[:min(len(out), 80)])
	}
}

// A command that keeps making progress runs past the limit and ends on its own.
func TestRunWatchedLetsProgressRunPastTheLimit(t *testing.T) {
	// 60 lines 0.1 s apart run past a 3 s limit; only a 3 s stall of the shell would stop it.
	cmd := exec.Command("sh", "-c", `i=0; while [ $i -lt 60 ]; do echo "gpucluster_hca.n$i: Creation complete after 1s"; i=$((i+1)); sleep 0.1; done; echo done`)
	began := time.Now()
	out, stalled, err := runWatched(cmd, 3*time.Second)
	if stalled != "" || err != nil {
		t.Fatalf("stalled %q, err %v", stalled, err)
	}
	if took := time.Since(began); took < 3*time.Second {
		t.Fatalf("finished in %s: the test does not run past the limit", took)
	}
	if n := strings.Count(string(out), "Creation complete"); n != 60 || !strings.HasSuffix(string(out), "done\n") {
		t.Fatalf("output has %d progress lines: %q", n, out)
	}
}
