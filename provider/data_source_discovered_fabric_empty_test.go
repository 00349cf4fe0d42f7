package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
)

// An empty floor is not a floor (issue 32): a 0-byte topology file (a failed
// `ibnetdiscover > file`), blank lines, random bytes or a snapshot cut short at a node boundary
// is an error on topology_file, not a floor of nothing that a design is fitted to and bought
// whole; empty_ok = true says an empty floor is meant, and adopts only a text with nothing in it.
func TestAccDiscoveredFabricEmptyFloor(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	floor, err := os.ReadFile("../examples/clusters/brownfield/floor/ibnetdiscover.out")
	if err != nil {
		t.Fatal(err)
	}
	blocks := strings.Split(string(floor), "\n\n")
	noise := make([]byte, 64<<10)
	for i := range noise {
		noise[i] = byte(i*7919 + i/251)
	}
	empty := write("empty.out", nil)
	blank := write("blank.out", []byte(strings.Repeat("\n", 100000)))
	random := write("random.out", noise)
	cut := write("cut.out", []byte(strings.Join(blocks[:len(blocks)/2], "\n\n")+"\n"))
	cfg := func(file, extra string) string {
		return fmt.Sprintf(`
data "gpucluster_discovered_fabric" "floor" {
  topology_file = %q
  simulated     = true
  %s
}
`, file, extra)
	}
	// Terraform shows the attribute's line under the error's summary, before its detail: the
	// error is on topology_file.
	onFile := func(summary, detail string) *regexp.Regexp {
		return regexp.MustCompile(`(?s)Error: ` + summary + `\s+with [^\n]*\n[^\n]*\n[^\n]*topology_file = .*` + strings.ReplaceAll(detail, " ", `\s+`))
	}
	const d = "data.gpucluster_discovered_fabric.floor"
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{
			{Config: cfg(empty, ""), ExpectError: onFile(`The topology holds no switch`, `no switch.*no text at all \(0 bytes.*empty_ok = true`)},
			{Config: cfg(blank, ""), ExpectError: onFile(`The topology holds no switch`, `no switch.*no text at all \(100000 bytes`)},
			{Config: cfg(random, ""), ExpectError: onFile(`The topology holds no switch`, `no switch.*cannot be read`)},
			{Config: cfg(random, "empty_ok = true"), ExpectError: onFile(`The topology holds no switch`, `no switch.*no unreadable line`)},
			{Config: cfg(cut, ""), ExpectError: onFile(`The topology is not one fabric`, `cut short`)},
			{Config: cfg(empty, "empty_ok = true"), Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttr(d, "counts.switches", "0"),
				resource.TestCheckResourceAttr(d, "counts.links", "0"),
				resource.TestCheckResourceAttr(d, "discovered_nodes.#", "0"),
			)},
			{Config: cfg(blank, "empty_ok = true"), Check: resource.TestCheckResourceAttr(d, "counts.cas", "0")},
		},
	})
}
