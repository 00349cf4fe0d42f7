package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/opensm"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/testrig"
)

// discoveredConfig is gpucluster_discovered_fabric with the declared maps of the simulated fat
// tree; how says where the fabric comes from, hcas may replace local.hcas.
func discoveredConfig(r *smRig, how, hcas string) string {
	if hcas == "" {
		hcas = "local.hcas"
	}
	return r.providerHCL() + simFabricHCL() + fmt.Sprintf(`
data "gpucluster_discovered_fabric" "live" {
  switches = local.switches
  nodes    = local.nodes
  hcas     = %s
  cables   = local.cables
  %s
}
`, hcas, how)
}

// TestAccDiscoveredFabric reads the simulated fabric from a topology file and over SSH
// (ibnetdiscover on the SM host), clean against the declaration; with real-hardware speeds every
// 4xHDR stand-in link is degraded; a replaced HCA shows as an unknown GUID; and a cable unlinked
// in ibsim shows as missing.
func TestAccDiscoveredFabric(t *testing.T) {
	requireAcc(t)
	testrig.RequirePeers(t)
	r := startSMRig(t)
	r.startOpenSM(t)
	topo := filepath.Join(t.TempDir(), "expected.net")
	if err := os.WriteFile(topo, []byte(opensm.ExpectedTopology(r.g)), 0o644); err != nil {
		t.Fatal(err)
	}
	overSSH := fmt.Sprintf(`
  host                  = "127.0.0.1:%d"
  ssh_private_key       = file(%q)
  ibnetdiscover_command = "%s ibnetdiscover"`, r.sshd.Port, r.keyFile, r.simrun)
	const d = "data.gpucluster_discovered_fabric.live"
	// HCA 63 (gpu008/mlx5_7) declared with another GUID, as after a card swap not yet recorded.
	swapped := `merge(local.hcas, { "gpu008/mlx5_7" = merge(local.hcas["gpu008/mlx5_7"], { port_guid = "0x0002c903001fffff" }) })`
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{
			{
				Config: discoveredConfig(r, fmt.Sprintf("topology_file = %q\n  simulated = true", topo), ""),
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(d, "clean", "true"),
					resource.TestCheckResourceAttr(d, "counts.switches", "6"),
					resource.TestCheckResourceAttr(d, "counts.cas", "64"),
					resource.TestCheckResourceAttr(d, "counts.links", "128"),
					resource.TestCheckResourceAttr(d, "report.#", "0"),
					resource.TestCheckResourceAttr(d, "discovered_nodes.#", "70"),
				),
			},
			{
				Config: discoveredConfig(r, overSSH+"\n  simulated = true", ""),
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(d, "clean", "true"),
					resource.TestCheckResourceAttr(d, "counts.links", "128"),
					resource.TestMatchResourceAttr(d, "topology", re(`"S-0002c90300001003"`)),
					resource.TestCheckTypeSetElemNestedAttrs(d, "discovered_nodes.*", map[string]string{
						"kind": "Switch", "guid": simSwitchGUID("leaf01"), "description": "leaf01",
					}),
					resource.TestCheckTypeSetElemNestedAttrs(d, "discovered_nodes.*", map[string]string{
						"kind": "Ca", "description": "gpu002 mlx5_3",
					}),
				),
			},
			{
				// Declared as real hardware: NDR links found running at HDR.
				Config: discoveredConfig(r, overSSH, ""),
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(d, "clean", "false"),
					resource.TestCheckResourceAttr(d, "counts.degraded", "128"),
					resource.TestMatchResourceAttr(d, "degraded.0", re("runs at 4xHDR, declared 4xNDR")),
				),
			},
			{
				Config: discoveredConfig(r, fmt.Sprintf("topology_file = %q\n  simulated = true", topo), swapped),
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(d, "clean", "false"),
					resource.TestCheckResourceAttr(d, "counts.unknown_guids", "1"),
					resource.TestMatchResourceAttr(d, "unknown_guids.0", re("gpu008/mlx5_7 is declared with GUID 0x0002c903001fffff but the fabric shows 0x0002c903001003f1")),
					resource.TestCheckResourceAttr(d, "counts.missing", "0"),
				),
			},
			{
				Config:      discoveredConfig(r, fmt.Sprintf("topology_file = %q", topo), `concat(local.hcas, [{ node = "gpu009", device = "mlx5_0" }])`),
				ExpectError: re("gpu009"),
			},
			{
				PreConfig: func() {
					if reply := r.sim.Console(t, `Unlink "leaf01"[17]`); strings.Contains(reply, "not found") {
						t.Fatalf("Unlink: %s", reply)
					}
				},
				Config: discoveredConfig(r, overSSH+"\n  simulated = true", ""),
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(d, "clean", "false"),
					resource.TestCheckResourceAttr(d, "missing.#", "1"),
					resource.TestCheckResourceAttr(d, "missing.0", "leaf01[17] <-> spine01[1]"),
					resource.TestCheckResourceAttr(d, "report.0", "missing link: leaf01[17] <-> spine01[1]"),
					resource.TestCheckResourceAttr(d, "counts.links", "127"),
				),
			},
		},
	})
}
