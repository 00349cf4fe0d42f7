package provider

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/testrig"
)

// toolHCA is an HCA named name on node, reached at h, with tool unset.
func toolHCA(h *hcaNode, name, node, body string) string {
	return fmt.Sprintf(`
resource "gpucluster_hca" %q {
  node       = %q
  device     = "mlx5_0"
  port_guid  = "0x0002c903000100%02x"
  mst_device = %q
  ssh_host   = %q
%s
}
`, name, node, len(name), cx7, h.sshd.Addr(), body)
}

// callsAllOf checks that every tool call on h was one of the family's programs.
func callsAllOf(h *hcaNode, family []string) resource.TestCheckFunc {
	return rigCheck(func() error {
		calls := h.calls()
		if len(calls) == 0 {
			return fmt.Errorf("no tool ran")
		}
		for _, c := range calls {
			prog, _, _ := strings.Cut(c, " ")
			found := false
			for _, f := range family {
				found = found || prog == f
			}
			if !found {
				return fmt.Errorf("call %q is not one of %q", c, family)
			}
		}
		return nil
	})
}

// TestAccHCAFirmwareToolFound leaves tool unset on two nodes whose SSH sessions have one tool
// family each on their PATH, under its real name (the double): gpu001 mstflint alone, gpu002
// MFT alone. Each HCA reads its card with the tool its node has and records it; the plan of an
// image then shows the tool and the version the image brings, and the burn goes through
// mstflint on gpu001; a node with neither tool is refused at plan, naming the node, both tools
// and what to install.
func TestAccHCAFirmwareToolFound(t *testing.T) {
	requireAcc(t)
	testrig.RequirePeers(t)
	mst := startHCANodeWithPath(t, nil, mstflintTools)
	mft := startHCANodeWithPath(t, mst, mftTools)
	none := startHCANodeWithPath(t, mst, nil)
	good := mst.writeFirmwareImage(t, "fw-ConnectX7-rel-28_43_1014.bin", "28.43.1014", "MT_0000001244")
	noneImage := none.writeFirmwareImage(t, "fw-ConnectX7-rel-28_43_1014.bin", "28.43.1014", "MT_0000001244")
	const a, b = "gpucluster_hca.a", "gpucluster_hca.b"
	tool := tfjsonpath.New("tool")
	readOnly := mst.provider() + toolHCA(mst, "a", "gpu001", "  firmware = {}") + toolHCA(mft, "b", "gpu002", "  firmware = {}")
	withImage := mst.provider() + toolHCA(mst, "a", "gpu001", fmt.Sprintf("  firmware = { image = %q }", good)) +
		toolHCA(mft, "b", "gpu002", "  firmware = {}")
	mstBurns := func(want ...string) resource.TestCheckFunc {
		return rigCheck(func() error {
			var got []string
			for _, c := range mst.calls() {
				if strings.HasSuffix(c, " burn") {
					got = append(got, c)
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				return fmt.Errorf("burns on gpu001: %q, want %q", got, want)
			}
			return nil
		})
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{
			{
				// Read only: the tool is not known until the node is asked, at apply.
				Config: readOnly,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectUnknownValue(a, tool),
					plancheck.ExpectUnknownValue(b, tool),
				}},
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(a, "tool", "mstconfig"),
					resource.TestCheckResourceAttr(a, "firmware.version", "28.42.1000"),
					resource.TestCheckResourceAttr(a, "firmware.psid", "MT_0000001244"),
					resource.TestCheckResourceAttr(b, "tool", "mlxconfig"),
					resource.TestCheckResourceAttr(b, "firmware.version", "28.42.1000"),
					callsAllOf(mst, mstflintTools),
					callsAllOf(mft, mftTools),
					mstBurns(),
				),
			},
			{
				// The image: the plan shows the recorded tool and the version the image brings;
				// the burn goes through mstflint.
				Config: withImage,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(a, plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue(a, tool, knownvalue.StringExact("mstconfig")),
					expectBefore{a, []string{"firmware", "version"}, "28.42.1000"},
					plancheck.ExpectKnownValue(a, tfjsonpath.New("firmware").AtMapKey("version"), knownvalue.StringExact("28.43.1014")),
					plancheck.ExpectResourceAction(b, plancheck.ResourceActionNoop),
				}},
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(a, "tool", "mstconfig"),
					resource.TestCheckResourceAttr(a, "firmware.version", "28.43.1014"),
					mstBurns("mstflint -d "+cx7+" -i "+good+" -y burn"),
					callsAllOf(mst, mstflintTools),
					callsAllOf(mft, mftTools),
				),
			},
			{Config: withImage, PlanOnly: true},
			{
				// firmware_settings beside it: mstconfig, from the same family.
				Config: mst.provider() + toolHCA(mst, "a", "gpu001", fmt.Sprintf("  firmware = { image = %q }\n  firmware_settings = { LINK_TYPE_P1 = \"IB\" }", good)) +
					toolHCA(mft, "b", "gpu002", "  firmware = {}"),
				Check: resource.ComposeAggregateTestCheckFunc(
					paramIs(mst, "LINK_TYPE_P1", "IB(1)", ""),
					resource.TestCheckResourceAttr(a, "firmware_version", "28.43.1014"),
					callsAllOf(mst, mstflintTools),
					mstBurns("mstflint -d "+cx7+" -i "+good+" -y burn"),
				),
			},
			{
				// A node with neither tool: refused at plan, before anything runs there.
				Config:      withImage + toolHCA(none, "c", "gpu003", fmt.Sprintf("  firmware = { image = %q }", noneImage)),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)no flint or mstflint on node gpu003.*node\s+gpu003.*neither\s+flint\s+\(NVIDIA\s+MFT\)\s+nor\s+mstflint.*install\s+NVIDIA\s+MFT.*apt-get\s+install\s+mstflint`),
			},
		},
	})
	if c := none.calls(); len(c) != 0 {
		t.Errorf("a tool ran on the node without tools: %q", c)
	}
}
