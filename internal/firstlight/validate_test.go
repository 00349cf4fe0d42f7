package firstlight

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/topogen"
)

// smallDesign is a 4-node rail-optimized pod: 8 rail leaves (node n on port n), 4 spines.
func smallDesign(t *testing.T) (*topogen.Design, *fabric.Spec) {
	t.Helper()
	d, err := topogen.Generate(topogen.Params{Kind: topogen.KindRailOptimized, Nodes: 4}, catalog.Default())
	if err != nil {
		t.Fatal(err)
	}
	return d, d.FabricSpec()
}

// ownNames is the design's cabling under a site's own names and GUIDs, in another order
// (reversed, so no match can lean on the order), with the HCAs' device names kept (an HCA is
// mlx5_k in its node wherever it is). rename maps design names to the floor's.
func ownNames(design *fabric.Spec) (floor *fabric.Spec, rename map[string]string) {
	rename = map[string]string{}
	floor = &fabric.Spec{}
	for i, s := range design.Switches {
		rename[s.Name] = fmt.Sprintf("ib-sw-%02d", len(design.Switches)-i)
		s.Name, s.GUID, s.Rack, s.PositionU, s.Role, s.Group, s.Ref = rename[s.Name], fmt.Sprintf("0x9a00%012x", 7000+i), "", 0, "", "", fabric.Ref{}
		floor.Switches = append(floor.Switches, s)
	}
	for i, n := range design.Nodes {
		rename[n.Name] = fmt.Sprintf("hgx-b%03d", 100+len(design.Nodes)-i)
		n.Name, n.Rack, n.PositionU, n.Ref = rename[n.Name], "", 0, fabric.Ref{}
		floor.Nodes = append(floor.Nodes, n)
	}
	for i, h := range design.HCAs {
		h.Node = rename[h.Node]
		nn := fabric.HCAName(h.Node, h.Device)
		rename[h.Name] = nn
		h.Name, h.PortGUID, h.Rail, h.Ref = nn, fmt.Sprintf("0x5b00%012x", 9000+i), -1, fabric.Ref{}
		floor.HCAs = append(floor.HCAs, h)
	}
	for _, c := range design.Cables {
		c.A.Device, c.B.Device, c.Kind, c.LengthM, c.Ref = rename[c.A.Device], rename[c.B.Device], "", 0, fabric.Ref{}
		floor.Cables = append(floor.Cables, c)
	}
	slices.Reverse(floor.Switches)
	slices.Reverse(floor.Nodes)
	slices.Reverse(floor.HCAs)
	slices.Reverse(floor.Cables)
	return floor, rename
}

// cableAt is the index of the floor cable with an end at e.
func cableAt(t testing.TB, floor *fabric.Spec, e fabric.End) int {
	t.Helper()
	for i, c := range floor.Cables {
		if c.A == e || c.B == e {
			return i
		}
	}
	t.Fatalf("no floor cable at %s", e)
	return -1
}

// setEnd moves the end of floor cable i that is at from to to.
func setEnd(floor *fabric.Spec, i int, from, to fabric.End) {
	if floor.Cables[i].A == from {
		floor.Cables[i].A = to
	} else {
		floor.Cables[i].B = to
	}
}

func e(dev string, port int) fabric.End { return fabric.End{Device: dev, Port: port} }

// rowKey is a row as a test states it: action, the two ends (design names; unordered for a
// swap, a plug and an unplug), verdict.
func rowKey(r Row) string {
	a, b := r.A.End, r.B.End
	if r.Action != ActMove && b < a {
		a, b = b, a
	}
	return r.Action + " " + a + " " + b + " " + r.Verdict
}

func keys(rows []Row) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = rowKey(r)
	}
	sort.Strings(out)
	return out
}

func validateFit(t *testing.T, gen *topogen.Design, design, floor *fabric.Spec, in Input) *Result {
	t.Helper()
	m, err := FitMatch(gen, nil, floor, nil)
	if err != nil {
		t.Fatal(err)
	}
	in.Design, in.Floor, in.Match = design, floor, m
	r, err := Validate(in)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestFaults: each fault, alone, on a floor with its own names, GUIDs and order, gives exactly
// its row (stated here in the design's names from the fault itself), and the summary counts it.
func TestFaults(t *testing.T) {
	gen, design := smallDesign(t)
	nLinks := len(design.Cables)
	for _, c := range []struct {
		name   string
		fault  func(t *testing.T, floor *fabric.Spec, rn map[string]string)
		rows   []string
		counts Summary
	}{
		{"cabled right", func(*testing.T, *fabric.Spec, map[string]string) {}, nil,
			Summary{Expected: nLinks, OK: nLinks}},
		{"swap on one leaf", func(t *testing.T, f *fabric.Spec, rn map[string]string) {
			i, j := cableAt(t, f, e(rn["leaf03"], 1)), cableAt(t, f, e(rn["leaf03"], 2))
			setEnd(f, i, e(rn["leaf03"], 1), e(rn["leaf03"], 2))
			setEnd(f, j, e(rn["leaf03"], 2), e(rn["leaf03"], 1))
		}, []string{"swap leaf03:1 leaf03:2 swapped"}, Summary{Expected: nLinks, OK: nLinks - 2, Swapped: 2}},
		{"node cable on a free port of its own leaf", func(t *testing.T, f *fabric.Spec, rn map[string]string) {
			i := cableAt(t, f, e(rn["leaf05"], 3))
			setEnd(f, i, e(rn["leaf05"], 3), e(rn["leaf05"], 17))
		}, []string{"move leaf05:17 leaf05:3 miswired"}, Summary{Expected: nLinks, OK: nLinks - 1, Miswired: 1}},
		{"node cable on another rail's leaf", func(t *testing.T, f *fabric.Spec, rn map[string]string) {
			i := cableAt(t, f, e(rn["leaf02"], 4))
			setEnd(f, i, e(rn["leaf02"], 4), e(rn["leaf07"], 20))
		}, []string{"move leaf07:20 leaf02:4 miswired"}, Summary{Expected: nLinks, OK: nLinks - 1, Miswired: 1}},
		{"missing cable", func(t *testing.T, f *fabric.Spec, rn map[string]string) {
			i := cableAt(t, f, e(rn["leaf04"], 40))
			f.Cables = append(f.Cables[:i], f.Cables[i+1:]...)
		}, nil, Summary{Expected: nLinks, OK: nLinks - 1, Missing: 1}},
		{"unexpected cable", func(t *testing.T, f *fabric.Spec, rn map[string]string) {
			f.Cables = append(f.Cables, fabric.Cable{A: e(rn["leaf06"], 9), B: e(rn["leaf08"], 11)})
		}, []string{"unplug leaf06:9 leaf08:11 unexpected"}, Summary{Expected: nLinks, OK: nLinks, Unexpected: 1}},
	} {
		t.Run(c.name, func(t *testing.T) {
			floor, rn := ownNames(design)
			c.fault(t, floor, rn)
			r := validateFit(t, gen, design, floor, Input{})
			want := c.rows
			if c.name == "missing cable" {
				// the removed cable, in the design's names, from the design itself
				for _, dc := range design.Cables {
					if dc.A == e("leaf04", 40) || dc.B == e("leaf04", 40) {
						want = []string{rowKey(Row{Action: ActPlug, Verdict: Missing, A: Where{End: dc.A.String()}, B: Where{End: dc.B.String()}})}
					}
				}
			}
			sort.Strings(want)
			if got := keys(r.Rows); strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("rows:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			if c.name == "swap on one leaf" && (len(r.Rows) != 1 || !strings.Contains(r.Rows[0].Detail, "the two fibers in leaf03 cage 1's twin-port transceiver")) {
				// fiber (a DGX H100's twin-port cages rule out a copper splitter): each split has
				// its own fiber in the leaf's transceiver, exchanged there
				t.Errorf("the swap of two fibers in one cage does not say so: %+v", r.Rows)
			}
			if r.Summary != c.counts {
				t.Errorf("summary %+v, want %+v", r.Summary, c.counts)
			}
			if r.Summary.Passed() != (len(want) == 0) {
				t.Errorf("passed = %v with %d rows", r.Summary.Passed(), len(want))
			}
		})
	}
}

// TestAbsentNode: a node the floor lacks is one row naming it, not one per cable; its links
// are counted missing.
func TestAbsentNode(t *testing.T) {
	gen, design := smallDesign(t)
	floor, rn := ownNames(design)
	gone := rn["gpu002"]
	var cables []fabric.Cable
	for _, c := range floor.Cables {
		if !strings.HasPrefix(c.A.Device, gone+"/") && !strings.HasPrefix(c.B.Device, gone+"/") {
			cables = append(cables, c)
		}
	}
	var hcas []fabric.HCA
	for _, h := range floor.HCAs {
		if h.Node != gone {
			hcas = append(hcas, h)
		}
	}
	var nodes []fabric.Node
	for _, n := range floor.Nodes {
		if n.Name != gone {
			nodes = append(nodes, n)
		}
	}
	floor.Cables, floor.HCAs, floor.Nodes = cables, hcas, nodes
	r := validateFit(t, gen, design, floor, Input{})
	if len(r.Rows) != 1 || r.Rows[0].Action != ActPlug || r.Rows[0].Label != "gpu002" {
		t.Fatalf("rows %v, want one plug row for gpu002", keys(r.Rows))
	}
	perNode := 0
	for _, h := range design.HCAs {
		if h.Node == "gpu002" {
			perNode++
		}
	}
	if r.Summary.Missing != perNode || r.Summary.OK != len(design.Cables)-perNode {
		t.Errorf("summary %+v, want %d missing", r.Summary, perNode)
	}
	if !strings.Contains(r.Rows[0].Detail, fmt.Sprintf("(%d link(s)", perNode)) || r.Rows[0].A.Rack == "" {
		t.Errorf("row %+v", r.Rows[0])
	}
}

// TestCountersAndRates: a link cabled right whose counters say suspect is replace (noisy); one
// trained below the design's rate is reseat (degraded); counters ok and full rate pass.
func TestCountersAndRates(t *testing.T) {
	gen, design := smallDesign(t)
	floor, rn := ownNames(design)
	noisy := floor.Cables[cableAt(t, floor, e(rn["leaf01"], 2))]
	slow := floor.Cables[cableAt(t, floor, e(rn["leaf08"], 33))]
	good := floor.Cables[cableAt(t, floor, e(rn["leaf08"], 34))]
	var slowDesign string
	for _, c := range design.Cables {
		if c.A == e("leaf08", 33) || c.B == e("leaf08", 33) {
			slowDesign = c.Label()
		}
	}
	r := validateFit(t, gen, design, floor, Input{
		Counters:  map[string]Counter{noisy.Label(): {Verdict: "suspect", Reason: "SymbolErrorCounter 40 in 60 s"}, good.Label(): {Verdict: "ok"}},
		RatesGbps: map[string]float64{slow.Label(): 200, good.Label(): 400},
	})
	want := []string{"replace gpu002/mlx5_0:1 leaf01:2 noisy", "reseat " + strings.Replace(slowDesign, " <-> ", " ", 1) + " degraded"}
	sort.Strings(want)
	if got := keys(r.Rows); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("rows %q, want %q", got, want)
	}
	if r.Summary.Noisy != 1 || r.Summary.Degraded != 1 || r.Summary.Passed() {
		t.Errorf("summary %+v", r.Summary)
	}
}

// TestScope: with a work order, only its links are judged; a fault elsewhere is counted out
// of scope and gives no row; a fault on the work order's link gives its row.
func TestScope(t *testing.T) {
	gen, design := smallDesign(t)
	floor, rn := ownNames(design)
	// fault outside: missing leaf04:40 uplink; fault inside: gpu004/mlx5_1 on leaf07:20
	i := cableAt(t, floor, e(rn["leaf04"], 40))
	floor.Cables = append(floor.Cables[:i], floor.Cables[i+1:]...)
	i = cableAt(t, floor, e(rn["leaf02"], 4))
	setEnd(floor, i, e(rn["leaf02"], 4), e(rn["leaf07"], 20))
	wo := "action,from,label,a_device,a_hca,a_port,a_cage,a_split,a_port_name,a_rack,a_u,a_part,b_device,b_hca,b_port,b_cage,b_split,b_port_name,b_rack,b_u,b_part,kind,length_m,cable_sku,bundle,also_takes_down\n" +
		"add,,gpu004/mlx5_1:1,gpu004,gpu004/mlx5_1,1,2,2,2/2,rack02,10,,leaf02,,4,2,2,2/2,rack06,41,,fiber-mm,5,X,,\n" +
		"add,,gpu004/mlx5_0:1,gpu004,gpu004/mlx5_0,1,1,1,1/1,rack02,10,,leaf01,,4,2,2,2/2,rack06,42,,fiber-mm,5,X,,\n"
	sc, err := ParseScope(wo)
	if err != nil {
		t.Fatal(err)
	}
	r := validateFit(t, gen, design, floor, Input{Scope: sc})
	want := []string{"move leaf07:20 leaf02:4 miswired"}
	if got := keys(r.Rows); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("rows %q, want %q", got, want)
	}
	wantSum := Summary{Expected: 2, OK: 1, Miswired: 1, OutsideScope: len(design.Cables) - 2}
	if r.Summary != wantSum {
		t.Errorf("summary %+v, want %+v", r.Summary, wantSum)
	}
	if _, err := ParseScope("label,a\nx,y\n"); err == nil || !strings.Contains(err.Error(), `no "action" column`) {
		t.Errorf("a CSV that is not a work order: %v", err)
	}
}

// TestWalkOrder: the CSV's rows go by row of racks, rack, unit, cage and split of their first
// end, whatever order the faults were found in.
func TestWalkOrder(t *testing.T) {
	rows := []Row{
		{Label: "c", A: Where{Row: 2, Rack: "r2", U: 5, Cage: 3, Split: 2}},
		{Label: "b", A: Where{Row: 2, Rack: "r2", U: 5, Cage: 3, Split: 1}},
		{Label: "a", A: Where{Row: 1, Rack: "r9", U: 40, Cage: 30}},
		{Label: "d", A: Where{Row: 2, Rack: "r2", U: 6, Cage: 1}},
	}
	sortWalk(rows)
	var got []string
	for _, r := range rows {
		got = append(got, r.Label)
	}
	if strings.Join(got, "") != "abcd" {
		t.Errorf("walk %v", got)
	}
}
