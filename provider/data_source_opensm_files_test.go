package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/opensm"
)

// openSMFilesConfig is a generated SuperPOD SU given to both the fabric and the data source, with
// one subnet_manager object holding every rendering setting (and the push settings, which the
// data source drops). The outputs compare the data source's texts with the fabric's digests.
func openSMFilesConfig(t *testing.T, settings string) string {
	key := filepath.Join(t.TempDir(), "key")
	if err := os.WriteFile(key, []byte("not used at plan time"), 0o600); err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf(`
data "gpucluster_topology" "pod" {
  kind           = "rail-optimized"
  scalable_units = 1
}

locals {
  sm = {
    hosts            = ["sm01.example"]
    ssh_user         = "root"
    ssh_private_key  = file(%q)
    known_hosts_file = "/dev/null"
    service          = "opensm"
    %s
  }
}

resource "gpucluster_fabric" "f" {
  name           = "pod"
  design         = data.gpucluster_topology.pod.design
  subnet_manager = local.sm
}

data "gpucluster_opensm_files" "f" {
  design         = data.gpucluster_topology.pod.design
  subnet_manager = local.sm
}

output "files" {
  value = sort(keys(data.gpucluster_opensm_files.f.files))
}

output "same_bytes" {
  value = { for n, text in data.gpucluster_opensm_files.f.files : n => sha256(text) == gpucluster_fabric.f.opensm[n].sha256 }
}

output "same_lengths" {
  value = alltrue([for n, text in data.gpucluster_opensm_files.f.files : length(text) == gpucluster_fabric.f.opensm[n].bytes])
}

output "opensm_conf" {
  value = data.gpucluster_opensm_files.f.files["opensm.conf"]
}
`, key, settings)
}

// TestAccOpenSMFilesMatchFabric: for the same inputs and subnet_manager, gpucluster_opensm_files
// renders byte for byte the files whose digests the fabric plans, with the default settings and
// with every setting that changes the files.
func TestAccOpenSMFilesMatchFabric(t *testing.T) {
	t.Parallel()
	at := tfjsonpath.New[string]
	// Every file the fabric pushes, by name.
	same := map[string]knownvalue.Check{}
	names := append([]string(nil), opensm.FileNames...)
	sort.Strings(names)
	var sorted []knownvalue.Check
	for _, n := range names {
		same[n] = knownvalue.Bool(true)
		sorted = append(sorted, knownvalue.StringExact(n))
	}
	all := knownvalue.MapExact(same)
	checks := func(conf ...string) []plancheck.PlanCheck {
		c := []plancheck.PlanCheck{
			plancheck.ExpectKnownOutputValue("same_bytes", all),
			plancheck.ExpectKnownOutputValue("same_lengths", knownvalue.Bool(true)),
			plancheck.ExpectKnownOutputValue("files", knownvalue.ListExact(sorted)),
			plancheck.ExpectKnownValue("gpucluster_fabric.f", at("opensm").AtMapKey("opensm.conf").AtMapKey("lines"), knownvalue.NotNull()),
		}
		for _, re := range conf {
			c = append(c, plancheck.ExpectKnownOutputValue("opensm_conf", knownvalue.StringRegexp(regexp.MustCompile(re))))
		}
		return c
	}
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{
			{
				Config:             openSMFilesConfig(t, ""),
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
				ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPreRefresh: checks(
					`(?m)^routing_engine ftree$`, `(?m)^partition_config_file /etc/opensm/partitions.conf$`)},
			},
			{
				Config: openSMFilesConfig(t, `
    config_dir         = "/srv/opensm"
    routing_engine     = "updn"
    lmc                = 1
    options            = { sweep_interval = "15" }
    default_membership = "limited"
    log_file           = "/var/log/opensm-pod.log"`),
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
				ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPreRefresh: checks(
					`(?m)^routing_engine updn$`, `(?m)^lmc 1$`, `(?m)^sweep_interval 15$`, `(?m)^log_file /var/log/opensm-pod.log$`,
					`(?m)^partition_config_file /srv/opensm/partitions.conf$`)},
			},
		},
	})
}
