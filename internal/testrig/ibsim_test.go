package testrig

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// tinyNet is two switches, each with one HCA, in the net-file format ibsim reads.
func tinyNet(prefix string) string {
	return fmt.Sprintf(`switchguid=0x0002c90000001001
Switch	8 "%[1]ssw1"
[1]	"%[1]shost1 mlx5_0"[1]	# lid 0 4xHDR
[2]	"%[1]ssw2"[2]	# lid 0 4xHDR

switchguid=0x0002c90000001002
Switch	8 "%[1]ssw2"
[1]	"%[1]shost2 mlx5_0"[1]	# lid 0 4xHDR
[2]	"%[1]ssw1"[2]	# lid 0 4xHDR

caguid=0x0000000000a00000
Ca	1 "%[1]shost1 mlx5_0"
[1]	"%[1]ssw1"[1]	# lid 0 4xHDR

caguid=0x0000000000a00010
Ca	1 "%[1]shost2 mlx5_0"
[1]	"%[1]ssw2"[1]	# lid 0 4xHDR
`, prefix)
}

func TestIBSimConsoleAndClients(t *testing.T) {
	RequirePeers(t)
	s := StartIBSim(t, tinyNet(""))
	if reply := s.Console(t, `Unlink "nosuch"[1]`); !strings.Contains(reply, `nodeid "nosuch" (nosuch) not found`) {
		t.Errorf("console reply to a bad Unlink: %q", reply)
	}
	if reply := s.Console(t, `Dump "sw1"`); !strings.Contains(reply, `Switch 8 "sw1"`) || !strings.Contains(reply, "nodeguid 2c90000001001") {
		t.Errorf("Dump reply: %q", reply)
	}

	conf := filepath.Join(s.Dir, "opensm.conf")
	if err := os.WriteFile(conf, []byte("routing_engine minhop\nlog_file "+filepath.Join(s.Dir, "opensm.log")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := s.RunOpenSMOnce(t, "host1 mlx5_0", conf, time.Minute)
	if err != nil || !strings.Contains(r.Stdout, "Reading Cached Option File: "+conf) {
		t.Fatalf("opensm: %v\n%s", err, r.Stdout)
	}
	lids := s.LIDs(t)
	for _, guid := range []string{"0x0002c90000001001", "0x0002c90000001002", "0x0000000000a00001", "0x0000000000a00011"} {
		if lids[guid] == 0 {
			t.Errorf("no LID for %s in %v", guid, lids)
		}
	}
	r, err = s.Run(t, "host1 mlx5_0", 30*time.Second, "ibnetdiscover")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`# "sw1"`, `# "sw2"`, `"host2 mlx5_0"`, "4xHDR"} {
		if !strings.Contains(r.Stdout, want) {
			t.Errorf("ibnetdiscover output lacks %q:\n%s", want, r.Stdout)
		}
	}
	// Clients that do not finish are killed by their PID.
	if _, err := s.Run(t, "host1 mlx5_0", 200*time.Millisecond, "sh", "-c", "sleep 30"); err == nil || !strings.Contains(err.Error(), "killed") {
		t.Errorf("a hanging client should be killed: %v", err)
	}
}

// TestIBSimSeparateSockets runs two simulators at once: each test gets its own socket name,
// and the clients of each see only their own fabric.
func TestIBSimSeparateSockets(t *testing.T) {
	RequirePeers(t)
	a := StartIBSim(t, tinyNet("a-"))
	b := StartIBSim(t, tinyNet("b-"))
	if a.Sock == b.Sock {
		t.Fatalf("both simulators use socket %s", a.Sock)
	}
	for _, c := range []struct {
		sim        *IBSim
		mine, not  string
		attachedAt string
	}{{a, "a-sw2", "b-sw2", "a-host1 mlx5_0"}, {b, "b-sw2", "a-sw2", "b-host1 mlx5_0"}} {
		r, err := c.sim.Run(t, c.attachedAt, 30*time.Second, "ibnetdiscover")
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(r.Stdout, c.mine) || strings.Contains(r.Stdout, c.not) {
			t.Errorf("simulator %s: ibnetdiscover should see %s and not %s:\n%s", c.sim.Sock, c.mine, c.not, r.Stdout)
		}
	}
	a.Process().Stop()
	if !a.Process().Exited() {
		t.Fatal("ibsim still running after Stop")
	}
	if !WaitFor(5*time.Second, func() bool { return !unixSocketListening("@" + a.Sock + ":ctl") }) {
		t.Errorf("socket %s still bound after Stop", a.Sock)
	}
}

func TestNetFileSize(t *testing.T) {
	n, s, p := netFileSize(tinyNet(""))
	if n != 4 || s != 2 || p != 9+9+2+2 {
		t.Errorf("netFileSize = %d nodes, %d switches, %d ports", n, s, p)
	}
}
