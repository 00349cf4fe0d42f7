package bom

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/listed"
)

// TestWarningsOnePerCause: a BOM warns once per cause however many items share it (issue 32,
// point 5: a fleet of one unknown node model, or many appliance links to a switch the fabric
// lacks, used to give one warning each). Against the items counted here: the warning gives
// their number, names the first listed.Few of them and counts the rest.
func TestWarningsOnePerCause(t *testing.T) {
	d := design(t, superPOD(1, 0, catalog.KindFiberMM))
	g, _ := fabric.Build(d.Spec(), cat)
	ext := ExternalLinks(d)
	const stray = 9
	for i := range stray {
		ext = append(ext, ExternalLink{Label: fmt.Sprintf("x%02d:1", i+1), Device: fmt.Sprintf("x%02d", i+1), Port: 1, Switch: "leaf99", SwitchPort: 1})
	}
	// A catalog without the nodes' model: every node is unknown to it.
	noNodes := *cat
	noNodes.Nodes = map[string]catalog.NodeModel{}
	nodes := map[string]bool{}
	for _, n := range d.Spec().Nodes {
		nodes[n.Name] = true
	}
	if len(nodes) <= listed.Few || stray <= listed.Few {
		t.Fatalf("the case must exceed the cap: %d nodes, %d links", len(nodes), stray)
	}
	b := Build(g, &noNodes, Options{External: ext})
	count := func(prefix string) (warnings, total, more int, text string) {
		for _, w := range b.Warnings {
			if m := regexp.MustCompile(`^(\d+) ` + regexp.QuoteMeta(prefix)).FindStringSubmatch(w); m != nil {
				warnings++
				total, _ = strconv.Atoi(m[1])
				text = w
				if mm := regexp.MustCompile(` and (\d+) more$`).FindStringSubmatch(w); mm != nil {
					more, _ = strconv.Atoi(mm[1])
				}
			}
		}
		return
	}
	for _, c := range []struct {
		prefix string
		want   int
		first  string
	}{
		{"node(s) of a model not in the catalog", len(nodes), ""},
		{"external link(s) name a switch that is not in the fabric", stray, `x01:1 (switch "leaf99")`},
	} {
		n, total, more, text := count(c.prefix)
		if n != 1 || total != c.want || more != c.want-listed.Few || !strings.Contains(text, c.first) {
			t.Errorf("%s: %d warnings, the one says %d with %d more, want one saying %d with %d more:\n%s",
				c.prefix, n, total, more, c.want, c.want-listed.Few, strings.Join(b.Warnings, "\n"))
		}
	}
	if len(b.Warnings) > 10 {
		t.Errorf("%d warnings:\n%s", len(b.Warnings), strings.Join(b.Warnings, "\n"))
	}
}
