package provider

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAccBrownfieldExample plans examples/clusters/brownfield as a user would (the real
// terraform, the example copied as it is, its committed floor): at 2 SU the design fits the
// floor with 1,021 cables kept, the 2 swapped rail cables moved and the dead uplink added,
// nothing unmatched; grown to 4 SU (re-planned for 4) it keeps what any fit could keep, 766:
// each of the 16 leaves keeps 2 of its 4 links to each of the 8 old spines (256) and all 510
// node cables that are not swapped. The fabric's plan summary says it per tier.
func TestAccBrownfieldExample(t *testing.T) {
	requireAcc(t)
	tf := newTerraformCLI(t)
	dir := t.TempDir()
	src := filepath.Join(moduleRoot(), "examples", "clusters", "brownfield")
	copyDir(t, src, dir)
	if err := os.Mkdir(filepath.Join(dir, "floor"), 0o755); err != nil {
		t.Fatal(err)
	}
	copyDir(t, filepath.Join(src, "floor"), filepath.Join(dir, "floor"))

	type fit struct {
		DevicesMatched   int      `json:"devices_matched"`
		DevicesUnmatched []string `json:"devices_unmatched"`
		LinksKept        int      `json:"links_kept"`
		LinksMoved       int      `json:"links_moved"`
		LinksAdded       int      `json:"links_added"`
		LinksRemoved     int      `json:"links_removed"`
		LinksKeptMax     int      `json:"links_kept_max"`
	}
	planAt := func(sus string) (fit, string, string) {
		out := tf.run(dir, "plan", "-input=false", "-no-color", "-out=tfplan", "-var", "scalable_units="+sus)
		var p struct {
			PlannedValues struct {
				Outputs map[string]struct {
					Value json.RawMessage `json:"value"`
				} `json:"outputs"`
			} `json:"planned_values"`
		}
		if err := json.Unmarshal([]byte(tf.run(dir, "show", "-json", "tfplan")), &p); err != nil {
			t.Fatal(err)
		}
		var f fit
		if err := json.Unmarshal(p.PlannedValues.Outputs["fit"].Value, &f); err != nil {
			t.Fatalf("output fit: %v", err)
		}
		var wo string
		_ = json.Unmarshal(p.PlannedValues.Outputs["work_order_csv"].Value, &wo)
		return f, out, wo
	}

	f, out, wo := planAt("2")
	if f.LinksKept != 1021 || f.LinksMoved != 2 || f.LinksAdded != 1 || f.LinksRemoved != 0 || f.LinksKeptMax != 1021 ||
		len(f.DevicesUnmatched) != 0 || f.DevicesMatched != 600 {
		t.Errorf("2 SU: %+v", f)
	}
	for _, want := range []string{"Floor node-leaf: 510 kept, 2 moved, 0 added, 0 removed", "Floor leaf-spine: 511 kept, 0 moved, 1 added, 0 removed"} {
		if !strings.Contains(out, want) {
			t.Errorf("2 SU: the plan lacks %q", want)
		}
	}
	// The design hands the floor on as a record: three lines, not the floor's 1,623 items again.
	if want := `summary = "24 switches, 64 nodes, 512 HCAs, 1,023 cables"`; !strings.Contains(out, want) {
		t.Errorf("2 SU: the plan lacks %q", want)
	}
	if n := strings.Count(out, "\n"); n > 300 {
		t.Errorf("2 SU: the plan is %d lines long; the floor should not be listed in it", n)
	}
	if n := strings.Count(strings.TrimSpace(wo), "\n"); n != 3 {
		t.Errorf("2 SU: the work order has %d rows, want 3:\n%s", n, wo)
	}

	f, out, _ = planAt("4")
	if f.LinksKept != 766 || f.LinksKeptMax != 766 || f.LinksKept+f.LinksMoved+f.LinksRemoved != 1023 || f.LinksKept+f.LinksMoved+f.LinksAdded != 2048 {
		t.Errorf("4 SU: %+v", f)
	}
	if !strings.Contains(out, "Floor leaf-spine: 256 kept, 255 moved, 513 added, 0 removed") {
		t.Errorf("4 SU: the plan lacks the leaf-spine floor line:\n%s", out[max(0, strings.Index(out, "Fabric plan summary")):])
	}
}
