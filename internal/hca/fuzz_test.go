package hca

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// addSamples seeds a fuzz target with the real tool outputs in testdata/samples.
func addSamples(f *testing.F, names ...string) {
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join("testdata", "samples", n))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
}

// renderQuery prints configs in mlxconfig's current layout: "Device #N:", the header fields,
// "Configurations:" with the value columns, then one row per parameter,
// printf("%s%s     %-44s", mark, ro, name) and "%-20s " per value.
func renderQuery(cfgs []*Config) string {
	var b strings.Builder
	for _, c := range cfgs {
		fmt.Fprintf(&b, "\nDevice #%d:\n----------\n\n", c.Index)
		fmt.Fprintf(&b, "Device type:        %s\nName:               %s\nDescription:        %s\nDevice:             %s\n\n", c.DeviceType, c.Name, c.Description, c.Device)
		for _, l := range c.Info {
			fmt.Fprintf(&b, "-I- %s\n", l)
		}
		for _, l := range c.Warnings {
			fmt.Fprintf(&b, "-W- %s\n", l)
		}
		for _, l := range c.Errors {
			fmt.Fprintf(&b, "-E- %s\n", l)
		}
		if len(c.Columns) > 0 {
			fmt.Fprintf(&b, "Configurations:                                      %s\n", strings.Join(c.Columns, "   "))
		}
		cols := c.Columns
		if len(cols) == 0 {
			cols = []string{"Next Boot"}
		}
		for _, name := range c.Order {
			p := c.Params[name]
			mark, ro := " ", "  "
			if p.Modified {
				mark = "*"
			}
			if p.ReadOnly {
				ro = "RO"
			}
			fmt.Fprintf(&b, "%s%s     %-44s", mark, ro, name)
			if len(name) >= 44 {
				b.WriteString(" ") // mlxconfig would run a name this long into its value
			}
			for _, col := range cols {
				var v Value
				switch col {
				case "Default":
					v = p.Default
				case "Current":
					v = p.Current
				case "Next Boot":
					v = p.Next
				case "New":
					v = p.New
				default:
					v = Value{Raw: "?"} // a column the parser does not keep: any placeholder
				}
				if v.Raw == "" {
					break // values fill the columns from the left: the rest are absent too
				}
				fmt.Fprintf(&b, "%-20s ", v.Raw)
			}
			b.WriteString("\n")
		}
	}
	return b.String()
}

// FuzzParseQueryAll: any mlxconfig output parses without panicking into devices whose rows are
// consistent (Order lists each parameter of Params once, names are parameter names, values are
// single words that read back the same through NewValue), and printing what was read in
// mlxconfig's layout and parsing that again gives the same devices.
func FuzzParseQueryAll(f *testing.F) {
	addSamples(f, "sample1-query.txt", "sample1-filtered.txt", "sample2-query.txt", "sample3-set.txt", "sample-e-query.txt")
	f.Add("*RO  X  1\n-E- Failed to open the device\nConfigurations: Default Current Next Boot\n  A_b 1 2\n")
	f.Fuzz(func(t *testing.T, out string) {
		cfgs, err := ParseQueryAll(out)
		if err != nil {
			return
		}
		for _, c := range cfgs {
			if len(c.Order) != len(c.Params) {
				t.Fatalf("Order %q and Params %d differ", c.Order, len(c.Params))
			}
			for _, name := range c.Order {
				p, ok := c.Params[name]
				if !ok || p.Name != name || !paramNameRe.MatchString(name) {
					t.Fatalf("row %q: %+v", name, p)
				}
				for _, v := range []Value{p.Default, p.Current, p.Next, p.New} {
					if strings.ContainsAny(v.Raw, " \t\n") || !reflect.DeepEqual(NewValue(v.Raw), v) {
						t.Fatalf("value %+v of %s does not read back", v, name)
					}
				}
				_ = p.Pending()
			}
		}
		text := renderQuery(cfgs)
		again, err := ParseQueryAll(text)
		if err != nil {
			t.Fatalf("re-rendered output refused: %v\n%s", err, text)
		}
		if len(again) != len(cfgs) {
			t.Fatalf("%d devices, then %d:\n%s", len(cfgs), len(again), text)
		}
		for i := range cfgs {
			a, b := *cfgs[i], *again[i]
			if !reflect.DeepEqual(a.Params, b.Params) || !reflect.DeepEqual(a.Order, b.Order) ||
				a.Index != b.Index || a.DeviceType != b.DeviceType || a.Name != b.Name || a.Description != b.Description || a.Device != b.Device ||
				len(a.Errors) != len(b.Errors) || len(a.Info) != len(b.Info) || len(a.Warnings) != len(b.Warnings) {
				t.Fatalf("round trip of %q changed device %d:\n%s\n%+v\nthen\n%+v", out, i, text, a, b)
			}
		}
	})
}

// FuzzParseFlintQuery: any flint output parses without panicking; what parses has its FW
// Version, trimmed keys, and the named fields taken from Fields; printing Fields back in flint's
// layout (key padded to column 23, continuation lines indented) parses to the same Fields.
func FuzzParseFlintQuery(f *testing.F) {
	addSamples(f, "flint-query.txt")
	f.Add("FW Version:            28.39.1002\nRom Info:              type=UEFI version=14.32.17\n                       type=PXE version=3.7.201\nBase GUID:             a088c20300c7d6f2        4\n")
	f.Add("-E- Cannot open /dev/mst/mt4129_pciconf0\n")
	f.Add(": x\nFW Version: 1\n \tcontinued\nPSID:\n")
	f.Fuzz(func(t *testing.T, out string) {
		fi, err := ParseFlintQuery(out)
		if err != nil {
			return
		}
		if fi.FWVersion == "" || fi.FWVersion != fi.Fields["FW Version"] {
			t.Fatalf("FW Version %q, Fields %q", fi.FWVersion, fi.Fields["FW Version"])
		}
		if fi.PSID != fi.Fields["PSID"] || fi.Description != fi.Fields["Description"] {
			t.Fatalf("named fields differ from Fields: %+v", fi)
		}
		if f := strings.Fields(fi.Fields["Base GUID"]); len(f) > 0 && fi.BaseGUID != f[0] {
			t.Fatalf("Base GUID %q from %q", fi.BaseGUID, fi.Fields["Base GUID"])
		}
		keys := make([]string, 0, len(fi.Fields))
		for k := range fi.Fields {
			if k != strings.TrimSpace(k) || strings.Contains(k, ":") {
				t.Fatalf("key %q is not trimmed or holds ':'", k)
			}
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var b strings.Builder
		for _, k := range keys {
			lines := strings.Split(fi.Fields[k], "\n")
			fmt.Fprintf(&b, "%-23s%s\n", k+":", lines[0])
			for _, l := range lines[1:] {
				fmt.Fprintf(&b, "%23s%s\n", "", l)
			}
		}
		again, err := ParseFlintQuery(b.String())
		if err != nil || !reflect.DeepEqual(again.Fields, fi.Fields) {
			t.Fatalf("round trip of %q:\n%s\n%q (%v)\nwant %q", out, b.String(), again, err, fi.Fields)
		}
	})
}
