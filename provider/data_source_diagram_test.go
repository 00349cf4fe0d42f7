package provider

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/testrig"
)

const diagramDS = "data.gpucluster_diagram.pod"

// TestAccDiagram: through the real terraform, the SuperPOD's DOT renders with the real Graphviz
// and the SVG, opened in a real headless Chromium, names all 48 switches in its rendered text.
func TestAccDiagram(t *testing.T) {
	requireAcc(t)
	testrig.RequirePeers(t)
	var switches []string
	for i := 1; i <= 32; i++ {
		switches = append(switches, fmt.Sprintf("leaf%02d", i))
	}
	for i := 1; i <= 16; i++ {
		switches = append(switches, fmt.Sprintf("spine%02d", i))
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{
			{
				Config: superPODConfig(`
data "gpucluster_diagram" "pod" {
  design               = data.gpucluster_topology.pod.design
  max_oversubscription = 0.5
}
`),
				ExpectError: regexp.MustCompile(`(?s)max_oversubscription.*at least 1`),
			},
			{
				Config: superPODConfig(`
data "gpucluster_diagram" "pod" {
  design = data.gpucluster_topology.pod.design
  title  = "SuperPOD, 4 SU"
}
`),
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestMatchResourceAttr(diagramDS, "dot", regexp.MustCompile(`"spine01" -- "leaf01" \[label="2 × 400G = 800 Gb/s"`)),
					resource.TestMatchResourceAttr(diagramDS, "dot", regexp.MustCompile(`"nodes:su01" \[label="su01\\ngpu\[001-031\]: 31 × DGX-H100"`)),
					resource.TestCheckResourceAttrWith(diagramDS, "dot", func(v string) error {
						cmd := exec.Command(testrig.Need(t, "dot", "graphviz"), "-Tsvg")
						cmd.Stdin = strings.NewReader(v)
						out, err := cmd.CombinedOutput()
						if err != nil {
							return fmt.Errorf("dot: %v: %s", err, out)
						}
						for _, s := range switches {
							if !strings.Contains(string(out), "<title>"+s+"</title>") {
								return fmt.Errorf("Graphviz's SVG has no node %s", s)
							}
						}
						return nil
					}),
					resource.TestCheckResourceAttrWith(diagramDS, "svg", func(v string) error {
						file := filepath.Join(t.TempDir(), "pod.svg")
						if err := os.WriteFile(file, []byte(v), 0o644); err != nil {
							return err
						}
						dom := testrig.ChromiumDumpDOM(t, file)
						for _, s := range switches {
							if !strings.Contains(dom, ">"+s+"</text>") {
								return fmt.Errorf("switch %s not in Chromium's rendered DOM", s)
							}
						}
						return nil
					}),
				),
			},
		},
	})
}
