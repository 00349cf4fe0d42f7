package bom

import (
	"strings"
	"testing"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
)

func rowsOf(t *testing.T, cables ...[2]fabric.End) []CableRow {
	t.Helper()
	s := &fabric.Spec{Switches: []fabric.Switch{{Name: "leaf01", Model: "QM9700"}, {Name: "spine01", Model: "QM9700"}, {Name: "spine02", Model: "QM9700"}}}
	for _, c := range cables {
		s.Cables = append(s.Cables, fabric.Cable{A: c[0], B: c[1]})
	}
	cat := catalog.Default()
	g, probs := fabric.Build(s, cat)
	if fabric.HasErrors(probs) {
		t.Fatal(probs)
	}
	return Cabling(g, cat, Options{})
}

func e(dev string, port int) fabric.End { return fabric.End{Device: dev, Port: port} }

// A change names the links it takes down with it: at every end it unplugs or plugs, the other
// split of that twin-port cage (QM9700: ports 2c-1 and 2c in cage c); the end a move keeps is
// not touched.
func TestChangesNameCageMates(t *testing.T) {
	prior := rowsOf(t,
		[2]fabric.End{e("leaf01", 39), e("spine01", 1)},
		[2]fabric.End{e("leaf01", 40), e("spine01", 2)},
		[2]fabric.End{e("leaf01", 41), e("spine02", 5)},
		[2]fabric.End{e("leaf01", 42), e("spine02", 7)},
	)
	next := rowsOf(t,
		[2]fabric.End{e("leaf01", 39), e("spine01", 1)},
		[2]fabric.End{e("leaf01", 40), e("spine02", 8)}, // moved from spine01:2 to spine02:8
		[2]fabric.End{e("leaf01", 42), e("spine02", 7)},
		[2]fabric.End{e("leaf01", 43), e("spine01", 3)}, // added; leaf01:41 removed
	)
	got := map[string]string{}
	for _, c := range CablingChanges(prior, next) {
		got[c.Action+" "+c.Row.Label] = strings.Join(c.Also, " ")
	}
	want := map[string]string{
		"remove leaf01:41": "leaf01:42",           // cage 21 of leaf01; spine02:5's cage 3 holds nothing else
		"move leaf01:40":   "spine01:1 spine02:7", // leaves spine01 cage 1, reaches spine02 cage 4; leaf01:40 stays
		"add leaf01:43":    "",                    // leaf01 cage 22 and spine01 cage 2 are empty otherwise
	}
	if len(got) != len(want) {
		t.Fatalf("changes %v", got)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: also takes down %q, want %q", k, got[k], v)
		}
	}
	text, err := ChangesCSV(CablingChanges(prior, next))
	if err != nil || !strings.HasSuffix(strings.SplitN(text, "\n", 2)[0], ",bundle,also_takes_down") || !strings.Contains(text, ",spine01:1 spine02:7\n") {
		t.Fatalf("CSV: %v\n%s", err, text)
	}
}
