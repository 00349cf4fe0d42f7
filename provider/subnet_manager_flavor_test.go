package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
)

// TestAccSubnetManagerFlavor: routing_engine = "ar_updn" is refused for upstream OpenSM with a
// message naming the flavour that has it, and accepted, with NVIDIA's adaptive-routing option,
// for flavor = "nvidia"; the fabric's digests and the data source's texts agree in both flavours.
func TestAccSubnetManagerFlavor(t *testing.T) {
	t.Parallel()
	conf := func(res ...string) []plancheck.PlanCheck {
		var c []plancheck.PlanCheck
		for _, r := range res {
			c = append(c, plancheck.ExpectKnownOutputValue("opensm_conf", knownvalue.StringRegexp(regexp.MustCompile(r))))
		}
		return append(c, plancheck.ExpectKnownOutputValue("same_lengths", knownvalue.Bool(true)))
	}
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{
			{
				Config:      openSMFilesConfig(t, `routing_engine = "ar_updn"`),
				PlanOnly:    true,
				ExpectError: re(`routing engine "ar_updn" is one of NVIDIA SM (OpenSM 5.x)'s, not of OpenSM 3.3: set subnet_manager.flavor = "nvidia"`),
			},
			{
				Config:      openSMFilesConfig(t, `options = { ar_mode = "1" }`),
				PlanOnly:    true,
				ExpectError: re(`it is an option of NVIDIA SM (OpenSM 5.x) (subnet_manager.flavor = "nvidia")`),
			},
			{
				Config:      openSMFilesConfig(t, `flavor = "mellanox"`),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)flavor.*value must be one of`),
			},
			{
				Config: openSMFilesConfig(t, `
    flavor         = "nvidia"
    routing_engine = "ar_updn"
    options        = { ar_mode = "1", ar_sl_mask = "0xffff" }`),
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
				ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPreRefresh: conf(
					`^# NVIDIA SM \(OpenSM 5\.x\) option file`, `(?m)^routing_engine ar_updn$`, `(?m)^ar_mode 1$`,
					`(?m)^root_guid_file /etc/opensm/root_guids.conf$`)},
			},
		},
	})
}

// TestAccGeneratedTorusRendersTorus2QoS: a torus-3d design gets torus-2QoS with its torus
// description as one of the fabric's files (the fabric's digest and the data source's text
// agree). A torus declared without a design keeps dfsssp (internal/opensm TestTorusDescriptionFromDesign).
func TestAccGeneratedTorusRendersTorus2QoS(t *testing.T) {
	t.Parallel()
	key := filepath.Join(t.TempDir(), "key")
	if err := os.WriteFile(key, []byte("not used at plan time"), 0o600); err != nil {
		t.Fatal(err)
	}
	config := fmt.Sprintf(`
data "gpucluster_topology" "t" {
  kind       = "torus-3d"
  torus_dims = [4, 4, 4]
}

resource "gpucluster_fabric" "f" {
  name   = "torus"
  design = data.gpucluster_topology.t.design
  subnet_manager = {
    hosts            = ["sm01.example"]
    ssh_user         = "root"
    ssh_private_key  = file(%q)
    known_hosts_file = "/dev/null"
  }
}

data "gpucluster_opensm_files" "f" {
  design = data.gpucluster_topology.t.design
}

output "torus" {
  value = data.gpucluster_opensm_files.f.files["torus-2QoS.conf"]
}

output "conf" {
  value = data.gpucluster_opensm_files.f.files["opensm.conf"]
}

output "same" {
  value = sha256(data.gpucluster_opensm_files.f.files["torus-2QoS.conf"]) == gpucluster_fabric.f.opensm["torus-2QoS.conf"].sha256
}
`, key)
	out := func(name, re string) plancheck.PlanCheck {
		return plancheck.ExpectKnownOutputValue(name, knownvalue.StringRegexp(regexp.MustCompile(re)))
	}
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{{
			Config:             config,
			PlanOnly:           true,
			ExpectNonEmptyPlan: true,
			ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPreRefresh: []plancheck.PlanCheck{
				out("torus", `(?m)^torus 4 4 4$`),
				out("torus", `(?m)^xp_link 0x[0-9a-f]{16} 0x[0-9a-f]{16}$`),
				out("torus", `(?m)^zm_link 0x[0-9a-f]{16} 0x[0-9a-f]{16}$`),
				out("conf", `(?m)^routing_engine torus-2QoS$`),
				out("conf", `(?m)^torus_config /etc/opensm/torus-2QoS.conf$`),
				out("conf", `(?m)^qos TRUE$`),
				plancheck.ExpectKnownOutputValue("same", knownvalue.Bool(true)),
			}},
		}},
	})
}
