package bom

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"strconv"
	"strings"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
)

// CableEnd is one end of a cable as the technician finds it: the box (switch, node or appliance),
// the OSFP cage on its front and the position in the cage, and the part plugged in at that end.
//
// Numbering: a twin-port switch (QM9700: 64 logical ports in 32 OSFP cages, after the
// QM97x0 user manual and Linux mlx-platform) puts logical ports 2c-1 and 2c in cage c, as splits 1
// and 2; MLNX-OS names them "1/<cage>/<split>" on a 1U switch (NVIDIA MLNX-OS User Manual,
// "InfiniBand Interface Commands": `interface ib 1/<interface>`, split ports). A node with
// twin-port cages (DGX H100: four OSFP cages serving eight single-port ConnectX-7, RA-11333-001)
// puts its compute HCAs, in declaration order, two per cage: HCAs 1-2 in cage 1 as splits 1 and
// 2, and so on. Any other HCA or appliance port is a cage of its own (split 0).
type CableEnd struct {
	Device string // switch, node or appliance name
	HCA    string // the HCA's name (gpu001/mlx5_0) at an HCA end, else ""
	Port   int    // the fabric's logical port: switch port, HCA port, appliance port
	Cage   int    // OSFP cage on the box, 1-based
	Split  int    // 1 to the cage's port count (1 or 2 in a twin-port cage); 0 in a single-port cage
	Rack   string
	U      int
	// Part is what plugs into the cage at this end: a transceiver's SKU for fiber (one module
	// serves both splits of a twin-port cage), the cable's own SKU for copper (the cable ends in
	// its connector).
	Part            string
	PartDescription string
}

// PortName is the port as printed on the box: "16/2" (cage/split) in a twin-port cage, the cage
// alone in a single-port one.
func (e CableEnd) PortName() string {
	if e.Split == 0 {
		return strconv.Itoa(e.Cage)
	}
	return fmt.Sprintf("%d/%d", e.Cage, e.Split)
}

// Endpoint is the end's identity in the fabric: "leaf01:33", "gpu001/mlx5_0:1", "ufm01:1".
func (e CableEnd) Endpoint() string {
	if e.HCA != "" {
		return fabric.End{Device: e.HCA, Port: e.Port}.String()
	}
	return fabric.End{Device: e.Device, Port: e.Port}.String()
}

// CableRow is one logical link of the cabling plan with both ends spelled out.
type CableRow struct {
	Label    string // the lower-tier end, as the plan and the generator key it
	A, B     CableEnd
	Kind     string
	LengthM  float64 // standard length ordered; 0 when the run is unknown
	CableSKU string
	Bundle   string // rows of one multi-link copper cable share it
	// Links is how many links the row's cable carries (2 for a twin-port cable, 4 for a quad one
	// in a cage of 4 ports); 0 without a catalog part.
	Links int
}

// Cabling is the cabling plan of a graph (and its external links) with cage, split and part at
// each end. Rows come in the plan's order (graph links, then external links) and agree with
// Build's plan row for row: same label, kind, length and SKU.
func Cabling(g *fabric.Graph, cat *catalog.Catalog, opts Options) []CableRow {
	if g == nil || g.Spec == nil || cat == nil {
		return nil
	}
	b := newBuilder(g, cat, "")
	b.collect(opts.External)
	b.decide()
	return b.cableRows(b.plan(&Counts{}), b.newCollector())
}

// cableRows spells out the ends of b.links (decided, and planned as plan) as the technician
// finds them; c gives an HCA's node and its ordinal there, whose parity is its split in a
// twin-port node cage (as collect assigns cages).
func (b *builder) cableRows(plan []Row, c *collector) []CableRow {
	g := b.g
	hca := func(name string) (node string, split int) {
		di := mustLookup(g, name)
		return g.Devices[di].Node, c.ordinal[di]%2 + 1
	}
	// One transceiver per cage and medium, chosen for the cage's longest run (as transceivers()).
	type key struct {
		cage  cageID
		media string
	}
	longest := map[key]float64{}
	for _, l := range b.links {
		if l.ok && optical(l.kind) {
			for _, e := range []xend{l.a, l.b} {
				k := key{e.cage, l.kind}
				longest[k] = max(longest[k], l.lengthM)
			}
		}
	}
	end := func(e xend, l *xlink, sku string) CableEnd {
		ce := CableEnd{Device: e.device, Port: e.port, Rack: e.rack, U: e.u, Cage: e.cage.idx + 1}
		switch e.cage.kind {
		case 's':
			if e.typ == endSwitchTwin {
				per := b.cat.Switches[g.Devices[mustLookup(g, e.device)].Model].PortsPerCage()
				ce.Split = (e.port-1)%per + 1
			}
		case 'n':
			node, split := hca(e.device)
			ce.HCA, ce.Device, ce.Split = e.device, node, split
		case 'h':
			node, _ := hca(e.device)
			ce.HCA, ce.Device, ce.Cage = e.device, node, 1
		case 'x':
			ce.Cage = e.port
		}
		if !l.ok {
			return ce
		}
		if !optical(l.kind) {
			ce.Part, ce.PartDescription = sku, l.product.Description
			return ce
		}
		endName := map[endType]string{endSwitchTwin: EndSwitch, endNodeTwin: EndNodeTwin, endSingle: EndHCA}[e.typ]
		if t, ok := b.transceiver(l.kind, endName, e.ports, longest[key{e.cage, l.kind}]); ok {
			ce.Part, ce.PartDescription = skuOr(t.SKU, t.Name), t.Description
		}
		return ce
	}
	rows := make([]CableRow, len(plan))
	for i, r := range plan {
		l := &b.links[i]
		rows[i] = CableRow{Label: r.Label, A: end(l.a, l, r.SKU), B: end(l.b, l, r.SKU), Kind: r.Kind, LengthM: r.LengthM, CableSKU: r.SKU, Bundle: r.Bundle}
		if l.ok {
			rows[i].Links = l.product.Links
		}
	}
	return rows
}

func mustLookup(g *fabric.Graph, name string) int32 {
	i, _ := g.Lookup(name)
	return i
}

// CablingHeader is the header of CablingCSV.
var CablingHeader = []string{
	"label",
	"a_device", "a_hca", "a_port", "a_cage", "a_split", "a_port_name", "a_rack", "a_u", "a_part",
	"b_device", "b_hca", "b_port", "b_cage", "b_split", "b_port_name", "b_rack", "b_u", "b_part",
	"kind", "length_m", "cable_sku", "bundle",
}

func endFields(e CableEnd) []string {
	split := ""
	if e.Split > 0 {
		split = strconv.Itoa(e.Split)
	}
	return []string{e.Device, e.HCA, strconv.Itoa(e.Port), strconv.Itoa(e.Cage), split, e.PortName(), e.Rack, unit(e.U), e.Part}
}

func rowFields(r CableRow) []string {
	length := ""
	if r.LengthM > 0 {
		length = strconv.FormatFloat(r.LengthM, 'f', -1, 64)
	}
	out := []string{r.Label}
	out = append(out, endFields(r.A)...)
	out = append(out, endFields(r.B)...)
	return append(out, r.Kind, length, r.CableSKU, r.Bundle)
}

// CablingCSV renders rows as RFC 4180 text with CablingHeader.
func CablingCSV(rows []CableRow) (string, error) {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	if err := w.Write(CablingHeader); err != nil {
		return "", err
	}
	for _, r := range rows {
		if err := w.Write(rowFields(r)); err != nil {
			return "", err
		}
	}
	w.Flush()
	return buf.String(), w.Error()
}

// Change actions.
const (
	ChangeAdd    = "add"
	ChangeRemove = "remove"
	ChangeMove   = "move"
)

// Change is one step of a re-cabling: a cable to add, to remove, or to move (one end stays, the
// other goes from From to the row's end).
type Change struct {
	Action string
	Row    CableRow // the planned row (add, move) or the prior one (remove)
	From   string   // move: the end it leaves, "spine01:5 (3/1)"
	Prior  CableRow // move: the cable as it is now
	// Also names the links that go down while a technician does this: at every end the change
	// unplugs or plugs, the other links of the same twin-port cable and of the same twin-port
	// cage (whose transceiver or twin connector serves both splits), by the end they hold there
	// ("leaf01:39"; see CageMates).
	Also []string
}

func endKey(e CableEnd) string { return e.Endpoint() }

// Rename maps the names of a prior cabling's devices (switches, nodes, HCAs) to the names the
// same physical devices have in the planned one; a name it does not hold is the same in both.
type Rename map[string]string

// key is the end's identity in the planned cabling's names.
func (rn Rename) key(e CableEnd) string {
	if e.HCA != "" {
		return fabric.End{Device: rn.of(e.HCA), Port: e.Port}.String()
	}
	return fabric.End{Device: rn.of(e.Device), Port: e.Port}.String()
}

func (rn Rename) of(name string) string {
	if n, ok := rn[name]; ok {
		return n
	}
	return name
}

func pairKeyBy(r CableRow, key func(CableEnd) string) [2]string {
	a, b := key(r.A), key(r.B)
	if b < a {
		a, b = b, a
	}
	return [2]string{a, b}
}

// CablingChanges is what turns the prior cabling into the planned one, the devices having the
// same names in both (CablingChangesRenamed with no renames).
func CablingChanges(prior, next []CableRow) []Change {
	return CablingChangesRenamed(prior, next, nil)
}

// CablingChangesRenamed is what turns the prior cabling into the planned one, where rename
// gives the planned name of each prior device that has another (the same box, relabelled). Ends
// are compared as physical ports: the same box and the same port, whatever its name. A cable
// joining the same two ports in both is unchanged (left out, even if its part changes: the ports
// stay cabled). A prior cable and a planned one that share one end (the lower-tier end with the
// lower-tier end, or the upper with the upper: a cable never changes tier) can be one move of
// the other end; what is not a move is removed (prior only) or added (planned only). The moves
// are a maximum matching between the removed and the added cables over shared ends (Kuhn 1955,
// augmenting paths), so the work order has the fewest operations: every move spares a removal
// and an addition. Order: removals, moves, additions, each in its plan's order, so a technician
// frees ports before filling them. Rows keep the names of their own cabling: a removal and a
// move's From say what the label on the box says today.
func CablingChangesRenamed(prior, next []CableRow, rename Rename) []Change {
	had := map[[2]string]bool{}
	for _, r := range prior {
		had[pairKeyBy(r, rename.key)] = true
	}
	has := map[[2]string]bool{}
	for _, r := range next {
		has[pairKeyBy(r, endKey)] = true
	}
	var gone, added []CableRow
	for _, r := range prior {
		if !has[pairKeyBy(r, rename.key)] {
			gone = append(gone, r)
		}
	}
	for _, r := range next {
		if !had[pairKeyBy(r, endKey)] {
			added = append(added, r)
		}
	}
	// The candidates of each removed cable: the added cables that keep its A end (side 0) or its
	// B end (side 1). A port holds one cable in each cabling, so each has at most one per side.
	type cand struct{ add, side int }
	byA, byB := map[string][]int{}, map[string][]int{}
	for j, r := range added {
		byA[endKey(r.A)] = append(byA[endKey(r.A)], j)
		byB[endKey(r.B)] = append(byB[endKey(r.B)], j)
	}
	cands := make([][]cand, len(gone))
	for i, r := range gone {
		for _, j := range byA[rename.key(r.A)] {
			cands[i] = append(cands[i], cand{j, 0})
		}
		for _, j := range byB[rename.key(r.B)] {
			cands[i] = append(cands[i], cand{j, 1})
		}
	}
	// Kuhn's augmenting paths: matchOf[j] is the removed cable that moves into added j.
	matchOf := make([]int, len(added))
	sideOf := make([]int, len(added))
	for j := range matchOf {
		matchOf[j] = -1
	}
	seen := make([]int, len(added)) // the round that visited j last
	round := 0
	var augment func(i int) bool
	augment = func(i int) bool {
		for _, c := range cands[i] {
			if seen[c.add] == round {
				continue
			}
			seen[c.add] = round
			if matchOf[c.add] < 0 || augment(matchOf[c.add]) {
				matchOf[c.add], sideOf[c.add] = i, c.side
				return true
			}
		}
		return false
	}
	for i := range gone {
		round++
		augment(i)
	}
	usedGone := make([]bool, len(gone))
	var moves []Change
	for j, i := range matchOf {
		if i < 0 {
			continue
		}
		usedGone[i] = true
		from := gone[i].B
		if sideOf[j] == 1 {
			from = gone[i].A
		}
		moves = append(moves, Change{Action: ChangeMove, Row: added[j], From: MoveFrom(from), Prior: gone[i]})
	}
	var out []Change
	for i, r := range gone {
		if !usedGone[i] {
			out = append(out, Change{Action: ChangeRemove, Row: r})
		}
	}
	out = append(out, moves...) // in the planned order: matchOf is indexed by added
	for j, r := range added {
		if matchOf[j] < 0 {
			out = append(out, Change{Action: ChangeAdd, Row: r})
		}
	}
	AttachMatesRenamed(out, prior, next, rename)
	return out
}

// MoveFrom is how a move's From names the end a cable leaves: "spine01:5 (3/1)".
func MoveFrom(e CableEnd) string { return fmt.Sprintf("%s (%s)", endKey(e), e.PortName()) }

// AttachMates fills each change's Also from the cabling it touches: a removal's two ends in
// prior, an addition's two ends in next, a move's end it leaves in prior and the end it
// reaches in next. The end that stays in a move is not touched.
func AttachMates(changes []Change, prior, next []CableRow) {
	AttachMatesRenamed(changes, prior, next, nil)
}

// AttachMatesRenamed is AttachMates where rename gives the planned names of prior devices
// (CablingChangesRenamed): a move's ends are compared as physical ports.
func AttachMatesRenamed(changes []Change, prior, next []CableRow, rename Rename) {
	pm, nm := NewCageMates(prior), NewCageMates(next)
	for i := range changes {
		c := &changes[i]
		var also []string
		switch c.Action {
		case ChangeRemove:
			also = pm.matesAt(c.Row, c.Row.A, c.Row.B)
		case ChangeAdd:
			also = nm.matesAt(c.Row, c.Row.A, c.Row.B)
		case ChangeMove:
			stay := map[string]bool{c.Row.A.Endpoint(): true, c.Row.B.Endpoint(): true}
			for _, e := range []CableEnd{c.Prior.A, c.Prior.B} {
				if !stay[rename.key(e)] {
					also = append(also, pm.matesAt(c.Prior, e)...)
				}
			}
			was := map[string]bool{rename.key(c.Prior.A): true, rename.key(c.Prior.B): true}
			for _, e := range []CableEnd{c.Row.A, c.Row.B} {
				if !was[e.Endpoint()] {
					also = append(also, nm.matesAt(c.Row, e)...)
				}
			}
		}
		c.Also = dedupStrings(also)
	}
}

// matesAt names the links that share a part with row r at the ends given: the other links of
// its twin-port cable (by their end at the same box, else their label), and the other split of
// each end's twin-port cage (by its end in that cage).
func (m *CageMates) matesAt(r CableRow, ends ...CableEnd) []string {
	self, ok := m.byName[FullLabel(r)]
	if !ok {
		return nil
	}
	var out []string
	for _, e := range ends {
		if r.Bundle != "" {
			for _, i := range m.bundle[r.Bundle] {
				if i == self {
					continue
				}
				o := m.rows[i]
				switch {
				case o.A.Device == e.Device:
					out = append(out, o.A.Endpoint())
				case o.B.Device == e.Device:
					out = append(out, o.B.Endpoint())
				default:
					out = append(out, o.Label)
				}
			}
		}
		if e.Split == 0 {
			continue
		}
		for _, i := range m.cage[cageKey{e.Device, e.Cage}] {
			if i == self {
				continue
			}
			o := m.rows[i]
			for _, oe := range []CableEnd{o.A, o.B} {
				if oe.Device == e.Device && oe.Cage == e.Cage && oe.Split > 0 {
					out = append(out, oe.Endpoint())
				}
			}
		}
	}
	return out
}

func dedupStrings(ss []string) []string {
	seen := map[string]bool{}
	out := ss[:0]
	for _, s := range ss {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// ChangesHeader is the header of ChangesCSV: action and from, the CablingHeader columns of the
// row, and also_takes_down (Change.Also, space-separated).
var ChangesHeader = append(append([]string{"action", "from"}, CablingHeader...), "also_takes_down")

// ChangesCSV renders changes as RFC 4180 text with ChangesHeader.
func ChangesCSV(changes []Change) (string, error) {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	if err := w.Write(ChangesHeader); err != nil {
		return "", err
	}
	for _, c := range changes {
		row := append(append([]string{c.Action, c.From}, rowFields(c.Row)...), strings.Join(c.Also, " "))
		if err := w.Write(row); err != nil {
			return "", err
		}
	}
	w.Flush()
	return buf.String(), w.Error()
}
