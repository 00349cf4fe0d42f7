package topogen

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
)

// The argument table. Every argument of gpucluster_topology, and so every field of the
// normalized design that gpucluster_fabric's `design` takes, is one Arg: its name, value type,
// description, valid range and where it lives in Params. The provider builds both schemas, the
// encoder and the decoder from Args(), so an argument is written once. The arguments every kind
// reads (models, naming, GUIDs, racks, cables) are in commonArgs; those several kinds share
// (node_count, oversubscription) in sharedArgs; the rest belong to one kind and are declared in
// its file (Kind.Args). A kind lists the shared arguments it reads in Kind.Uses; Generate refuses
// a set argument the kind does not read rather than ignore it.

// ArgType is the type of an argument's value.
type ArgType uint8

const (
	ArgString    ArgType = iota // a string; "" is unset
	ArgInt                      // an integer; 0 is unset
	ArgFloat                    // a number; 0 is unset
	ArgGUID                     // a 64-bit GUID written as hex ("0x0002c90000000000"); 0 is unset
	ArgInts3                    // three integers (torus_dims); all zero is unset
	ArgStringMap                // name -> string (hca_guids); nil is unset
)

// Arg is one argument. Its accessors reach the Params field that holds it; an Arg made outside
// this package (a kind registered by another package) has none, and its value lives in
// Params.Extra under its name (ArgInt and ArgFloat only).
type Arg struct {
	Name string
	Type ArgType
	// Doc says what the argument is and what null means, in Markdown, for both schemas.
	Doc string
	// Group is "" for a top-level argument, or the nested object holding it ("prefixes").
	Group string
	// Least and Most bound numbers (Most 0: no upper bound). Null is always allowed and means the
	// default; a value below Least (0 included, for an argument whose Least is 1) is refused, so
	// that 0 never passes for "unset".
	Least, Most float64
	// Default is what null gives, in words, for messages ("1", "the fewest that fit").
	Default string
	// Required arguments must be set (kind).
	Required bool
	// OneOf lists the values a string takes, when it is a closed set.
	OneOf func() []string
	// Pattern is a regular expression a string must match, and PatternHelp says so in words.
	Pattern, PatternHelp string

	// defString is the value null gives a string argument ("" when it has none).
	defString string

	str   func(*Params) *string
	num   func(*Params) *int
	flt   func(*Params) *float64
	guid  func(*Params) *uint64
	dims  func(*Params) *[3]int
	names func(*Params) *map[string]string
}

// Path is the argument's attribute path below the object holding the arguments:
// "node_count", "prefixes.leaf".
func (a *Arg) Path() string {
	if a.Group == "" {
		return a.Name
	}
	return a.Group + "." + a.Name
}

// String returns a string argument's value ("" when unset).
func (a *Arg) String(p *Params) string { return *a.str(p) }

// SetString sets a string argument.
func (a *Arg) SetString(p *Params, v string) { *a.str(p) = v }

// Int returns an integer argument's value (0 when unset).
func (a *Arg) Int(p *Params) int {
	if a.num == nil {
		return int(p.Extra[a.Name])
	}
	return *a.num(p)
}

// SetInt sets an integer argument.
func (a *Arg) SetInt(p *Params, v int) {
	if a.num == nil {
		p.setExtra(a.Name, float64(v))
		return
	}
	*a.num(p) = v
}

// Float returns a number argument's value (0 when unset).
func (a *Arg) Float(p *Params) float64 {
	if a.flt == nil {
		return p.Extra[a.Name]
	}
	return *a.flt(p)
}

// SetFloat sets a number argument.
func (a *Arg) SetFloat(p *Params, v float64) {
	if a.flt == nil {
		p.setExtra(a.Name, v)
		return
	}
	*a.flt(p) = v
}

// GUID returns a GUID argument's value (0 when unset).
func (a *Arg) GUID(p *Params) uint64 { return *a.guid(p) }

// SetGUID sets a GUID argument.
func (a *Arg) SetGUID(p *Params, v uint64) { *a.guid(p) = v }

// Ints3 returns a three-integer argument's value.
func (a *Arg) Ints3(p *Params) [3]int { return *a.dims(p) }

// SetInts3 sets a three-integer argument.
func (a *Arg) SetInts3(p *Params, v [3]int) { *a.dims(p) = v }

// StringMap returns a map argument's value (nil when unset).
func (a *Arg) StringMap(p *Params) map[string]string { return *a.names(p) }

// SetStringMap sets a map argument.
func (a *Arg) SetStringMap(p *Params, v map[string]string) { *a.names(p) = v }

// IsSet reports whether the argument holds a value other than its unset zero.
func (a *Arg) IsSet(p *Params) bool {
	switch a.Type {
	case ArgString:
		return a.String(p) != ""
	case ArgInt:
		return a.Int(p) != 0
	case ArgFloat:
		return a.Float(p) != 0
	case ArgGUID:
		return a.GUID(p) != 0
	case ArgInts3:
		return a.Ints3(p) != [3]int{}
	default:
		return a.StringMap(p) != nil
	}
}

func (p *Params) setExtra(name string, v float64) {
	if v == 0 {
		delete(p.Extra, name)
		return
	}
	if p.Extra == nil {
		p.Extra = map[string]float64{}
	}
	p.Extra[name] = v
}

// Constructors of the arguments of this package.

func strArg(name, doc, def string, acc func(*Params) *string) *Arg {
	a := &Arg{Name: name, Type: ArgString, Doc: doc, str: acc, defString: def}
	if def != "" {
		a.Default = fmt.Sprintf("%q", def)
	}
	return a
}

func intArg(name, doc string, least int, def string, acc func(*Params) *int) *Arg {
	return &Arg{Name: name, Type: ArgInt, Doc: doc, Least: float64(least), Default: def, num: acc}
}

func floatArg(name, doc string, least float64, def string, acc func(*Params) *float64) *Arg {
	return &Arg{Name: name, Type: ArgFloat, Doc: doc, Least: least, Default: def, flt: acc}
}

// RangeProblem says what is wrong with a number for the argument, or "": a whole number for
// an integer argument, within Least..Most. Null is never checked: it is the default, which 0 is
// not ("oversubscription = 0 is out of range: ...").
func (a *Arg) RangeProblem(v float64) string {
	def := ""
	if a.Default != "" {
		def = fmt.Sprintf(" (%s)", a.Default)
	}
	want := "at least " + numText(a.Least)
	if a.Most != 0 {
		want = fmt.Sprintf("%s to %s", numText(a.Least), numText(a.Most))
	}
	kind := "number"
	if a.Type == ArgInt {
		kind = "whole number"
	}
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0), a.Type == ArgInt && v != math.Trunc(v):
		return fmt.Sprintf("%s = %s is not valid: it takes a %s, %s; leave it unset (null) for the default%s", a.Name, numText(v), kind, want, def)
	case v < a.Least || (a.Most != 0 && v > a.Most):
		return fmt.Sprintf("%s = %s is out of range: it takes %s; leave it unset (null) for the default%s", a.Name, numText(v), want, def)
	}
	return ""
}

// numText writes a number as a person wrote it: no exponent, no trailing zeros.
func numText(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// GroupDoc describes a nested object of arguments (Arg.Group) for the schemas.
func GroupDoc(group string) string {
	if group == "prefixes" {
		return "Name prefixes. Numbers are zero-padded to the planned count (`gpu001`, `leaf01`), so names keep their width " +
			"as the design grows within the plan (past a power of ten, `name_digits` keeps it). No two prefixes may name two devices alike (a leaf prefix `gpu0` beside the node prefix " +
			"`gpu` names a switch and a node `gpu001`)."
	}
	if group == "name_digits" {
		return "Digits of the numbers in generated names, by kind of device (default: the digits of the planned count, so " +
			"`leaf01` at 64 leaves and `leaf001` at 128). A plan past a power of ten widens them and renames every device of " +
			"that kind; set the width the names have today (`name_digits = { leaf = 2 }`) and they keep it: `leaf99`, `leaf100`. " +
			"`gpucluster_bom` with `prior_design` says which to set when a design renames."
	}
	return "Arguments of " + group + "."
}

// prefixPattern is what a name prefix may hold: it starts every generated name, and names go
// into OpenSM's files and cable labels, where a space or a slash would split them.
const (
	prefixPattern     = `^[A-Za-z0-9][A-Za-z0-9._-]{0,40}$`
	prefixPatternHelp = `must start with a letter or digit and hold only letters, digits, '.', '_' or '-' (up to 41), e.g. "gpu"`
)

func prefixArg(name, what, def string, acc func(*Params) *string) *Arg {
	a := strArg(name, fmt.Sprintf("Name prefix of %s (default `%s`).", what, def), def, acc)
	a.Group = "prefixes"
	a.Pattern, a.PatternHelp = prefixPattern, prefixPatternHelp
	return a
}

// digitsArg is one argument of the name_digits object: the digits of a kind of device's number.
func digitsArg(name, what string, acc func(*Params) *int) *Arg {
	a := intArg(name, fmt.Sprintf("Digits of the number in generated %s names: zero-padded to it, and past it the number "+
		"goes on without renaming (`2`: `01`..`99`, then `100`). Default: the digits of the planned count. Set it to the width "+
		"the names have today to grow past a power of ten without renaming them.", what), 1, "the digits of the planned count",
		acc)
	a.Most = 9
	a.Group = "name_digits"
	return a
}

// kindArg is `kind`; its description lists the kind table (kindDoc).
var kindArg = &Arg{Name: "kind", Type: ArgString, Required: true, OneOf: KindNames, str: func(p *Params) *string { return &p.Kind }}

// commonArgs are read by every kind.
var commonArgs = []*Arg{
	kindArg,
	strArg("node_model", "Catalog node model (default `"+DefaultNodeModel+"`). Its compute HCAs are the endpoints (8 per DGX H100), "+
		"its height and power fill the racks.", DefaultNodeModel, func(p *Params) *string { return &p.NodeModel }),
	strArg("switch_model", "Catalog switch model (default `"+DefaultSwitchModel+"`).", DefaultSwitchModel, func(p *Params) *string { return &p.SwitchModel }),
	prefixArg("node", "nodes", "gpu", func(p *Params) *string { return &p.NodePrefix }),
	prefixArg("leaf", "leaf switches", "leaf", func(p *Params) *string { return &p.LeafPrefix }),
	prefixArg("spine", "spine switches", "spine", func(p *Params) *string { return &p.SpinePrefix }),
	prefixArg("core", "core switches", "core", func(p *Params) *string { return &p.CorePrefix }),
	prefixArg("rack", "racks", "rack", func(p *Params) *string { return &p.RackPrefix }),
	prefixArg("appliance", "fabric-manager appliances in reserved slots", "ufm", func(p *Params) *string { return &p.AppliancePrefix }),
	prefixArg("group", "dragonfly+ switch groups", "group", func(p *Params) *string { return &p.GroupPrefix }),
	prefixArg("torus", "torus switches, named by coordinates (`sw0-1-2`)", "sw", func(p *Params) *string { return &p.TorusPrefix }),
	digitsArg("node", "node", func(p *Params) *int { return &p.NodeDigits }),
	digitsArg("leaf", "leaf switch", func(p *Params) *int { return &p.LeafDigits }),
	digitsArg("spine", "spine switch", func(p *Params) *int { return &p.SpineDigits }),
	digitsArg("core", "core switch", func(p *Params) *int { return &p.CoreDigits }),
	digitsArg("rack", "rack", func(p *Params) *int { return &p.RackDigits }),
	{Name: "switch_guid_base", Type: ArgGUID, guid: func(p *Params) *uint64 { return &p.SwitchGUIDBase },
		Doc: "Base of the derived switch GUIDs, hex with `0x` (default `0x0002c90000000000`, the Mellanox OUI): switch n of tier t " +
			"(leaf 1, spine 2, core 3) gets base + t·2²⁰ + n, so a switch keeps its GUID as the design grows. GUIDs never wrap past " +
			"`0xffffffffffffffff`: a base too large for the design is refused with the largest that fits. For designs made before the " +
			"hardware arrives and for the simulator."},
	{Name: "hca_guid_base", Type: ArgGUID, guid: func(p *Params) *uint64 { return &p.HCAGUIDBase },
		Doc: "Base of the derived HCA port GUIDs (default `0x0002c90100000000`): HCA k, counted node by node from 1, gets base + k; " +
			"never wrapping, as `switch_guid_base`."},
	{Name: "hca_guids", Type: ArgStringMap, names: func(p *Params) *map[string]string { return &p.HCAGUIDs },
		Doc: "Inventory of burned-in port GUIDs by HCA name, e.g. `{ \"gpu001/mlx5_0\" = \"0x946dae0300a1b2c3\" }`; overrides the " +
			"derived GUID of each HCA listed. Every GUID must stay unique."},
	floatArg("rack_power_kw", "Power budget of every rack in kW (default `42`: four DGX H100 at their 10.2 kW maximum). It sets how "+
		"many nodes share a compute rack.", 0.001, "42", func(p *Params) *float64 { return &p.RackPowerKW }),
	intArg("rack_units", "Usable units of every rack (default `42`).", 1, "42", func(p *Params) *int { return &p.RackUnits }),
	intArg("switches_per_rack", "Most switches in one network rack (default `16`: 1,024 NDR links into one rack's trays).", 1, "16",
		func(p *Params) *int { return &p.SwitchesPerRack }),
	{Name: "cable_kind", Type: ArgString, OneOf: func() []string { return catalog.CableKinds }, str: func(p *Params) *string { return &p.CableKind },
		Doc: "Kind written on every generated cable: `dac`, `acc`, `aoc`, `fiber-mm` or `fiber-sm` (RA-11333-001 cables everything " +
			"in multimode fiber: `fiber-mm`). Unset: `null`, and the planner picks the cheapest kind that reaches each run."},
}

// sharedArgs are read by the kinds that list them in Kind.Uses.
var sharedArgs = []*Arg{
	intArg("node_count", "GPU nodes to build now. Named `node_count` because `nodes` is the map of generated nodes. "+
		"`fat-tree`: required. `rail-optimized`: optional, instead of or within `scalable_units` (nodes fill SU slots in order). "+
		"`dragonfly-plus`: optional, with or instead of `group_count`; the groups are sized for the nodes and the nodes spread "+
		"evenly over them. `torus-3d`: default fills every switch.", 1, "the kind's own size", func(p *Params) *int { return &p.Nodes }),
	floatArg("oversubscription", "Down:up ratio at the leaf as one number (default `1`, non-blocking; `3` is 3:1). Accepted when some "+
		"split of the radix gives exactly that ratio, using as many ports as it can and leaving the rest spare (`2` on 64 ports: "+
		"42 down, 21 up, 1 spare); otherwise the refusal names the nearest ratios that do, as values it accepts (`43/21`).",
		1, "1", func(p *Params) *float64 { return &p.Oversubscription }),
}

var (
	argsMu   sync.Mutex
	argsList []*Arg // built by Args from the tables, reset by RegisterKind
)

// Args returns every argument: the common ones, the shared ones, then each kind's own in the
// order of the kind table. A name appears once.
func Args() []*Arg {
	argsMu.Lock()
	defer argsMu.Unlock()
	if argsList != nil {
		return argsList
	}
	seen := map[string]bool{}
	add := func(as []*Arg) {
		for _, a := range as {
			if !seen[a.Path()] {
				seen[a.Path()] = true
				argsList = append(argsList, a)
			}
		}
	}
	kindArg.Doc = kindDoc()
	add(commonArgs)
	add(sharedArgs)
	for _, k := range kindTable() {
		add(k.Args)
	}
	return argsList
}

// ArgGroups splits Args into the top-level arguments and the nested objects (Arg.Group), each
// in the table's order: the shape of every object that holds the arguments.
func ArgGroups() (top []*Arg, nested map[string][]*Arg) {
	nested = map[string][]*Arg{}
	for _, a := range Args() {
		if a.Group == "" {
			top = append(top, a)
		} else {
			nested[a.Group] = append(nested[a.Group], a)
		}
	}
	return top, nested
}

// arg returns the argument of the path, or nil.
func arg(path string) *Arg {
	for _, a := range Args() {
		if a.Path() == path {
			return a
		}
	}
	return nil
}

func isCommon(a *Arg) bool {
	for _, c := range commonArgs {
		if c == a {
			return true
		}
	}
	return false
}

// kindsReading lists the kinds that read an argument, for refusals.
func kindsReading(a *Arg) string {
	var out []string
	for _, k := range kindTable() {
		if k.reads(a) {
			out = append(out, k.Name)
		}
	}
	sort.Strings(out)
	return strings.Join(out, ", ")
}
