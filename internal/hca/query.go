package hca

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Value is one value as mlxconfig prints it.
type Value struct {
	Raw    string // exactly as printed: "IB(1)", "16", "Array[0..7]", "N/A"; "" when the column is absent
	Text   string // the symbolic part of "IB(1)": "IB"; "" for a bare number
	Num    uint64 // the number, when HasNum
	HasNum bool
}

// printedRe matches the printed form of an enum, a bool or a number given in
// another base: NAME(number).
var printedRe = regexp.MustCompile(`^([A-Za-z0-9_]+)\((\d+)\)$`)

// NewValue reads a printed value.
func NewValue(raw string) Value {
	raw = strings.TrimSpace(raw)
	v := Value{Raw: raw}
	if m := printedRe.FindStringSubmatch(raw); m != nil {
		if n, err := strconv.ParseUint(m[2], 10, 64); err == nil {
			v.Text, v.Num, v.HasNum = m[1], n, true
			return v
		}
	}
	if n, err := strconv.ParseUint(raw, 10, 64); err == nil {
		v.Num, v.HasNum = n, true
		return v
	}
	if raw != "N/A" && !v.IsArray() {
		v.Text = raw
	}
	return v
}

// Known reports whether the tool printed a value (not "N/A", not absent).
func (v Value) Known() bool { return v.Raw != "" && v.Raw != "N/A" }

// IsArray reports whether the value is the Array[a..b] placeholder that
// mlxconfig prints for an array parameter.
func (v Value) IsArray() bool { return strings.HasPrefix(v.Raw, "Array[") }

// Same reports whether two printed values are the same value: by number when
// both carry one, else by name, case-insensitively.
func (v Value) Same(o Value) bool { return looseEqual(v, o) }

// Param is one row of a query: the values of one parameter.
type Param struct {
	Name     string
	Default  Value // only with -e
	Current  Value // only with -e
	Next     Value // Next Boot: what the device uses after a reboot or reset
	New      Value // only in the table set prints before applying
	Modified bool  // marked "*": Next differs from Default or Current
	ReadOnly bool  // marked "RO"
}

// Pending reports whether the parameter waits for a reboot or firmware reset:
// its Next Boot value differs from the Current one. Without the Current
// column (query without -e) nothing can be said and it reports false.
func (p Param) Pending() bool {
	return p.Current.Known() && p.Next.Known() && !p.Current.IsArray() && !p.Next.Same(p.Current)
}

// Config is what mlxconfig query (or the table of set) prints for one device.
type Config struct {
	Index       int // the N of "Device #N:"
	DeviceType  string
	Name        string // board part number
	Description string
	Device      string
	Columns     []string // the value columns in order: "Default", "Current", "Next Boot", "New"
	Params      map[string]Param
	Order       []string // parameter names in printed order
	Info        []string // -I- lines, without the prefix
	Warnings    []string // -W- lines and notes such as "Device Firmware does not support reading ..."
	Errors      []string // -E- lines, without the prefix
}

// HasColumn reports whether the table had the named column.
func (c *Config) HasColumn(name string) bool {
	for _, col := range c.Columns {
		if col == name {
			return true
		}
	}
	return false
}

// ParseQuery parses the output of "mlxconfig -d DEV [-e] query [NAME...]"
// for one device. Lines it does not understand are skipped, so excerpts with
// elisions and grep-filtered output parse too. -E- lines are collected in
// Errors; whether they make the command a failure is the caller's business
// (the exit code says).
//
// The layout is mlxconfig's own (mstflint, mlxconfig/mlxcfg_ui.cpp: a name
// column padded after a "*" or "RO" mark, then one "%-20s" value per column,
// enums printed "Text(num)"), and the older "*        %-36s" form too.
func ParseQuery(out string) (*Config, error) {
	all, err := ParseQueryAll(out)
	if err != nil {
		return nil, err
	}
	return all[0], nil
}

// ParseQueryAll parses query output that may cover several devices (query
// without -d prints every device).
func ParseQueryAll(out string) ([]*Config, error) {
	var (
		all []*Config
		cur *Config
		// tabled holds the devices whose table has begun: their columns are fixed, because
		// each row was stored under them. mlxconfig prints one "Configurations:" line per
		// device, before its rows; a row before any header gets the default column, and a
		// header after rows (junk, or two outputs run together) cannot re-label them.
		tabled = map[*Config]bool{}
	)
	get := func() *Config {
		if cur == nil {
			cur = &Config{Params: map[string]Param{}}
			all = append(all, cur)
		}
		return cur
	}
	for _, line := range strings.Split(strings.ReplaceAll(out, "\r\n", "\n"), "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case trimmed == "" || strings.Trim(trimmed, "-") == "":
			continue
		case strings.HasPrefix(trimmed, "Device #") && strings.HasSuffix(trimmed, ":"):
			n, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(trimmed, "Device #"), ":"))
			cur = &Config{Index: n, Params: map[string]Param{}}
			all = append(all, cur)
		case strings.HasPrefix(trimmed, "-E-"):
			c := get()
			c.Errors = append(c.Errors, strings.TrimSpace(strings.TrimPrefix(trimmed, "-E-")))
		case strings.HasPrefix(trimmed, "-I-"):
			c := get()
			c.Info = append(c.Info, strings.TrimSpace(strings.TrimPrefix(trimmed, "-I-")))
		case strings.HasPrefix(trimmed, "-W-"):
			c := get()
			c.Warnings = append(c.Warnings, strings.TrimSpace(strings.TrimPrefix(trimmed, "-W-")))
		case strings.HasPrefix(trimmed, "Device Firmware does not support"):
			c := get()
			c.Warnings = append(c.Warnings, trimmed)
		case strings.HasPrefix(trimmed, "Configurations:"):
			if c := get(); !tabled[c] {
				c.Columns = headerColumns(trimmed)
			}
		case isProse(trimmed):
			continue
		case headerField(get, line):
		default:
			var cols []string
			if cur != nil {
				cols = cur.Columns
			}
			if p, ok := paramLine(line, cols); ok {
				c := get()
				if len(c.Columns) == 0 {
					c.Columns = []string{"Next Boot"}
				}
				tabled[c] = true
				if _, dup := c.Params[p.Name]; !dup {
					c.Order = append(c.Order, p.Name)
				}
				c.Params[p.Name] = p
			}
		}
	}
	if len(all) == 0 {
		return nil, fmt.Errorf("hca: no mlxconfig query output to parse")
	}
	return all, nil
}

// headerColumns reads the value columns of a "Configurations:" line.
func headerColumns(line string) []string {
	rest := strings.TrimSpace(strings.TrimPrefix(line, "Configurations:"))
	var cols []string
	for rest != "" {
		switch {
		case strings.HasPrefix(rest, "Next Boot"):
			cols, rest = append(cols, "Next Boot"), rest[len("Next Boot"):]
		default:
			w, r, _ := strings.Cut(rest, " ")
			cols, rest = append(cols, w), r
		}
		rest = strings.TrimSpace(rest)
	}
	if len(cols) == 0 {
		cols = []string{"Next Boot"}
	}
	return cols
}

// headerField handles the "Key:  value" lines of the device header. The
// Config is fetched only for a real header line, so that junk before the
// first "Device #1:" (an echoed command) does not start a device.
func headerField(get func() *Config, line string) bool {
	key, val, ok := strings.Cut(line, ":")
	if !ok {
		return false
	}
	val = strings.TrimSpace(val)
	switch strings.TrimSpace(key) {
	case "Device type":
		get().DeviceType = val
	case "Name":
		get().Name = val
	case "Description":
		get().Description = val
	case "Device", "PCI device":
		get().Device = val
	default:
		return false
	}
	return true
}

// isProse recognizes the sentences mlxconfig prints around the table.
func isProse(line string) bool {
	for _, p := range []string{"Apply new Configuration?", "Applying...", "The '*' shows", "The 'RO' shows",
		"Reset configuration for", "Do you want to", "Failed to query"} {
		if strings.HasPrefix(line, p) {
			return true
		}
	}
	return false
}

// paramNameRe matches parameter names: upper case, with lower case allowed
// after an underscore (EXP_ROM_UEFI_x86_ENABLE), optionally indexed.
var paramNameRe = regexp.MustCompile(`^[A-Z][A-Z0-9]*(_[A-Za-z0-9]+)*(\[\d+\])?$`)

// paramLine reads one table row. The current layout is
// printf("%s%s     %-44s", mark, ro, name) then one "%-20s " per column:
// column 0 holds "*" or a blank, columns 1-2 "RO" or blanks, the name starts
// at column 8. The older layout is "*        %-36s" with "%-16s" values; both
// split on white space once the marks are taken off.
func paramLine(line string, cols []string) (Param, bool) {
	if len(line) < 2 || (line[0] != ' ' && line[0] != '*') {
		return Param{}, false
	}
	p := Param{Modified: line[0] == '*'}
	rest := line[1:]
	if strings.HasPrefix(rest, "RO") {
		p.ReadOnly, rest = true, rest[2:]
	}
	f := strings.Fields(rest)
	if len(f) < 2 || !paramNameRe.MatchString(f[0]) {
		return Param{}, false
	}
	p.Name = f[0]
	vals := f[1:]
	if len(cols) == 0 {
		cols = []string{"Next Boot"}
	}
	for i, col := range cols {
		if i >= len(vals) {
			break
		}
		v := NewValue(vals[i])
		switch col {
		case "Default":
			p.Default = v
		case "Current":
			p.Current = v
		case "Next Boot":
			p.Next = v
		case "New":
			p.New = v
		}
	}
	return p, true
}
