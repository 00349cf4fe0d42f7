package provider

import (
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/testrig"
)

// TestAccFabricSubnetManagerSilentHost: the SM host's port accepts TCP and never speaks SSH (a
// plain listener). The apply fails within the fabric's create timeout, naming the host and
// saying that nothing SSH answered there, instead of hanging.
func TestAccFabricSubnetManagerSilentHost(t *testing.T) {
	requireAcc(t)
	testrig.RequirePeers(t)
	r := startSMRig(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			defer c.Close() // held open, silent, until the test ends
		}
	}()
	silent := as[*net.TCPAddr](t, l.Addr()).Port
	cfg := r.fabricSMConfig("")
	cfg = strings.Replace(cfg, fmt.Sprintf("port            = %d", r.sshd.Port), fmt.Sprintf("port            = %d", silent), 1)
	cfg = strings.Replace(cfg, "  subnet_manager = local.sm\n}", "  subnet_manager = local.sm\n  timeouts {\n    create = \"6s\"\n  }\n}", 1)
	if !strings.Contains(cfg, fmt.Sprint(silent)) || !strings.Contains(cfg, `create = "6s"`) {
		t.Fatalf("could not point the configuration at the silent port:\n%s", cfg)
	}
	var start time.Time
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{{
			PreConfig:   func() { start = time.Now() },
			Config:      cfg,
			ExpectError: re(fmt.Sprintf("127.0.0.1:%d accepted the TCP connection but sent no SSH greeting", silent)),
		}},
	})
	// Plan and apply, with the 6 s of the push; a hang would run into the test's own timeout.
	if d := time.Since(start); d > 20*time.Second {
		t.Fatalf("the apply against a silent SM host took %s (create timeout 6s)", d)
	} else {
		t.Logf("apply against a silent SM host failed after %s (create timeout 6s)", d.Round(time.Millisecond))
	}
}
