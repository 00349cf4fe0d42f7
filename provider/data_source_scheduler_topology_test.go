package provider

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	"sigs.k8s.io/yaml"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/testrig"
)

const schedDS = "data.gpucluster_scheduler_topology.pod"

// superPODConfig is the 4-SU SuperPOD of RA-11333-001 through the fabric's own `design` input,
// with the given data source after it.
func superPODConfig(ds string) string {
	return `
data "gpucluster_topology" "pod" {
  kind                = "rail-optimized"
  scalable_units      = 4
  reserved_node_slots = 1
  cable_kind          = "fiber-mm"
}
` + ds
}

// TestAccSchedulerTopology: the real terraform reads the data source from the generated design;
// the real slurmctld loads its topology.conf and `scontrol show topology` lists the 4 scalable
// units (with their 31, 32, 32, 32 nodes) and the 16 spines over them; the Kueue object decodes
// strictly into Kueue's own type; the labels name each node's SU.
func TestAccSchedulerTopology(t *testing.T) {
	requireAcc(t)
	testrig.RequirePeers(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{
			{
				// A bad label key is refused at plan time, on the attribute, saying what a key is.
				Config: superPODConfig(`
data "gpucluster_scheduler_topology" "pod" {
  design     = data.gpucluster_topology.pod.design
  label_keys = ["Example.com/su"]
}
`),
				ExpectError: regexp.MustCompile(`(?s)Not a Kubernetes label key.*label_keys.*lower-case DNS`),
			},
			{
				Config: superPODConfig(`
data "gpucluster_scheduler_topology" "pod" {
  design = data.gpucluster_topology.pod.design
  name   = "superpod"
}
`),
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(schedDS, "node_labels.%", "127"),
					resource.TestCheckResourceAttr(schedDS, "node_labels.gpu001.fabric.topograph.run/tier-0", "su01"),
					resource.TestCheckResourceAttr(schedDS, "node_labels.gpu127.fabric.topograph.run/tier-0", "su04"),
					resource.TestCheckResourceAttr(schedDS, "node_labels.gpu127.fabric.topograph.run/tier-1", "spines"),
					resource.TestCheckResourceAttr(schedDS, "units.%", "4"),
					resource.TestCheckResourceAttr(schedDS, "units.su02.#", "8"),
					resource.TestCheckResourceAttr(schedDS, "units.su02.0", "leaf09"),
					resource.TestMatchResourceAttr(schedDS, "slurm_block_topology_conf", regexp.MustCompile(`(?m)^BlockName=su01 Nodes=gpu\[001-031\]\n(.|\n)*^BlockSizes=31,62,124$`)),
					resource.TestCheckResourceAttrWith(schedDS, "slurm_block_topology_conf", func(v string) error {
						return testrig.CheckBlockConf(v, nil)
					}),
					resource.TestCheckResourceAttrWith(schedDS, "kueue_topology", func(v string) error {
						var obj kueue.Topology
						if err := yaml.UnmarshalStrict([]byte(v), &obj); err != nil {
							return err
						}
						var levels []string
						for _, l := range obj.Spec.Levels {
							levels = append(levels, l.NodeLabel)
						}
						if obj.Name != "superpod" || strings.Join(levels, " ") != "fabric.topograph.run/tier-1 fabric.topograph.run/tier-0 kubernetes.io/hostname" {
							return fmt.Errorf("Topology %q levels %v", obj.Name, levels)
						}
						return nil
					}),
					resource.TestCheckResourceAttrWith(schedDS, "slurm_topology_conf", func(v string) error {
						ctld := testrig.StartSlurmctld(t, "gpu[001-127]", "topology/tree", v)
						out, err := ctld.Scontrol("show", "topology")
						if err != nil {
							return fmt.Errorf("scontrol: %v: %s", err, out)
						}
						want := []string{
							"SwitchName=su01 Level=0 LinkSpeed=1 Nodes=gpu[001-031]",
							"SwitchName=su04 Level=0 LinkSpeed=1 Nodes=gpu[096-127]",
							"SwitchName=spine01 Level=1 LinkSpeed=1 Nodes=gpu[001-127] Switches=su[01-04]",
							"SwitchName=spine16 Level=1 LinkSpeed=1 Nodes=gpu[001-127] Switches=su[01-04]",
						}
						for _, w := range want {
							if !strings.Contains(out, w+"\n") {
								return fmt.Errorf("scontrol show topology lacks %q:\n%s", w, out)
							}
						}
						if n := strings.Count(out, "SwitchName="); n != 20 {
							return fmt.Errorf("scontrol lists %d switches, want 4 SUs + 16 spines:\n%s", n, out)
						}
						return nil
					}),
				),
			},
			{
				// Overridden keys, tier 0 first; no hostname level.
				Config: superPODConfig(`
data "gpucluster_scheduler_topology" "pod" {
  design         = data.gpucluster_topology.pod.design
  label_keys     = ["example.com/su", "example.com/spine"]
  hostname_level = false
}
`),
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(schedDS, "node_labels.gpu040.example.com/su", "su02"),
					resource.TestMatchResourceAttr(schedDS, "kueue_topology", regexp.MustCompile(`levels:\n  - nodeLabel: example.com/spine\n  - nodeLabel: example.com/su\n$`)),
				),
			},
		},
	})
}
