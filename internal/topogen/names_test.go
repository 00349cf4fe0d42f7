package topogen

import (
	"fmt"
	"math"
	"testing"
)

// Two prefixes that name two devices alike are refused on the prefix set away from its default,
// naming both (issue 22 item 5): a leaf prefix "gpu0" beside the node prefix "gpu" made a switch
// and a node gpu001.
func TestPrefixesNameEveryDeviceOnce(t *testing.T) {
	wantRefusal(t, Params{Kind: KindFatTree, Nodes: 4, LeafPrefix: "gpu0"}, "prefixes.leaf",
		`prefixes.leaf = "gpu0" names leaf switch gpu001 and prefixes.node = "gpu" names node gpu001: two devices of one name`,
		`prefixes.leaf = "leaf" (its default)`)
	wantRefusal(t, Params{Kind: KindFatTree, Nodes: 64, LeafPrefix: "sw", SpinePrefix: "sw"}, "prefixes.spine",
		`prefixes.leaf = "sw" names leaf switch sw01 and prefixes.spine = "sw" names spine switch sw01`, `prefixes.spine = "spine" (its default)`)
	res := superPOD(1, 0)
	res.AppliancePrefix = "gpu0"
	wantRefusal(t, res, "prefixes.appliance",
		`prefixes.node = "gpu" names node gpu001 and prefixes.appliance = "gpu0" names fabric-manager appliance gpu001`, `prefixes.appliance = "ufm" (its default)`)
	// Prefixes that share a start but name nothing alike are fine.
	mustGen(t, Params{Kind: KindFatTree, Nodes: 4, LeafPrefix: "gpu-leaf"})
}

// GUID arithmetic never wraps (issue 22 item 5): 0xffffffffffffffff as a base gave
// 0x0000000000100000 to the first leaf. The refusal names the largest base that fits, which
// builds, its largest GUID exactly 0xffffffffffffffff; one more is refused.
func TestGUIDBasesNeverWrap(t *testing.T) {
	for _, c := range []struct {
		attr string
		set  func(p *Params, base uint64)
		top  func(d *Design) uint64
	}{
		{"switch_guid_base", func(p *Params, b uint64) { p.SwitchGUIDBase = b }, func(d *Design) uint64 {
			top := uint64(0)
			for _, s := range d.SwitchList {
				top = max(top, mustParse(s.GUID))
			}
			return top
		}},
		{"hca_guid_base", func(p *Params, b uint64) { p.HCAGUIDBase = b }, func(d *Design) uint64 {
			top := uint64(0)
			for _, h := range d.HCAList {
				top = max(top, mustParse(h.PortGUID))
			}
			return top
		}},
	} {
		for _, base := range []Params{{Kind: KindFatTree, Nodes: 300}, superPOD(2, 4), seedDragonfly(1)} {
			p := base
			c.set(&p, math.MaxUint64)
			e := refusal(t, p, c.attr, "and GUIDs never wrap; the largest base that fits is 0x", c.attr+` = "0x`)
			var fits uint64
			if _, err := fmt.Sscanf(e.Nearest, c.attr+` = "0x%x"`, &fits); err != nil {
				t.Fatalf("nearest %q: %v", e.Nearest, err)
			}
			c.set(&p, fits)
			if top := c.top(mustGen(t, p)); top != math.MaxUint64 {
				t.Errorf("%s at %s: largest GUID %s, want 0xffffffffffffffff", base.Kind, e.Nearest, FormatGUID(top))
			}
			c.set(&p, fits+1)
			wantRefusal(t, p, c.attr, "GUIDs never wrap", "")
		}
	}
}

func mustParse(s string) uint64 {
	v, err := ParseGUID(s)
	if err != nil {
		panic(err)
	}
	return v
}

// Names keep their width as the design grows past a power of ten when name_digits holds the
// width the names have (issue 27 item 3): 8 -> 16 SU crosses 99 leaves, and every device of the
// 8-SU design keeps its name and GUID in the 16-SU one; without it, the leaves are renamed
// (leaf01 -> leaf001, spine01 -> spine001) and keep only their GUIDs. Every name stays unique either way.
func TestNameDigitsKeepNamesPastAPowerOfTen(t *testing.T) {
	prior := mustGen(t, superPOD(8, 8))
	grown := superPOD(16, 16)
	plain := mustGen(t, grown)
	grown.NodeDigits, grown.LeafDigits, grown.SpineDigits = prior.NameDigits["node"], prior.NameDigits["leaf"], prior.NameDigits["spine"]
	grown.CoreDigits, grown.RackDigits = prior.NameDigits["core"], prior.NameDigits["rack"]
	kept := mustGen(t, grown)
	renamed := 0
	for _, s := range prior.SwitchList {
		if k, ok := kept.Switches[s.Name]; !ok || k.GUID != s.GUID {
			t.Errorf("%s (%s): not in the grown design with name_digits, or another GUID: %+v", s.Name, s.GUID, k)
		}
		if _, ok := plain.Switches[s.Name]; !ok {
			renamed++
		}
	}
	for _, n := range prior.NodeList {
		if _, ok := kept.Nodes[n.Name]; !ok {
			t.Errorf("node %s lost its name", n.Name)
		}
	}
	// 16 SU plans 128 leaves and 128 spines (4 pods of 32): both pass 99, so every switch is renamed.
	if renamed != len(prior.SwitchList) {
		t.Errorf("without name_digits, %d of %d switches renamed; want all", renamed, len(prior.SwitchList))
	}
	if plain.NameDigits["leaf"] != 3 || kept.NameDigits["leaf"] != 2 {
		t.Errorf("leaf digits: %d plain, %d kept; want 3 and 2", plain.NameDigits["leaf"], kept.NameDigits["leaf"])
	}
	if _, ok := kept.Switches["leaf128"]; !ok {
		t.Errorf("want leaf128 after leaf99 at 2 digits")
	}
}
