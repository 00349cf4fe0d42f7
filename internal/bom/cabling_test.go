package bom

import (
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/topogen"
)

func superPODCabling(t *testing.T, sus, planned int) (*topogen.Design, []CableRow) {
	t.Helper()
	cat := catalog.Default()
	d, err := topogen.Generate(topogen.Params{Kind: topogen.KindRailOptimized, ScalableUnits: sus, PlannedScalableUnits: planned,
		ReservedNodeSlots: 1, CableKind: catalog.KindFiberMM}, cat)
	if err != nil {
		t.Fatal(err)
	}
	g, probs := fabric.Build(d.Spec(), cat)
	if fabric.HasErrors(probs) {
		t.Fatalf("%v", probs)
	}
	return d, Cabling(g, cat, Options{External: ExternalLinks(d)})
}

// RA-11333-001, 4 SU: 1,016 node-leaf + 1,024 leaf-spine cables (Table 8) and the 4 UFM links
// (Table 4: compute+UFM = GPUs + 4) make 2,044 rows. Every row names cage/split and a
// transceiver at both ends: the switch's twin-port module (980-9I510-00NS00 in Table 8), the
// DGX's flat-top twin-port module (980-9I51A-00NS00), the UFM's single-port one (980-9I51S-00NS00).
func TestSuperPODCablingCSV(t *testing.T) {
	d, rows := superPODCabling(t, 4, 0)
	if len(rows) != 2044 {
		t.Fatalf("%d rows, want 2044", len(rows))
	}
	text, err := CablingCSV(rows)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(strings.NewReader(text)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2045 {
		t.Fatalf("%d CSV records, want header + 2044", len(recs))
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	parts := map[string]int{}
	for _, rec := range recs[1:] {
		for _, s := range []string{"a", "b"} {
			dev, cage, split, name, part := rec[col[s+"_device"]], rec[col[s+"_cage"]], rec[col[s+"_split"]], rec[col[s+"_port_name"]], rec[col[s+"_part"]]
			if part == "" || cage == "" || cage == "0" {
				t.Fatalf("row %s: %s end has cage %q part %q", rec[0], s, cage, part)
			}
			if strings.HasPrefix(dev, "ufm") {
				if split != "" || name != cage {
					t.Errorf("row %s: appliance end %s/%s", rec[0], cage, split)
				}
			} else if split != "1" && split != "2" || name != cage+"/"+split {
				t.Errorf("row %s: %s end cage %s split %s name %s", rec[0], s, cage, split, name)
			}
			parts[part]++
		}
	}
	// Per end: 1016 DGX ends; 1016 + 4 leaf ends from below, 1024 leaf + 1024 spine ends above.
	want := map[string]int{"980-9I51A-00NS00": 1016, "980-9I510-00NS00": 1016 + 4 + 2048, "980-9I51S-00NS00": 4}
	if fmt.Sprint(parts) != fmt.Sprint(want) {
		t.Errorf("parts per end %v, want %v", parts, want)
	}
	// Cage arithmetic on known rows: leaf01 port 33 (first uplink) is cage 17 split 1; gpu001's
	// mlx5_1 is split 2 of DGX cage 1; a spine port 64 is cage 32 split 2.
	found := 0
	for _, r := range rows {
		switch {
		case r.Label == "leaf01:33":
			found++
			if r.A.Cage != 17 || r.A.Split != 1 {
				t.Errorf("leaf01:33 at %s", r.A.PortName())
			}
		case r.A.HCA == "gpu001/mlx5_1":
			found++
			if r.A.Device != "gpu001" || r.A.Cage != 1 || r.A.Split != 2 || r.B.Device != "leaf02" {
				t.Errorf("gpu001/mlx5_1: %+v -> %s %s", r.A, r.B.Device, r.B.PortName())
			}
		case r.B.Port == 64 && r.B.Device == "spine16":
			found++
			if r.B.Cage != 32 || r.B.Split != 2 {
				t.Errorf("spine16:64 at %s", r.B.PortName())
			}
		}
	}
	if found < 3 {
		t.Errorf("found %d of the 3 rows checked", found)
	}
	_ = d
}

// Growing 2 -> 4 SU inside the plan (planned_scalable_units = 4) only adds: the change list is
// exactly the cables of the 4-SU design that the 2-SU one lacks, all "add".
func TestExpansionChangesAreAdds(t *testing.T) {
	d2, prior := superPODCabling(t, 2, 4)
	d4, next := superPODCabling(t, 4, 4)
	var want []string
	for k := range d4.Cables {
		if _, ok := d2.Cables[k]; !ok {
			want = append(want, k)
		}
	}
	changes := CablingChanges(prior, next)
	var got []string
	for _, c := range changes {
		if c.Action != ChangeAdd {
			t.Fatalf("%s %s (from %s) in an expansion within the plan", c.Action, c.Row.Label, c.From)
		}
		got = append(got, c.Row.Label)
	}
	sort.Strings(want)
	sort.Strings(got)
	if len(want) != 1024 || strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("%d added cables, want the %d the 4-SU design adds", len(got), len(want))
	}
	text, err := ChangesCSV(changes)
	if err != nil || strings.Count(text, "\nadd,") != len(want) {
		t.Errorf("change CSV: %v, %d add rows", err, strings.Count(text, "\nadd,"))
	}
}

// Growing past the plan (2 SU built for 2, then 4) re-cables leaf uplinks to new spines: the
// change list has moves with the port each cable leaves, and what it adds.
func TestRewireChangesHaveMoves(t *testing.T) {
	_, prior := superPODCabling(t, 2, 2)
	_, next := superPODCabling(t, 4, 4)
	counts := map[string]int{}
	for _, c := range CablingChanges(prior, next) {
		counts[c.Action]++
		if c.Action == ChangeMove && !strings.Contains(c.From, ":") {
			t.Errorf("move %s without a from end: %q", c.Row.Label, c.From)
		}
	}
	if counts[ChangeMove] == 0 || counts[ChangeAdd] == 0 {
		t.Errorf("changes %v, want moves and adds", counts)
	}
	// Every prior cable is unchanged, moved or removed; every planned one unchanged, moved or added.
	if got := len(next) - counts[ChangeAdd] - counts[ChangeMove]; got != len(prior)-counts[ChangeRemove]-counts[ChangeMove] {
		t.Errorf("unchanged counts disagree: %v, prior %d next %d", counts, len(prior), len(next))
	}
	t.Logf("2 SU (planned 2) -> 4 SU: %v", counts)
}

// Rows agree with the BOM's plan: same order, labels, kinds, lengths and SKUs.
func TestCablingMatchesPlan(t *testing.T) {
	cat := catalog.Default()
	d, err := topogen.Generate(topogen.Params{Kind: topogen.KindFatTree, Nodes: 16}, cat)
	if err != nil {
		t.Fatal(err)
	}
	g, _ := fabric.Build(d.Spec(), cat)
	plan := Build(g, cat, Options{}).Plan
	rows := Cabling(g, cat, Options{})
	if len(rows) != len(plan) {
		t.Fatalf("%d rows, plan %d", len(rows), len(plan))
	}
	copperEnds := 0
	for i, r := range rows {
		p := plan[i]
		if r.Label != p.Label || r.Kind != p.Kind || r.LengthM != p.LengthM || r.CableSKU != p.SKU || r.A.Endpoint() != fmt.Sprintf("%s:%d", p.A.Device, p.A.Port) {
			t.Errorf("row %d: %+v vs plan %+v", i, r, p)
		}
		if !optical(r.Kind) && r.A.Part == r.CableSKU && r.B.Part == r.CableSKU {
			copperEnds++
		}
	}
	t.Logf("%d of %d rows copper (cable part at both ends)", copperEnds, len(rows))
}

// A switch whose ports do not divide evenly into its cages: 5 ports in 3 twin-port cages (the
// catalog's default, half the ports rounded up) are 1/1, 1/2, 2/1, 2/2 and 3/1 on the box, written
// out here rather than computed.
func TestCablingUnevenCages(t *testing.T) {
	f := filepath.Join(t.TempDir(), "odd.hcl")
	if err := os.WriteFile(f, []byte(`
switch_model "ODD-5" {
  ports          = 5
  port_rate_gbps = 400
}
`), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := catalog.Load(f)
	if err != nil {
		t.Fatal(err)
	}
	spec := &fabric.Spec{Switches: []fabric.Switch{{Name: "leaf", Model: "QM9700"}, {Name: "odd", Model: "ODD-5"}}}
	for p := 1; p <= 5; p++ {
		spec.Cables = append(spec.Cables, cable("leaf", 32+p, "odd", p, catalog.KindFiberMM, 10))
	}
	g, probs := fabric.Build(spec, c)
	if fabric.HasErrors(probs) {
		t.Fatal(probs)
	}
	got := map[int]string{}
	for _, r := range Cabling(g, c, Options{}) {
		if r.B.Device != "odd" {
			t.Fatalf("row %s: B end %s, want the ODD-5", r.Label, r.B.Device)
		}
		got[r.B.Port] = r.B.PortName()
	}
	want := map[int]string{1: "1/1", 2: "1/2", 3: "2/1", 4: "2/2", 5: "3/1"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("ODD-5 port names %v, want %v", got, want)
	}
}
