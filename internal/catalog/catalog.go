package catalog

import (
	_ "embed"
	"fmt"
	"math"
	"sort"
	"strings"
	"sync"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/gohcl"
	"github.com/hashicorp/hcl/v2/hclparse"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/inputfile"
)

//go:embed catalog.hcl
var builtin []byte

// Cable kinds, shortest reach first.
const (
	KindDAC     = "dac"
	KindACC     = "acc"
	KindAOC     = "aoc"
	KindFiberMM = "fiber-mm"
	KindFiberSM = "fiber-sm"
)

// CableKinds lists every cable kind a cable may name.
var CableKinds = []string{KindDAC, KindACC, KindAOC, KindFiberMM, KindFiberSM}

// Cable ends: what a cable product line is made to join (Cable.Ends). A link with an HCA, or any
// device that is not a switch, at one end takes a switch-hca cable (a splitter, for twin-port
// copper); two switches take a switch-switch one.
const (
	EndsSwitchSwitch = "switch-switch"
	EndsSwitchHCA    = "switch-hca"
	EndsAny          = "any"
)

// LinkEnds is the Ends class of a link whose ends are, or are not, switches.
func LinkEnds(aSwitch, bSwitch bool) string {
	if aSwitch && bSwitch {
		return EndsSwitchSwitch
	}
	return EndsSwitchHCA
}

// PlannerKinds are the kinds the planner picks by itself, cheapest and shortest first. NDR
// practice is copper up to 5 m, then transceivers and fiber (RA-11333-001 uses multimode fiber for
// everything); no NDR AOC appears in the sources, so AOC is only used when a cable names it.
var PlannerKinds = []string{KindDAC, KindACC, KindFiberMM, KindFiberSM}

// Price is a unit price with the source that justifies it.
type Price struct {
	USD    float64
	Source string
}

// SwitchModel is a switch the catalog knows.
type SwitchModel struct {
	Name         string
	Description  string
	SKU          string
	Ports        int
	Cages        int
	PortRateGbps float64
	Units        int
	PowerKW      float64 // 0 when unknown
	Managed      bool
	Price        *Price
}

// PortsPerCage is how many ports share one cage: port p sits in cage (p-1)/PortsPerCage. It rounds
// up, as the catalog does not require the ports to divide evenly (cages defaults to half the
// ports, rounded up): rounding down would number more cages than the switch has (5 ports in 3
// cages would read as 5 single-port cages); rounding up keeps every port within the model's cages.
// A model without cages (the zero model of an unknown name) has one port per cage.
func (s SwitchModel) PortsPerCage() int {
	if s.Cages <= 0 {
		return 1
	}
	return max(1, (s.Ports+s.Cages-1)/s.Cages)
}

// HCAModel is a host channel adapter the catalog knows.
type HCAModel struct {
	Name         string
	Description  string
	SKU          string
	Ports        int
	PortRateGbps float64
	FormFactor   string // "osfp" or "qsfp112"
	Price        *Price
}

// NodeModel is a GPU server the catalog knows.
type NodeModel struct {
	Name        string
	Description string
	SKU         string
	Units       int
	PowerKW     float64 // 0 when unknown
	GPUs        int
	ComputeHCAs int
	HCAModel    string
	// TwinPortCages: the node's compute HCAs sit behind twin-port OSFP cages (DGX H100), so one
	// flat-top twin-port transceiver serves two HCAs.
	TwinPortCages bool
	Price         *Price
}

// Cable is a cable product line: one kind, sold in standard lengths.
type Cable struct {
	Name        string
	Description string
	Kind        string
	Ends        string // EndsSwitchSwitch, EndsSwitchHCA or EndsAny
	Links       int    // logical 400G links one physical cable carries
	LengthsM    []float64
	ReachM      float64
	Price       *Price
}

// Serves reports whether the product line is of the kind and made for the ends.
func (k Cable) Serves(kind, ends string) bool {
	return k.Kind == kind && (k.Ends == EndsAny || k.Ends == ends)
}

// Transceiver is an optical module.
type Transceiver struct {
	Name        string
	Description string
	SKU         string
	Media       string // cable kind it drives: fiber-mm or fiber-sm
	End         string // "switch", "node-twin" or "hca"
	Links       int
	ReachM      float64
	Price       *Price
}

// Catalog is the merged set of models. Maps are keyed by name.
type Catalog struct {
	Switches     map[string]SwitchModel
	HCAs         map[string]HCAModel
	Nodes        map[string]NodeModel
	Cables       map[string]Cable
	Transceivers map[string]Transceiver
}

// Default returns the built-in catalog (catalog.hcl): models, parts, reaches and standard lengths
// from public NVIDIA documents, each named in the file (DGX SuperPOD RA-11333-001 Tables 4, 7
// and 8; the QM97X0 1U NDR switch user manual; the LinkX document of each cable and
// transceiver). It panics only if the embedded file is broken, which the package tests rule out.
func Default() *Catalog {
	c, err := Load()
	if err != nil {
		panic(err)
	}
	return c
}

var (
	builtinOnce sync.Once
	builtinCat  *Catalog
	builtinErr  error
)

// parsedBuiltin is the built-in catalog, parsed once per process: parsing it takes milliseconds,
// and Default and Load are called for every fabric read, every test and every fuzz input.
// Callers get a deep copy (clone), never this value.
func parsedBuiltin() (*Catalog, error) {
	builtinOnce.Do(func() {
		c := &Catalog{
			Switches:     map[string]SwitchModel{},
			HCAs:         map[string]HCAModel{},
			Nodes:        map[string]NodeModel{},
			Cables:       map[string]Cable{},
			Transceivers: map[string]Transceiver{},
		}
		if err := c.merge("builtin catalog.hcl", builtin); err != nil {
			builtinErr = err
			return
		}
		builtinCat = c
	})
	return builtinCat, builtinErr
}

// clone is a deep copy of c: nothing a merge or a caller changes in it reaches c.
func (c *Catalog) clone() *Catalog {
	price := func(p *Price) *Price {
		if p == nil {
			return nil
		}
		q := *p
		return &q
	}
	out := &Catalog{
		Switches:     make(map[string]SwitchModel, len(c.Switches)),
		HCAs:         make(map[string]HCAModel, len(c.HCAs)),
		Nodes:        make(map[string]NodeModel, len(c.Nodes)),
		Cables:       make(map[string]Cable, len(c.Cables)),
		Transceivers: make(map[string]Transceiver, len(c.Transceivers)),
	}
	for k, v := range c.Switches {
		v.Price = price(v.Price)
		out.Switches[k] = v
	}
	for k, v := range c.HCAs {
		v.Price = price(v.Price)
		out.HCAs[k] = v
	}
	for k, v := range c.Nodes {
		v.Price = price(v.Price)
		out.Nodes[k] = v
	}
	for k, v := range c.Cables {
		v.Price = price(v.Price)
		v.LengthsM = append([]float64(nil), v.LengthsM...)
		out.Cables[k] = v
	}
	for k, v := range c.Transceivers {
		v.Price = price(v.Price)
		out.Transceivers[k] = v
	}
	return out
}

// Load reads the built-in catalog and then each named file in order; later entries replace
// earlier ones of the same kind and name.
func Load(files ...string) (*Catalog, error) {
	b, err := parsedBuiltin()
	if err != nil {
		return nil, err
	}
	c := b.clone()
	for _, f := range files {
		src, err := inputfile.Read(f, inputfile.MaxCatalogFile)
		if err != nil {
			return nil, fmt.Errorf("reading catalog file: %w", err)
		}
		if err := c.merge(f, src); err != nil {
			return nil, err
		}
	}
	return c, nil
}

type hclFile struct {
	Switches     []hclSwitch      `hcl:"switch_model,block"`
	HCAs         []hclHCA         `hcl:"hca_model,block"`
	Nodes        []hclNode        `hcl:"node_model,block"`
	Cables       []hclCable       `hcl:"cable,block"`
	Transceivers []hclTransceiver `hcl:"transceiver,block"`
}

type hclSwitch struct {
	Name         string   `hcl:"name,label"`
	Description  string   `hcl:"description,optional"`
	SKU          string   `hcl:"sku,optional"`
	Ports        int      `hcl:"ports"`
	Cages        int      `hcl:"cages,optional"`
	PortRateGbps float64  `hcl:"port_rate_gbps"`
	Units        int      `hcl:"units,optional"`
	PowerKW      float64  `hcl:"power_kw,optional"`
	Managed      bool     `hcl:"managed,optional"`
	Price        *float64 `hcl:"price,optional"`
	PriceSource  string   `hcl:"price_source,optional"`
}

type hclHCA struct {
	Name         string   `hcl:"name,label"`
	Description  string   `hcl:"description,optional"`
	SKU          string   `hcl:"sku,optional"`
	Ports        int      `hcl:"ports"`
	PortRateGbps float64  `hcl:"port_rate_gbps"`
	FormFactor   string   `hcl:"form_factor,optional"`
	Price        *float64 `hcl:"price,optional"`
	PriceSource  string   `hcl:"price_source,optional"`
}

type hclNode struct {
	Name          string   `hcl:"name,label"`
	Description   string   `hcl:"description,optional"`
	SKU           string   `hcl:"sku,optional"`
	Units         int      `hcl:"units"`
	PowerKW       float64  `hcl:"power_kw,optional"`
	PowerSource   string   `hcl:"power_source,optional"`
	GPUs          int      `hcl:"gpus,optional"`
	ComputeHCAs   int      `hcl:"compute_hcas"`
	HCAModel      string   `hcl:"hca_model"`
	TwinPortCages bool     `hcl:"twin_port_cages,optional"`
	Price         *float64 `hcl:"price,optional"`
	PriceSource   string   `hcl:"price_source,optional"`
}

type hclCable struct {
	Name        string    `hcl:"name,label"`
	Description string    `hcl:"description,optional"`
	Kind        string    `hcl:"kind"`
	Ends        string    `hcl:"ends,optional"`
	Links       int       `hcl:"links,optional"`
	LengthsM    []float64 `hcl:"lengths_m"`
	ReachM      float64   `hcl:"reach_m"`
	Price       *float64  `hcl:"price,optional"`
	PriceSource string    `hcl:"price_source,optional"`
}

type hclTransceiver struct {
	Name        string   `hcl:"name,label"`
	Description string   `hcl:"description,optional"`
	SKU         string   `hcl:"sku,optional"`
	Media       string   `hcl:"media"`
	End         string   `hcl:"end"`
	Links       int      `hcl:"links,optional"`
	ReachM      float64  `hcl:"reach_m"`
	Price       *float64 `hcl:"price,optional"`
	PriceSource string   `hcl:"price_source,optional"`
}

func price(p *float64, source string) *Price {
	if p == nil {
		return nil
	}
	return &Price{USD: *p, Source: source}
}

func orDefault(v, d int) int {
	if v == 0 {
		return d
	}
	return v
}

// merge parses one HCL file and layers its entries over c. It checks every entry before it
// changes anything, so a bad file leaves c as it was.
func (c *Catalog) merge(name string, src []byte) error {
	f, diags := hclparse.NewParser().ParseHCL(src, name)
	if diags.HasErrors() {
		return diagError(diags)
	}
	var doc hclFile
	if diags := gohcl.DecodeBody(f.Body, nil, &doc); diags.HasErrors() {
		return diagError(diags)
	}
	var problems []string
	bad := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	// Counts, sizes and prices below zero are never what a catalog means: a negative price or
	// power would quietly lower a bill of materials or a power budget.
	nonNegative := func(kind, entry string, fields map[string]float64) {
		for _, f := range sortedKeys(fields) {
			if v := fields[f]; v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
				bad("%s: %s %q has %s = %g; it must be a finite number >= 0", name, kind, entry, f, v)
			}
		}
	}
	priceOf := func(p *float64) float64 {
		if p == nil {
			return 0
		}
		return *p
	}

	switches := map[string]SwitchModel{}
	for _, s := range doc.Switches {
		if s.Ports <= 0 || s.PortRateGbps <= 0 {
			bad("%s: switch_model %q needs ports > 0 and port_rate_gbps > 0", name, s.Name)
		}
		nonNegative("switch_model", s.Name, map[string]float64{"cages": float64(s.Cages), "units": float64(s.Units), "power_kw": s.PowerKW, "price": priceOf(s.Price)})
		switches[s.Name] = SwitchModel{
			Name: s.Name, Description: s.Description, SKU: s.SKU, Ports: s.Ports,
			Cages: orDefault(s.Cages, (s.Ports+1)/2), PortRateGbps: s.PortRateGbps,
			Units: orDefault(s.Units, 1), PowerKW: s.PowerKW, Managed: s.Managed,
			Price: price(s.Price, s.PriceSource),
		}
	}
	hcas := map[string]HCAModel{}
	for _, h := range doc.HCAs {
		if h.Ports <= 0 || h.PortRateGbps <= 0 {
			bad("%s: hca_model %q needs ports > 0 and port_rate_gbps > 0", name, h.Name)
		}
		nonNegative("hca_model", h.Name, map[string]float64{"price": priceOf(h.Price)})
		hcas[h.Name] = HCAModel{
			Name: h.Name, Description: h.Description, SKU: h.SKU, Ports: h.Ports,
			PortRateGbps: h.PortRateGbps, FormFactor: h.FormFactor, Price: price(h.Price, h.PriceSource),
		}
	}
	nodes := map[string]NodeModel{}
	for _, n := range doc.Nodes {
		if n.Units <= 0 || n.ComputeHCAs < 0 {
			bad("%s: node_model %q needs units > 0 and compute_hcas >= 0", name, n.Name)
		}
		nonNegative("node_model", n.Name, map[string]float64{"power_kw": n.PowerKW, "gpus": float64(n.GPUs), "price": priceOf(n.Price)})
		nodes[n.Name] = NodeModel{
			Name: n.Name, Description: n.Description, SKU: n.SKU, Units: n.Units, PowerKW: n.PowerKW,
			GPUs: n.GPUs, ComputeHCAs: n.ComputeHCAs, HCAModel: n.HCAModel,
			TwinPortCages: n.TwinPortCages, Price: price(n.Price, n.PriceSource),
		}
	}
	cables := map[string]Cable{}
	for _, k := range doc.Cables {
		if !validKind(k.Kind) {
			bad("%s: cable %q has kind %q; valid kinds: %s", name, k.Name, k.Kind, strings.Join(CableKinds, ", "))
		}
		if k.ReachM <= 0 || len(k.LengthsM) == 0 {
			bad("%s: cable %q needs reach_m > 0 and at least one length in lengths_m", name, k.Name)
		}
		nonNegative("cable", k.Name, map[string]float64{"links": float64(k.Links), "price": priceOf(k.Price)})
		for _, l := range k.LengthsM {
			if !(l > 0) || l > k.ReachM {
				bad("%s: cable %q lists length %g m; every length must be > 0 and at most reach_m (%g)", name, k.Name, l, k.ReachM)
				break
			}
		}
		lengths := append([]float64(nil), k.LengthsM...)
		sort.Float64s(lengths)
		ends := k.Ends
		if ends == "" {
			ends = EndsAny
		}
		cables[k.Name] = Cable{
			Name: k.Name, Description: k.Description, Kind: k.Kind, Ends: ends,
			Links: orDefault(k.Links, 1), LengthsM: lengths, ReachM: k.ReachM,
			Price: price(k.Price, k.PriceSource),
		}
	}
	xcvrs := map[string]Transceiver{}
	for _, t := range doc.Transceivers {
		if t.Media != KindFiberMM && t.Media != KindFiberSM {
			bad("%s: transceiver %q has media %q; valid: fiber-mm, fiber-sm", name, t.Name, t.Media)
		}
		if !(t.ReachM > 0) {
			bad("%s: transceiver %q needs reach_m > 0", name, t.Name)
		}
		nonNegative("transceiver", t.Name, map[string]float64{"links": float64(t.Links), "price": priceOf(t.Price)})
		xcvrs[t.Name] = Transceiver{
			Name: t.Name, Description: t.Description, SKU: t.SKU, Media: t.Media, End: t.End,
			Links: orDefault(t.Links, 1), ReachM: t.ReachM, Price: price(t.Price, t.PriceSource),
		}
	}
	for _, n := range nodes {
		if _, ok := hcas[n.HCAModel]; !ok {
			if _, ok := c.HCAs[n.HCAModel]; !ok {
				bad("%s: node_model %q names hca_model %q, which no catalog defines", name, n.Name, n.HCAModel)
			}
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("invalid catalog: %s", strings.Join(problems, "; "))
	}
	for k, v := range switches {
		c.Switches[k] = v
	}
	for k, v := range hcas {
		c.HCAs[k] = v
	}
	for k, v := range nodes {
		c.Nodes[k] = v
	}
	for k, v := range cables {
		c.Cables[k] = v
	}
	for k, v := range xcvrs {
		c.Transceivers[k] = v
	}
	return nil
}

func validKind(k string) bool {
	for _, v := range CableKinds {
		if v == k {
			return true
		}
	}
	return false
}

func diagError(diags hcl.Diagnostics) error {
	return fmt.Errorf("invalid catalog: %s", diags.Error())
}

// SwitchNames returns the switch model names, sorted, for error messages and validators.
func (c *Catalog) SwitchNames() []string { return sortedKeys(c.Switches) }

// NodeNames returns the node model names, sorted.
func (c *Catalog) NodeNames() []string { return sortedKeys(c.Nodes) }

// HCANames returns the HCA model names, sorted.
func (c *Catalog) HCANames() []string { return sortedKeys(c.HCAs) }

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Reach returns the longest run any cable of the kind supports, and false for an unknown kind.
func (c *Catalog) Reach(kind string) (float64, bool) {
	best, ok := 0.0, false
	for _, k := range c.Cables {
		if k.Kind == kind && k.ReachM > best {
			best, ok = k.ReachM, true
		}
	}
	return best, ok
}

// WidestSwitch is the switch model with the most ports (the first by name among equals), and
// false for a catalog without switches: no port above its last exists on any switch.
func (c *Catalog) WidestSwitch() (SwitchModel, bool) {
	var widest SwitchModel
	for _, name := range c.SwitchNames() {
		if s := c.Switches[name]; s.Ports > widest.Ports {
			widest = s
		}
	}
	return widest, widest.Ports > 0
}

// CableSKU is the part number of the cable of the kind for a run of lengthM metres between ends
// (CableFor). When none reaches, the error names the first kind the planner itself would pick
// that does (KindFor), as the fix most likely wanted.
func (c *Catalog) CableSKU(kind, ends string, lengthM float64) (string, error) {
	if k, l, ok := c.CableFor(kind, ends, lengthM); ok {
		return k.SKU(l), nil
	}
	longest, _ := c.ReachFor(kind, ends)
	what := fmt.Sprintf("no %q cable reaches %g m %s (the longest reaches %g m)", kind, lengthM, Between(ends), longest)
	if longest == 0 {
		what = fmt.Sprintf("the catalog has no %q cable %s", kind, Between(ends))
	}
	if k, _, ok := c.KindFor(ends, lengthM); ok {
		return "", fmt.Errorf("%s; use kind = %q, which does, or leave kind unset to let the fabric choose", what, k)
	}
	return "", fmt.Errorf("%s, and no other kind in the catalog does either; shorten the run", what)
}

// Between says what ends join, for messages: "between two switches", "between a switch and an
// HCA".
func Between(ends string) string {
	if ends == EndsSwitchSwitch {
		return "between two switches"
	}
	return "between a switch and an HCA"
}

// ReachFor returns the longest run a cable of the kind supports between ends, and false when the
// catalog has no cable of the kind for those ends. It is Reach for one link: the kinds' products
// differ by ends (NDR copper: the twin-port DAC between switches reaches 2 m, the splitter DAC to
// HCAs 3 m), and a kind can be sold for one pair of ends only.
func (c *Catalog) ReachFor(kind, ends string) (float64, bool) {
	best, ok := 0.0, false
	for _, k := range c.Cables {
		if k.Serves(kind, ends) && k.ReachM > best {
			best, ok = k.ReachM, true
		}
	}
	return best, ok
}

// KindFor is the kind the planner would pick first (PlannerKinds) for a run of lengthM metres
// between ends: the first the catalog can supply there (CableFor), with its reach between those
// ends; false when no kind can.
func (c *Catalog) KindFor(ends string, lengthM float64) (string, float64, bool) {
	for _, k := range PlannerKinds {
		if _, _, ok := c.CableFor(k, ends, lengthM); ok {
			r, _ := c.ReachFor(k, ends)
			return k, r, true
		}
	}
	return "", 0, false
}

// CableFor picks the cable product of the given kind for a run of lengthM metres: the product
// line whose reach covers it, and the shortest standard length at least lengthM. ends is
// EndsSwitchSwitch or EndsSwitchHCA; a product line for exactly those ends is preferred to EndsAny.
// It returns false when no product of that kind reaches. Reaches and lengths are the parts' LinkX
// documents' (e.g. MCP4Y10 passive copper 0.5-2 m, MFP7E10 multimode fibre to 50 m).
func (c *Catalog) CableFor(kind, ends string, lengthM float64) (Cable, float64, bool) {
	return c.cableFor(kind, ends, 0, lengthM)
}

// CableForCage is CableFor among the products that carry exactly links links: a copper cable
// plugged into a cage carries all its ports (a twin-port cable for a cage of 2, a quad for 4).
func (c *Catalog) CableForCage(kind, ends string, links int, lengthM float64) (Cable, float64, bool) {
	return c.cableFor(kind, ends, links, lengthM)
}

// cableFor is CableFor; links > 0 keeps the products that carry that many links.
func (c *Catalog) cableFor(kind, ends string, links int, lengthM float64) (Cable, float64, bool) {
	var best Cable
	bestLen, found := 0.0, false
	for _, name := range sortedKeys(c.Cables) {
		k := c.Cables[name]
		if !k.Serves(kind, ends) || k.ReachM < lengthM || (links > 0 && k.Links != links) {
			continue
		}
		l, ok := standardLength(k.LengthsM, lengthM)
		if !ok {
			continue
		}
		better := !found || (best.Ends == EndsAny && k.Ends != EndsAny) ||
			(best.Ends == k.Ends && l < bestLen)
		if better {
			best, bestLen, found = k, l, true
		}
	}
	return best, bestLen, found
}

// standardLength returns the shortest listed length >= want; lengths are sorted ascending. When
// the run is longer than every listed length but within reach (fiber cut to order), it returns
// the run rounded up to the metre.
func standardLength(lengths []float64, want float64) (float64, bool) {
	for _, l := range lengths {
		if l >= want {
			return l, true
		}
	}
	if len(lengths) == 0 {
		return 0, false
	}
	l := float64(int(want))
	if l < want {
		l++
	}
	return l, true
}

// SKU returns the orderable part number of a cable product at a length, e.g. "MFP7E10-N030".
// LinkX part numbers encode the length in metres as three digits with a trailing A for the half
// metre (MCP4Y10-N00A is 0.5 m, N01A 1.5 m); lengths of 10 m and more print as tens (N010, N050).
func (k Cable) SKU(lengthM float64) string {
	whole := int(lengthM)
	half := lengthM-float64(whole) >= 0.5
	if half {
		return fmt.Sprintf("%s%02dA", k.Name, whole)
	}
	return fmt.Sprintf("%s%03d", k.Name, whole)
}
