package asbuilt

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/opensm"
)

// twoLeafText is two QM9700 leaves (by their part) and a spine, each leaf with one HCA, and the
// cables given as "leafNN[p] spine01[q]" pairs, written from both ends as ibnetdiscover does.
func twoLeafText(hcaOn map[string]int, uplinks [][2]int) string {
	const spinePorts = 64
	ports := map[string][]string{}
	add := func(a string, pa int, b string, pb int) {
		ports[a] = append(ports[a], fmt.Sprintf(`[%d]	"%s"[%d]		# "%s" lid 0 4xNDR`, pa, b, pb, b))
		ports[b] = append(ports[b], fmt.Sprintf(`[%d]	"%s"[%d]		# "%s" lid 0 4xNDR`, pb, a, pa, a))
	}
	for leaf, p := range hcaOn {
		add(leaf, p, "gpu001 mlx5_0", 1)
	}
	for _, u := range uplinks {
		add("MF0;leaf01:MQM9700/U1", u[0], "spine01", u[1])
	}
	var b strings.Builder
	nodes := []struct {
		kind, id string
		ports    int
		guid     string
	}{{"Switch", "spine01", spinePorts, "0x0002c90000000001"}, {"Switch", "MF0;leaf01:MQM9700/U1", 65, "0x0002c90000000002"},
		{"Switch", "MF0;leaf02:MQM9700/U1", 65, "0x0002c90000000003"}, {"Ca", "gpu001 mlx5_0", 1, "0x0000000000a00000"}}
	for _, n := range nodes {
		fmt.Fprintf(&b, "\nswitchguid=%s\n%s\t%d \"%s\"\n", n.guid, n.kind, n.ports, n.id)
		for _, l := range ports[n.id] {
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}

// Issue 32's floors that adopting kept in part: a port on two cables (as_built kept the last),
// an HCA on two leaves (kept one, then "disconnected"), a cable on a port the switch's model does
// not have. Each is refused as the topology it is, naming the line or the switch; the clean floor
// is adopted with every cable.
func TestLoadRefusesWhatIsNotOneFabric(t *testing.T) {
	clean := twoLeafText(map[string]int{"MF0;leaf01:MQM9700/U1": 1}, [][2]int{{33, 1}, {34, 2}})
	l, err := LoadText(clean, "", ReadOptions{})
	if err != nil || len(l.Floor.Spec.Cables) != 3 {
		t.Fatalf("the clean floor: %v", err)
	}
	for _, c := range []struct {
		name, text string
		input      Input
		want       string
	}{
		{"leaf01[33] to spine01[1] and spine01[2]", twoLeafText(map[string]int{"MF0;leaf01:MQM9700/U1": 1}, [][2]int{{33, 1}, {33, 2}}),
			InputTopologyText, "is on two cables"},
		{"an HCA port on two leaves", twoLeafText(map[string]int{"MF0;leaf01:MQM9700/U1": 1, "MF0;leaf02:MQM9700/U1": 1}, nil),
			InputTopologyText, "gpu001 mlx5_0[1] is on two cables"},
		{"port 65 of a 64-port QM9700 (its header says 65)", twoLeafText(nil, [][2]int{{65, 1}}),
			InputFloor, "switch leaf01 (0x0002c90000000002) is a QM9700, which has 64 ports, but cables are on its port(s) 65"},
	} {
		_, err := LoadText(c.text, "", ReadOptions{})
		var le *LoadError
		if !errors.As(err, &le) || le.Input != c.input || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want input %d and %q", c.name, err, c.input, c.want)
		}
	}
	if catalog.Default().Switches["QM9700"].Ports != 64 {
		t.Fatal("the catalog's QM9700 is not 64 ports: the radix case above tests nothing")
	}
}

// FuzzLoadText fuzzes the floor text through the one reader every view uses (the data source,
// the list resources, the drift report) with issue 32's property: no link is lost between the
// text and as_built. Whatever LoadText adopts has one cable per link the parser read (routers
// aside), each on its own key, and no two cables on one port. The seeds run in `go test`.
func FuzzLoadText(f *testing.F) {
	f.Add(twoLeafText(map[string]int{"MF0;leaf01:MQM9700/U1": 1}, [][2]int{{33, 1}, {34, 2}}))
	f.Add(twoLeafText(map[string]int{"MF0;leaf01:MQM9700/U1": 1}, [][2]int{{33, 1}, {33, 2}}))
	f.Add(twoLeafText(map[string]int{"MF0;leaf01:MQM9700/U1": 1, "MF0;leaf02:MQM9700/U1": 1}, nil))
	f.Add(twoLeafText(nil, [][2]int{{65, 1}}))
	f.Fuzz(func(t *testing.T, text string) {
		l, err := LoadText(text, "", ReadOptions{})
		if err != nil {
			return
		}
		d := l.Discovered
		links := 0
		for _, k := range d.Links {
			if d.Nodes[k.A.Node].Kind != opensm.NodeRouter && d.Nodes[k.B.Node].Kind != opensm.NodeRouter {
				links++
			}
		}
		cables := l.Floor.Spec.Cables
		if len(cables) != links {
			t.Fatalf("%d links read, %d cables adopted", links, len(cables))
		}
		keys, ends := map[string]bool{}, map[string]bool{}
		for _, c := range cables {
			if keys[c.Key] {
				t.Fatalf("two cables keyed %s", c.Key)
			}
			keys[c.Key] = true
			for _, e := range []string{c.A.String(), c.B.String()} {
				if ends[e] {
					t.Fatalf("two cables on %s", e)
				}
				ends[e] = true
			}
		}
	})
}
