package opensm

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestHealth runs the health script with sh on OpenSM 3.3.23's own logs (testdata) and judges
// them: the status command decides whether OpenSM runs; without one, a log that ends with
// "Exiting SM" says it stopped; a master whose last routing run since it became master configured
// no tables (opensm-nofallback.log: lmc 1 with ftree,no_fallback) runs without routes; a later
// successful run, or another state, clears that.
func TestHealth(t *testing.T) {
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	upTo := func(text, stop string) string { // the log up to (not including) the first line with stop
		i := strings.Index(text, stop)
		if i < 0 {
			t.Fatalf("log lacks %q", stop)
		}
		return text[:strings.LastIndex(text[:i], "\n")+1]
	}
	nofallback, ftree := read("opensm-nofallback.log"), read("opensm-ftree.log")
	standby := "Nov 29 15:34:29 939063 [488F740] 0x80 -> Entering DISCOVERING state\nNov 29 15:34:29 947482 [18886C0] 0x80 -> Entering STANDBY state\n"
	for _, tc := range []struct {
		name, status, log string
		noLog             bool
		want              Liveness
		state, why        string
	}{
		{"master routed", "exit 0", upTo(ftree, "Exiting SM"), false, LiveRunning, "MASTER", ""},
		{"master unrouted", "exit 0", upTo(nofallback, "Exiting SM"), false, LiveUnrouted, "MASTER", "its last routing run as master failed: "},
		{"unrouted, then a routing run that worked", "exit 0", upTo(nofallback, "Exiting SM") + "Nov 29 15:36:00 000001 [18886C0] 0x02 -> osm_ucast_mgr_process: minhop tables configured on all switches\n", false, LiveRunning, "MASTER", ""},
		{"unrouted, then standby", "exit 0", upTo(nofallback, "Exiting SM") + standby, false, LiveRunning, "STANDBY", ""},
		{"status fails", "exit 3", upTo(ftree, "Exiting SM"), false, LiveStopped, "MASTER", "its status command (exit 3) exits 3"},
		{"status fails, no log", "exit 3", "", true, LiveStopped, "", "exits 3"},
		{"no status, log ends exiting", "", ftree, false, LiveStopped, "MASTER", "its log ends with it exiting: "},
		{"no status, still running", "", upTo(ftree, "Exiting SM"), false, LiveRunning, "MASTER", ""},
		{"no status, no log", "", "", true, LiveUnknown, "", ""},
		{"status ok, no log", "exit 0", "", true, LiveRunning, "", ""},
	} {
		dir := t.TempDir()
		log := filepath.Join(dir, "opensm.log")
		if !tc.noLog {
			if err := os.WriteFile(log, []byte(tc.log), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		tg := Target{LogFile: log, Service: Service{Start: "true", Stop: "true", Status: tc.status}}
		out, err := exec.Command("sh", "-c", tg.healthScript()).Output()
		if err != nil {
			t.Fatalf("%s: health script: %v", tc.name, err)
		}
		h := tg.parseHealth(strings.Split(string(out), "\n"))
		if h.Live != tc.want || h.State != tc.state || !strings.Contains(h.Why, tc.why) || (tc.why == "") != (h.Why == "") {
			t.Errorf("%s: %+v; want %s in state %q, why %q", tc.name, h, tc.want, tc.state, tc.why)
		}
		if h.NeedsRepair() != (tc.want == LiveStopped || tc.want == LiveUnrouted) {
			t.Errorf("%s: NeedsRepair %v", tc.name, h.NeedsRepair())
		}
	}
}
