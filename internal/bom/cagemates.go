package bom

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
)

// Cage mates: what else goes dark while a technician works on one cable.
//
// A twin-port OSFP cage holds one module for two logical links (QM97x0 user manual: 32 cages
// of two ports each; RA-11333-001: a DGX H100 cage serves two single-port ConnectX-7), so:
//   - copper (DAC/ACC) is a twin-port product: one cable carries both links of a cage (straight
//     to one far cage, or split to two HCAs; LinkX MCP4Y10 and MCP7Y00 documents). Replacing it
//     takes both links down. Its rows share CableRow.Bundle.
//   - fiber plugs into a twin-port transceiver at each twin-port end. Replacing the fiber alone
//     touches one link, but replacing (or reseating) the transceiver takes down the other split
//     of that cage as well, and a dirty or failing transceiver is a common cause of symbol
//     errors, so a technician must know who shares it.
//
// A single-port cage (split 0: a PCIe HCA, an appliance port) has no mates.

// Mate is a link that goes down with a cable while it is worked on.
type Mate struct {
	Label string // the mate's row label (its lower-tier end), e.g. "leaf01:39"
	Cable string // its full label, "leaf01:39 <-> spine01:7"
	// Shared is what the two links share: "twin-port cable MCA4J80-N004" or "transceiver
	// 980-9I510-00NS00 in leaf01 cage 20".
	Shared string
	// Always is true when any work on the cable takes the mate down (a shared copper cable);
	// false when only swapping the shared transceiver does.
	Always bool
}

// CageMates indexes a cabling plan (Cabling's rows) for the questions asked on day 2: which row
// a label names, what shares its parts, and where a technician finds it.
type CageMates struct {
	rows   []CableRow
	byName map[string]int // end labels and full labels (both orders) -> row
	bundle map[string][]int
	cage   map[cageKey][]int
}

// cageKey is a twin-port cage on a box: the switch or node name and the cage number.
type cageKey struct {
	box  string
	cage int
}

// NewCageMates indexes rows (as Cabling returns them, in any order).
func NewCageMates(rows []CableRow) *CageMates {
	m := &CageMates{rows: rows, byName: make(map[string]int, 4*len(rows)), bundle: map[string][]int{}, cage: map[cageKey][]int{}}
	for i, r := range rows {
		a, b := r.A.Endpoint(), r.B.Endpoint()
		for _, k := range []string{a, b, fabric.JoinEnds(a, b), fabric.JoinEnds(b, a)} {
			if _, dup := m.byName[k]; !dup {
				m.byName[k] = i
			}
		}
		if r.Bundle != "" {
			m.bundle[r.Bundle] = append(m.bundle[r.Bundle], i)
		}
		for _, e := range []CableEnd{r.A, r.B} {
			if e.Split > 0 {
				k := cageKey{e.Device, e.Cage}
				m.cage[k] = append(m.cage[k], i)
			}
		}
	}
	return m
}

// FullLabel is a row's cable label as gpucluster_cable and failed_cables write it:
// "<a end> <-> <b end>", lower-tier end first.
func FullLabel(r CableRow) string { return fabric.JoinEnds(r.A.Endpoint(), r.B.Endpoint()) }

// Find returns the row a label names: an end label ("leaf01:40", "gpu001/mlx5_0:1") or a full
// label in either order ("leaf01:40 <-> spine01:8"), as failed_cables and absent_cables take
// them. Spaces around "<->" do not matter.
func (m *CageMates) Find(label string) (CableRow, bool) {
	key := strings.TrimSpace(label)
	if l, r, full := fabric.SplitLabel(key); full {
		key = fabric.JoinEnds(l, r)
	}
	i, ok := m.byName[key]
	if !ok {
		return CableRow{}, false
	}
	return m.rows[i], true
}

// Mates returns the other links that share a part with the cable label names (see Find), in
// plan order: those on the same twin-port copper cable first (Always), then those sharing a
// transceiver at either end. A label that names no row has no mates.
func (m *CageMates) Mates(label string) []Mate {
	r, ok := m.Find(label)
	if !ok {
		return nil
	}
	self := m.byName[FullLabel(r)]
	seen := map[int]bool{self: true}
	var out []Mate
	if r.Bundle != "" {
		for _, i := range m.bundle[r.Bundle] {
			if !seen[i] {
				seen[i] = true
				o := m.rows[i]
				out = append(out, Mate{Label: o.Label, Cable: FullLabel(o), Shared: linksWord(r.Links) + " cable " + partName(r.CableSKU, r.Kind), Always: true})
			}
		}
	}
	if optical(r.Kind) {
		for _, e := range []CableEnd{r.A, r.B} {
			if e.Split == 0 {
				continue
			}
			var mates []int
			for _, i := range m.cage[cageKey{e.Device, e.Cage}] {
				if !seen[i] {
					mates = append(mates, i)
				}
			}
			sort.Ints(mates)
			for _, i := range mates {
				seen[i] = true
				o := m.rows[i]
				out = append(out, Mate{Label: o.Label, Cable: FullLabel(o),
					Shared: fmt.Sprintf("transceiver %s in %s cage %d", partName(e.Part, "transceiver"), e.Device, e.Cage)})
			}
		}
	}
	return out
}

// linksWord names a copper cable by the links it carries: "twin-port" (two, the QM9700's cages),
// else "4-link" and so on, so that a quad cable is not called a pair.
func linksWord(n int) string {
	if n == 2 {
		return "twin-port"
	}
	return fmt.Sprintf("%d-link", n)
}

func partName(sku, fallback string) string {
	if sku == "" {
		return "(" + fallback + ")"
	}
	return sku
}

// Where is one end as a technician walks to it: "rack06 U42 leaf01 port 20/2 (logical 40)",
// with the part plugged in there.
func Where(e CableEnd) string {
	var b strings.Builder
	if e.Rack != "" {
		b.WriteString(e.Rack)
		if e.U > 0 {
			b.WriteString(" U" + strconv.Itoa(e.U))
		}
		b.WriteString(" ")
	}
	b.WriteString(e.Device)
	if e.HCA != "" {
		// The box is the node; name the HCA the port belongs to as the host knows it.
		b.WriteString(" (" + e.HCA + ")")
	}
	if e.Split > 0 {
		fmt.Fprintf(&b, " cage %d split %d", e.Cage, e.Split)
	} else {
		fmt.Fprintf(&b, " cage %d", e.Cage)
	}
	fmt.Fprintf(&b, " (port %d)", e.Port)
	return b.String()
}

// Locate is a bad cable's entry for a technician, as failed_cables and port counters report it:
// the TechnicianLine of the cable label names (see Find) and the mates it takes down; ok is
// false when the label names no row.
func (m *CageMates) Locate(label string) (line string, mates []Mate, ok bool) {
	r, ok := m.Find(label)
	if !ok {
		return "", nil, false
	}
	mates = m.Mates(label)
	return TechnicianLine(r, mates), mates, true
}

// TechnicianLine is what a technician needs to go to a cable and replace it: both ends' rack,
// unit, box, cage and split, the cable (kind, length, part) and the transceiver at each optical
// end, and every link that goes down with it (mates, as Mates returns them). For example:
//
//	leaf01:40 <-> spine01:8: rack06 U42 leaf01 cage 20 split 2 (port 40) <-> rack01 U42 spine01 cage 4 split 2 (port 8); acc 4 m cable MCA4J80-N004; replacing it also takes down leaf01:39 <-> spine01:7 (same twin-port cable MCA4J80-N004)
func TechnicianLine(r CableRow, mates []Mate) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s <-> %s; ", FullLabel(r), Where(r.A), Where(r.B))
	if r.Kind != "" {
		b.WriteString(r.Kind + " ")
	}
	if r.LengthM > 0 {
		b.WriteString(strconv.FormatFloat(r.LengthM, 'f', -1, 64) + " m ")
	}
	b.WriteString("cable " + partName(r.CableSKU, "no catalog part"))
	if optical(r.Kind) {
		for _, e := range []CableEnd{r.A, r.B} {
			if e.Part != "" {
				fmt.Fprintf(&b, "; transceiver %s at %s", e.Part, e.Device)
			}
		}
	}
	var always, swap []string
	for _, mt := range mates {
		if mt.Always {
			always = append(always, fmt.Sprintf("%s (same %s)", mt.Cable, mt.Shared))
		} else {
			swap = append(swap, fmt.Sprintf("%s (shares the %s)", mt.Cable, mt.Shared))
		}
	}
	if len(always) > 0 {
		b.WriteString("; replacing it also takes down " + strings.Join(always, ", "))
	}
	if len(swap) > 0 {
		b.WriteString("; swapping a transceiver also takes down " + strings.Join(swap, ", "))
	}
	return b.String()
}
