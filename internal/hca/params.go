package hca

import (
	_ "embed"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/agext/levenshtein"
)

//go:generate sh internal/gen/genparams.sh params.txt

// params.txt is generated from mstflint's mlxconfig_host.db; params_extra.txt
// is the short hand-kept list of parameters newer MFT releases show that the
// generated extract lacks. Both are embedded so that the provider needs no
// sqlite and no mstflint where it runs.
var (
	//go:embed params.txt
	paramsTxt string
	//go:embed params_extra.txt
	paramsExtraTxt string
)

// ParamType is the database type of a parameter.
type ParamType string

// Parameter types, spelled as in the database.
const (
	TypeBool     ParamType = "BOOL"
	TypeEnum     ParamType = "ENUM"
	TypeUnsigned ParamType = "UNSIGNED"
	TypeInteger  ParamType = "INTEGER"
	TypeBinary   ParamType = "BINARY"
)

// Scope says how a parameter is instantiated on a device, which decides its
// mlxconfig name.
type Scope string

// Scopes.
const (
	ScopeGlobal Scope = "global" // one instance: NAME
	ScopeHost   Scope = "host"   // per host/function TLV, still shown as NAME
	ScopePort   Scope = "port"   // per physical port: NAME_P1, NAME_P2
	ScopeModule Scope = "module" // per module: NAME_M0, NAME_M1
)

// MaxPorts is the highest port suffix accepted (_P1.._P2): a ConnectX-7 has
// one or two ports. Whether a given card has port 2 only the card knows.
const MaxPorts = 2

// MaxModule is the highest module suffix (_M0.._M1), as mlxconfig's
// TLVConf::getMaxModule.
const MaxModule = 1

// EnumValue is one symbolic value of an ENUM or BOOL parameter.
type EnumValue struct {
	Name  string
	Value uint64
}

// Def is one parameter definition of the database, before its per-port or
// per-module expansion.
type Def struct {
	Base     string // mlxconfig name without suffix, e.g. LINK_TYPE
	TLV      string // TLV (configuration) that holds it, "-" for hand-kept ones
	Scope    Scope
	Type     ParamType
	Bits     int // width of one element in bits
	ArrayLen int // number of elements; 0 for a scalar
	// Min and Max are literal bounds from the database, nil when there is
	// none. DeviceBound is set when a bound is an expression over device
	// capabilities (NUM_OF_VFS <= max_vfs_per_pf): only the device checks it.
	Min, Max    *uint64
	DeviceBound bool
	Enum        []EnumValue // ENUM and BOOL only, in database order
}

// Spec is a parameter as named on a device: a definition plus the port,
// module or array element that the name selects.
type Spec struct {
	*Def
	Name   string // the full name, e.g. LINK_TYPE_P1 or HOST_CHAINING_DESCRIPTORS[3]
	Port   int    // 1..MaxPorts for port scope, else 0
	Module int    // 0..MaxModule for module scope, else -1
	Index  int    // array element selected by NAME[i], else -1
}

// IsArray reports whether the name selects a whole array, which mlxconfig
// shows as Array[0..N-1] and sets element by element.
func (s Spec) IsArray() bool { return s.ArrayLen > 0 && s.Index < 0 }

type paramDB struct {
	defs  map[string]*Def // by Base
	names []string        // every full scalar name, sorted (for suggestions and Names)
}

var (
	dbOnce sync.Once
	db     *paramDB
	dbErr  error
)

func loadDB() (*paramDB, error) {
	dbOnce.Do(func() {
		d := &paramDB{defs: map[string]*Def{}}
		for _, src := range []struct{ name, text string }{{"params.txt", paramsTxt}, {"params_extra.txt", paramsExtraTxt}} {
			if err := d.parse(src.name, src.text); err != nil {
				dbErr = err
				return
			}
		}
		for _, def := range d.defs {
			d.names = append(d.names, expand(def)...)
		}
		sort.Strings(d.names)
		db = d
	})
	return db, dbErr
}

// mustDB is for the accessors: the embedded files are tested, so a parse
// failure is a build defect, not a run-time condition.
func mustDB() *paramDB {
	d, err := loadDB()
	if err != nil {
		panic(err)
	}
	return d
}

func (d *paramDB) parse(file, text string) error {
	for i, line := range strings.Split(text, "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 9 {
			return fmt.Errorf("hca: %s:%d: want 9 tab-separated fields, got %d", file, i+1, len(f))
		}
		def := &Def{Base: f[0], TLV: f[1], Scope: Scope(f[2]), Type: ParamType(f[3])}
		bits, err := sizeBits(f[4])
		if err != nil {
			return fmt.Errorf("hca: %s:%d: %v", file, i+1, err)
		}
		if def.ArrayLen, err = strconv.Atoi(f[5]); err != nil {
			return fmt.Errorf("hca: %s:%d: array length: %v", file, i+1, err)
		}
		def.Bits = bits
		if def.ArrayLen > 0 {
			def.Bits = bits / def.ArrayLen
		}
		for j, p := range []**uint64{&def.Min, &def.Max} {
			switch v := f[6+j]; v {
			case "-":
			case "*":
				def.DeviceBound = true
			default:
				n, err := strconv.ParseUint(v, 10, 64)
				if err != nil {
					return fmt.Errorf("hca: %s:%d: bound %q: %v", file, i+1, v, err)
				}
				*p = &n
			}
		}
		switch def.Type {
		case TypeBool:
			// The database has no textual values for BOOL; mlxconfig prints
			// and accepts False/True (BoolParamValue).
			def.Enum = []EnumValue{{"False", 0}, {"True", 1}}
		case TypeEnum:
			if f[8] == "-" {
				return fmt.Errorf("hca: %s:%d: ENUM %s without values", file, i+1, def.Base)
			}
			for _, ev := range strings.Split(f[8], ",") {
				name, val, ok := strings.Cut(ev, "=")
				n, err := strconv.ParseUint(strings.TrimPrefix(strings.TrimPrefix(val, "0x"), "0X"), 16, 64)
				if !ok || err != nil {
					return fmt.Errorf("hca: %s:%d: enum value %q", file, i+1, ev)
				}
				def.Enum = append(def.Enum, EnumValue{name, n})
			}
		}
		switch def.Scope {
		case ScopeGlobal, ScopeHost, ScopePort, ScopeModule:
		default:
			return fmt.Errorf("hca: %s:%d: unknown scope %q", file, i+1, def.Scope)
		}
		if _, dup := d.defs[def.Base]; dup {
			return fmt.Errorf("hca: %s:%d: %s defined twice", file, i+1, def.Base)
		}
		d.defs[def.Base] = def
	}
	return nil
}

// sizeBits reads the database's "0xBYTES.BITS" field width.
func sizeBits(s string) (int, error) {
	b, bits, ok := strings.Cut(s, ".")
	if !ok || !strings.HasPrefix(b, "0x") {
		return 0, fmt.Errorf("size %q: want 0xBYTES.BITS", s)
	}
	nb, err1 := strconv.ParseUint(b[2:], 16, 32)
	nbits, err2 := strconv.Atoi(bits)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("size %q: want 0xBYTES.BITS", s)
	}
	return int(nb)*8 + nbits, nil
}

// expand lists the names a definition takes on a device.
func expand(def *Def) []string {
	switch def.Scope {
	case ScopePort:
		var out []string
		for p := 1; p <= MaxPorts; p++ {
			out = append(out, fmt.Sprintf("%s_P%d", def.Base, p))
		}
		return out
	case ScopeModule:
		var out []string
		for m := 0; m <= MaxModule; m++ {
			out = append(out, fmt.Sprintf("%s_M%d", def.Base, m))
		}
		return out
	}
	return []string{def.Base}
}

// Lookup resolves a parameter name as mlxconfig takes it: NAME, NAME_P<port>,
// NAME_M<module>, each optionally followed by [index] for an array element.
// Names are case-sensitive, as in the tool. The error is a *ParamError that
// suggests what was probably meant.
func Lookup(name string) (Spec, error) {
	d := mustDB()
	s, ok := d.lookup(name)
	if ok {
		return s, nil
	}
	return Spec{}, d.unknown(name)
}

func (d *paramDB) lookup(name string) (Spec, bool) {
	base, index := name, -1
	if i := strings.IndexByte(name, '['); i > 0 && strings.HasSuffix(name, "]") {
		n, err := strconv.Atoi(name[i+1 : len(name)-1])
		if err != nil || n < 0 {
			return Spec{}, false
		}
		base, index = name[:i], n
	}
	spec := Spec{Name: name, Module: -1, Index: index}
	if def, ok := d.defs[base]; ok && (def.Scope == ScopeGlobal || def.Scope == ScopeHost) {
		spec.Def = def
	} else if i := strings.LastIndex(base, "_P"); i > 0 {
		if def, ok := d.defs[base[:i]]; ok && def.Scope == ScopePort {
			if p, err := strconv.Atoi(base[i+2:]); err == nil && p >= 1 && p <= MaxPorts && base[i+2] != '0' {
				spec.Def, spec.Port = def, p
			}
		}
	}
	if spec.Def == nil {
		if i := strings.LastIndex(base, "_M"); i > 0 {
			if def, ok := d.defs[base[:i]]; ok && def.Scope == ScopeModule {
				if m, err := strconv.Atoi(base[i+2:]); err == nil && m >= 0 && m <= MaxModule && len(base[i+2:]) == 1 {
					spec.Def, spec.Module = def, m
				}
			}
		}
	}
	if spec.Def == nil {
		return Spec{}, false
	}
	if index >= 0 && (spec.ArrayLen == 0 || index >= spec.ArrayLen) {
		return Spec{}, false
	}
	return spec, true
}

// unknown builds the error for a name the database does not know, with the
// most useful hint first: a missing port suffix, wrong case, a bad array
// index, then the nearest names.
func (d *paramDB) unknown(name string) *ParamError {
	e := &ParamError{Param: name, Kind: UnknownParam}
	base := name
	if i := strings.IndexByte(name, '['); i > 0 {
		base = name[:i]
	}
	if def, ok := d.defs[base]; ok {
		switch {
		case def.Scope == ScopePort:
			e.Reason = "it is set per port"
			e.Suggestions = expand(def)
		case def.Scope == ScopeModule:
			e.Reason = "it is set per module"
			e.Suggestions = expand(def)
		case def.ArrayLen == 0:
			e.Reason = "it is not an array"
			e.Suggestions = []string{base}
		default:
			e.Reason = fmt.Sprintf("it has %d elements, [0] to [%d]", def.ArrayLen, def.ArrayLen-1)
		}
		return e
	}
	if s, ok := d.lookup(strings.ToUpper(name)); ok {
		e.Reason = "parameter names are upper case"
		e.Suggestions = []string{s.Name}
		return e
	}
	if s, ok := d.lookup(base); ok && base != name {
		e.Reason = fmt.Sprintf("it has %d elements, [0] to [%d]", s.ArrayLen, s.ArrayLen-1)
		if s.ArrayLen == 0 {
			e.Reason = "it is not an array"
			e.Suggestions = []string{base}
		}
		return e
	}
	e.Suggestions = nearest(strings.ToUpper(base), d.names, 3)
	return e
}

// nearest returns up to n names within a small edit distance of s, closest
// first.
func nearest(s string, names []string, n int) []string {
	limit := len(s) / 4
	if limit < 2 {
		limit = 2
	}
	type cand struct {
		name string
		d    int
	}
	var cs []cand
	best := limit + 1
	for _, name := range names {
		if dist := levenshtein.Distance(s, name, nil); dist <= limit {
			cs = append(cs, cand{name, dist})
			best = min(best, dist)
		} else if len(name) >= 6 && len(s) >= 6 && (strings.HasPrefix(s, name) || strings.HasPrefix(name, s)) {
			// SRIOV_ENABLE for SRIOV_EN: too far by edits, plainly meant.
			cs = append(cs, cand{name, limit + 1})
		}
	}
	// Offer only the closest: LINK_TYP_P1 suggests LINK_TYPE_P1, not _P2 too.
	if best <= limit {
		kept := cs[:0]
		for _, c := range cs {
			if c.d == best {
				kept = append(kept, c)
			}
		}
		cs = kept
	}
	sort.SliceStable(cs, func(i, j int) bool {
		if cs[i].d != cs[j].d {
			return cs[i].d < cs[j].d
		}
		return cs[i].name < cs[j].name
	})
	var out []string
	for i := 0; i < len(cs) && i < n; i++ {
		out = append(out, cs[i].name)
	}
	return out
}

// ErrorKind classifies a ParamError.
type ErrorKind int

// Kinds of ParamError.
const (
	UnknownParam ErrorKind = iota + 1 // the database has no such name
	InvalidValue                      // the name is known, the value is not valid for it
)

// ParamError says what is wrong with one setting and what would be valid.
type ParamError struct {
	Param       string
	Value       string
	Kind        ErrorKind
	Reason      string   // what is wrong, when more can be said than the kind
	Valid       string   // InvalidValue: what the parameter accepts
	Suggestions []string // UnknownParam: names probably meant
}

func (e *ParamError) Error() string {
	var b strings.Builder
	switch e.Kind {
	case UnknownParam:
		fmt.Fprintf(&b, "unknown mlxconfig parameter %q", e.Param)
		if e.Reason != "" {
			b.WriteString(": " + e.Reason)
		}
		switch len(e.Suggestions) {
		case 0:
		case 1:
			fmt.Fprintf(&b, "; did you mean %s?", e.Suggestions[0])
		default:
			fmt.Fprintf(&b, "; did you mean one of %s?", strings.Join(e.Suggestions, ", "))
		}
	default:
		fmt.Fprintf(&b, "invalid value %q for %s", e.Value, e.Param)
		if e.Reason != "" {
			b.WriteString(": " + e.Reason)
		}
		if e.Valid != "" {
			b.WriteString("; valid: " + e.Valid)
		}
	}
	return b.String()
}

// Validate checks every setting against the parameter database: that the
// name exists (with its port or module suffix) and that the value is valid
// for its type. It returns one *ParamError per bad setting, in name order,
// and nil when all are good. Bounds that depend on the device's capabilities
// (the maximum NUM_OF_VFS, say) are left to the device.
func Validate(settings map[string]string) []error {
	names := make([]string, 0, len(settings))
	for n := range settings {
		names = append(names, n)
	}
	sort.Strings(names)
	var errs []error
	for _, n := range names {
		if _, err := Normalize(n, settings[n]); err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}

// Normalize returns the canonical spelling of value for param: the text
// mlxconfig query prints for it ("IB(1)", "True(1)", "16"), so that every
// way of writing one value normalizes to the same string, and the query
// output normalizes to itself. It accepts what mlxconfig set accepts (enum
// names in any case, numbers in C strtoul base-0 syntax) plus the printed
// form NAME(number).
func Normalize(param, value string) (string, error) {
	spec, err := Lookup(param)
	if err != nil {
		return "", err
	}
	v, err := spec.Parse(value)
	if err != nil {
		return "", err
	}
	return v.Raw, nil
}

// Equal reports whether two spellings are the same value of param. For a
// parameter the database lacks, it falls back to the printed form: numbers
// compare as numbers, names case-insensitively.
func Equal(param, a, b string) bool {
	if spec, err := Lookup(param); err == nil {
		va, erra := spec.Parse(a)
		vb, errb := spec.Parse(b)
		if erra == nil && errb == nil {
			return va.Raw == vb.Raw
		}
	}
	return looseEqual(NewValue(a), NewValue(b))
}

func looseEqual(a, b Value) bool {
	if a.HasNum && b.HasNum {
		return a.Num == b.Num
	}
	if a.Text != "" && b.Text != "" {
		return strings.EqualFold(a.Text, b.Text)
	}
	return strings.EqualFold(strings.TrimSpace(a.Raw), strings.TrimSpace(b.Raw))
}

// Parse reads a value for this parameter and returns it in printed form.
func (s Spec) Parse(value string) (Value, error) {
	bad := func(reason string) (Value, error) {
		return Value{}, &ParamError{Param: s.Name, Value: value, Kind: InvalidValue, Reason: reason, Valid: s.ValidValues()}
	}
	if s.IsArray() {
		return Value{}, &ParamError{Param: s.Name, Value: value, Kind: InvalidValue,
			Reason: fmt.Sprintf("%s is an array of %d elements; set them one by one as %s[0] to %s[%d]",
				s.Name, s.ArrayLen, s.Name, s.Name, s.ArrayLen-1)}
	}
	v := strings.TrimSpace(value)
	// The printed form NAME(number) is accepted so that query output can be
	// fed back; name and number must then agree.
	if m := printedRe.FindStringSubmatch(v); m != nil && (s.Type == TypeEnum || s.Type == TypeBool) {
		n, _ := strconv.ParseUint(m[2], 10, 64)
		for _, ev := range s.Enum {
			if ev.Value == n && strings.EqualFold(ev.Name, m[1]) {
				return enumValue(ev), nil
			}
		}
		return bad("name and number disagree")
	}
	switch s.Type {
	case TypeEnum, TypeBool:
		if n, ok := strtoul(v); ok {
			for _, ev := range s.Enum {
				if ev.Value == n {
					return enumValue(ev), nil
				}
			}
			return bad("no such value")
		}
		for _, ev := range s.Enum {
			if strings.EqualFold(ev.Name, v) {
				return enumValue(ev), nil
			}
		}
		return bad("no such value")
	case TypeUnsigned, TypeInteger, TypeBinary:
		if m := printedRe.FindStringSubmatch(v); m != nil {
			v = m[2] // "0x10(16)" as printed for a number given in hex
		}
		var n uint64
		var ok bool
		if s.Type == TypeBinary {
			// BinaryParamValue parses base 16, with or without 0x.
			n, ok = parseHex(v)
		} else {
			n, ok = strtoul(v)
		}
		if !ok {
			return bad("not a number")
		}
		if s.Bits < 64 && n > (uint64(1)<<s.Bits)-1 {
			return bad(fmt.Sprintf("does not fit in %d bits", s.Bits))
		}
		if s.Bits == 32 && n == 0xffffffff {
			return bad("0xffffffff is reserved")
		}
		if s.Min != nil && n < *s.Min {
			return bad("below the minimum")
		}
		if s.Max != nil && n > *s.Max {
			return bad("above the maximum")
		}
		if s.Type == TypeBinary {
			return Value{Raw: "0x" + strconv.FormatUint(n, 16), Num: n, HasNum: true}, nil
		}
		return Value{Raw: strconv.FormatUint(n, 10), Num: n, HasNum: true}, nil
	}
	// STRING and BYTES are taken as given: only the device knows their limits.
	return Value{Raw: v}, nil
}

func enumValue(ev EnumValue) Value {
	return Value{Raw: fmt.Sprintf("%s(%d)", ev.Name, ev.Value), Text: ev.Name, Num: ev.Value, HasNum: true}
}

// ValidValues describes what the parameter accepts, for error messages.
func (s Spec) ValidValues() string {
	switch {
	case s.IsArray():
		return fmt.Sprintf("elements %s[0] to %s[%d]", s.Name, s.Name, s.ArrayLen-1)
	case s.Type == TypeEnum || s.Type == TypeBool:
		parts := make([]string, len(s.Enum))
		for i, ev := range s.Enum {
			parts[i] = fmt.Sprintf("%s (%d)", ev.Name, ev.Value)
		}
		return strings.Join(parts, ", ")
	case s.Type == TypeUnsigned || s.Type == TypeInteger || s.Type == TypeBinary:
		lo, hi := uint64(0), uint64(1)<<s.Bits-1
		if s.Bits >= 64 {
			hi = ^uint64(0)
		}
		if s.Bits == 32 {
			hi-- // 0xffffffff means "unknown" to mlxconfig
		}
		if s.Min != nil {
			lo = *s.Min
		}
		if s.Max != nil && *s.Max < hi {
			hi = *s.Max
		}
		desc := fmt.Sprintf("an integer from %d to %d", lo, hi)
		if s.Type == TypeBinary {
			desc = fmt.Sprintf("a hexadecimal number from 0x%x to 0x%x", lo, hi)
		}
		if s.DeviceBound {
			desc += " (the device may allow less)"
		}
		return desc
	}
	return "any " + strings.ToLower(string(s.Type))
}

// strtoul reads an unsigned number the way C strtoul does with base 0
// (mlxconfig's strToNum): 0x hex, a leading 0 octal, else decimal.
func strtoul(s string) (uint64, bool) {
	if s == "" {
		return 0, false
	}
	base := 10
	switch {
	case len(s) > 2 && (s[:2] == "0x" || s[:2] == "0X"):
		base, s = 16, s[2:]
	case len(s) > 1 && s[0] == '0':
		base, s = 8, s[1:]
	}
	n, err := strconv.ParseUint(s, base, 32)
	return n, err == nil && !strings.ContainsRune(s, '_')
}

func parseHex(s string) (uint64, bool) {
	s = strings.TrimPrefix(strings.TrimPrefix(s, "0x"), "0X")
	n, err := strconv.ParseUint(s, 16, 32)
	return n, err == nil && s != "" && !strings.ContainsRune(s, '_')
}

// SettingProblem is one refused firmware setting: Param names it ("" when the error is about no
// single setting) and Detail says what is wrong and what would be right.
type SettingProblem struct {
	Param, Detail string
}

// CheckSettings is Validate as a plan applies it: a name the database does not know but that
// unchecked lists is left to the card (firmware newer than the database may have it), and the
// refusal of any other unknown name says that unchecked is the way out.
func CheckSettings(settings map[string]string, unchecked map[string]bool) []SettingProblem {
	var out []SettingProblem
	for _, err := range Validate(settings) {
		var pe *ParamError
		if !errors.As(err, &pe) {
			out = append(out, SettingProblem{Detail: err.Error()})
			continue
		}
		if pe.Kind == UnknownParam && unchecked[pe.Param] {
			continue
		}
		detail := err.Error()
		if pe.Kind == UnknownParam {
			detail += ". If the card's firmware is newer than the provider's parameter database (mstflint 4.21) and has " +
				"this parameter, list it in unchecked_parameters."
		}
		out = append(out, SettingProblem{Param: pe.Param, Detail: detail})
	}
	return out
}
