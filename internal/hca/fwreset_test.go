package hca

import (
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// TestParseResetQuerySample reads the real query output (samples/mlxfwreset-query.txt).
func TestParseResetQuerySample(t *testing.T) {
	r, err := ParseResetQuery(sample(t, "mlxfwreset-query.txt"))
	if err != nil {
		t.Fatal(err)
	}
	want := []ResetLevel{
		{0, `Driver, PCI link, network link will remain up ("live-Patch")`, true, true},
		{1, `Only ARM side will not remain up ("Immediate reset").`, false, false},
		{3, "Driver restart and PCI reset", true, false},
		{4, "Warm Reboot", true, false},
	}
	if !reflect.DeepEqual(r.Levels, want) {
		t.Fatalf("levels\n%+v\nwant\n%+v", r.Levels, want)
	}
	if d, ok := r.Default(); !ok || d.Level != 0 || d.Rebooting() {
		t.Fatalf("default %+v %v", d, ok)
	}
	for _, bad := range []string{"", "Reset-levels:\n", "Reset-levels:\n3 Driver restart -Supported\n"} {
		if _, err := ParseResetQuery(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

// strip drops the trailing blanks of every line and the trailing newlines: what the published
// copies of tool output lose.
func strip(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n")
}

// TestDoubleResetQuery: for the level set of the real sample, the double prints the sample (up to
// the blanks the published copy lost); for every subset of the levels it prints what QueryReset
// reads back as that subset, with the default the tool's rule gives (the lowest supported of 0,
// 3, 4, computed here on its own), and a reset without -l takes that default; a set with no such
// level fails as the tool does.
func TestDoubleResetQuery(t *testing.T) {
	e := newApplyEnv(t)
	st := gpuNodeState()
	st.Devices[0].ResetLevels = []int{0, 3, 4}
	writeState(t, e.state, st)
	r := runDouble(t, e.state, "", "mlxfwreset", "-d", dev, "query")
	if got, want := strip(r.stdout), strip(sample(t, "mlxfwreset-query.txt")); r.exit != 0 || got != want {
		t.Fatalf("query differs from the real output:\n%s", diff(got, want))
	}
	if !strings.HasSuffix(r.stdout, "(default)\n\n") {
		t.Errorf("the output does not end with print's blank line: %q", r.stdout[len(r.stdout)-20:])
	}
	all := []int{0, 1, 3, 4}
	for mask := 0; mask < 1<<len(all); mask++ {
		var set []int
		for i, l := range all {
			if mask&(1<<i) != 0 {
				set = append(set, l)
			}
		}
		st := gpuNodeState()
		st.Devices[0].ResetLevels = append([]int{}, set...)
		writeState(t, e.state, st)
		want := -1
		for _, l := range []int{0, 3, 4} {
			if want < 0 && contains(set, l) {
				want = l
			}
		}
		got, err := QueryReset(e.ctx, e.r, ToolMlxconfig, dev)
		if want < 0 {
			if !NoSupportedLevel(err) {
				t.Errorf("levels %v: %v", set, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("levels %v: %v", set, err)
		}
		if d, ok := got.Default(); !ok || d.Level != want || !reflect.DeepEqual(got.SupportedLevels(), nonNil(set)) {
			t.Errorf("levels %v: read %+v", set, got.Levels)
		}
		r := runDouble(t, e.state, "", "mlxfwreset", "-d", dev, "-y", "reset")
		if r.exit != 0 || !strings.Contains(r.stdout, "is:\n\n"+strconv.Itoa(want)+": ") {
			t.Errorf("levels %v: reset without -l: %d %q", set, r.exit, r.stdout)
		}
	}
}

// TestDoubleRefusesUnsupportedLevel: a level the card does not support now fails before the
// prompt, with the tool's message, and loads nothing.
func TestDoubleRefusesUnsupportedLevel(t *testing.T) {
	e := newApplyEnv(t)
	st := gpuNodeState()
	st.Devices[0].ResetLevels = []int{4}
	st.Devices[0].Params[0].Next, st.Devices[0].Params[0].Current = "IB(1)", "ETH(2)"
	writeState(t, e.state, st)
	err := Reset(e.ctx, e.r, ToolMlxconfig, dev, 3)
	te, ok := err.(*ToolError)
	if !ok || te.Exit != 1 || te.Message != "Reset-level '3' is not supported in the current state of this device." {
		t.Fatalf("got %#v", err)
	}
	if p := e.param(t, "LINK_TYPE_P1"); p.Current != "ETH(2)" {
		t.Fatalf("a refused reset loaded the configuration: %+v", p)
	}
	if _, err := QueryReset(e.ctx, e.r, ToolMlxconfig, filepath.Join("/dev/mst", "none")); err == nil || !strings.Contains(err.Error(), "Cannot open Device") {
		t.Errorf("query of a missing device: %v", err)
	}
}

func contains(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

func nonNil(s []int) []int {
	if s == nil {
		return []int{}
	}
	return s
}
