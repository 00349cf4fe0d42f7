package fabric

import (
	"strings"
	"testing"
)

// TestCableLabel: labels written by hand (as gpucluster_cable documents them) read back to their
// ends, the spaces around "<->" optional; and every label CableLabel writes reads back.
func TestCableLabel(t *testing.T) {
	for in, want := range map[string][2]End{
		"leaf01:33 <-> gpu001/mlx5_0:1": {{"leaf01", 33}, {"gpu001/mlx5_0", 1}},
		"leaf01:33<->spine01:1":         {{"leaf01", 33}, {"spine01", 1}},
		"  a.b_c-d:64   <->  e:2 ":      {{"a.b_c-d", 64}, {"e", 2}},
	} {
		a, b, err := ParseCableLabel(in)
		if err != nil || a != want[0] || b != want[1] {
			t.Errorf("ParseCableLabel(%q) = %v, %v, %v; want %v", in, a, b, err, want)
		}
	}
	for in, says := range map[string]string{
		"leaf01:1 - leaf01:2":       `"leaf01:1 - leaf01:2" is not a cable label: no "<->" between the ends`,
		"leaf01 <-> spine01:1":      `cable end "leaf01" has no ":PORT"`,
		"leaf01:0 <-> spine01:1":    `cable end "leaf01:0": port "0" is not a number from 1`,
		"leaf01:x <-> spine01:1":    `port "x" is not a number from 1`,
		"leaf 01:1 <-> spine01:1":   `"leaf 01" is neither a switch name nor an HCA name`,
		"a/b/c:1 <-> spine01:1":     `"a/b/c" is neither a switch name nor an HCA name`,
		"leaf01:1 <-> spine01:1:2x": `port "2x" is not a number from 1`,
	} {
		if _, _, err := ParseCableLabel(in); err == nil || !strings.Contains(err.Error(), says) {
			t.Errorf("ParseCableLabel(%q) = %v; want an error saying %q", in, err, says)
		}
	}
	for _, a := range []End{{"leaf01", 1}, {"gpu001/mlx5_0", 1}, {"x", 128}} {
		for _, b := range []End{{"spine01", 64}, {"gpu999/mlx5_7", 2}} {
			l := CableLabel(a, b)
			if l != a.Device+":"+itoa(a.Port)+" <-> "+b.Device+":"+itoa(b.Port) {
				t.Errorf("CableLabel(%v, %v) = %q", a, b, l)
			}
			if ga, gb, err := ParseCableLabel(l); err != nil || ga != a || gb != b {
				t.Errorf("%q reads back as %v, %v, %v", l, ga, gb, err)
			}
			c := Cable{A: a, B: b}
			if c.Label() != l {
				t.Errorf("Cable.Label() = %q, CableLabel %q", c.Label(), l)
			}
		}
	}
}

func itoa(n int) string {
	s := ""
	for ; n > 0; n /= 10 {
		s = string(rune('0'+n%10)) + s
	}
	return s
}

// TestSplitLabel: the lookup form of a label is the same whatever spaces surround "<->", and an
// end label is no full label.
func TestSplitLabel(t *testing.T) {
	for _, in := range []string{"leaf01:40 <-> spine01:8", "leaf01:40<->spine01:8", " leaf01:40   <->spine01:8 "} {
		a, b, full := SplitLabel(in)
		if !full || JoinEnds(a, b) != "leaf01:40 <-> spine01:8" {
			t.Errorf("SplitLabel(%q) = %q, %q, %v", in, a, b, full)
		}
	}
	if _, _, full := SplitLabel("leaf01:40"); full {
		t.Error("an end label read as a full label")
	}
}
