package provider

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/agext/levenshtein"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/topogen"
)

// The inputs of a fabric, shared by gpucluster_fabric and every data source that reads one
// (gpucluster_bom, gpucluster_discovered_fabric, gpucluster_opensm_files,
// gpucluster_scheduler_topology, gpucluster_diagram). A type that reads a fabric:
//
//  1. adds fabricInputAttributes() to its schema,
//  2. embeds fabricInputsModel in its model (`fabricInputsModel` with no tag),
//  3. is listed in bypass.go (bypassResources or bypassDataSources), and
//  4. calls readFabricGraph (or readFabricSpec), which read the config, or the request value
//     that withStashedLists chose (the fabric's plan and prior state).
//
// Through Wrap the model's input fields are null (bypass.go strips them); the reader takes the
// values from Wrap's stash, or from the model when the request did not go through Wrap.

// fabricInputNames are the input attributes, as Wrap strips them.
var fabricInputNames = []string{"design", "absent_cables", fabric.MapRacks, fabric.MapSwitches, fabric.MapNodes, fabric.MapHCAs, fabric.MapCables, fabric.MapPartitions}

// fabricInputsModel holds the inputs in a model; embed it. src, set by withStashedLists, says
// which request value the inputs are read from.
type fabricInputsModel struct {
	src    listSource
	srcSet bool

	Design       types.Object `tfsdk:"design"`
	AbsentCables types.List   `tfsdk:"absent_cables"`
	Racks        types.Map    `tfsdk:"racks"`
	Switches     types.Map    `tfsdk:"switches"`
	Nodes        types.Map    `tfsdk:"nodes"`
	HCAs         types.Map    `tfsdk:"hcas"`
	Cables       types.Map    `tfsdk:"cables"`
	Partitions   types.Map    `tfsdk:"partitions"`
}

func (m *fabricInputsModel) value(name string) attr.Value {
	switch name {
	case "design":
		return m.Design
	case "absent_cables":
		return m.AbsentCables
	case fabric.MapRacks:
		return m.Racks
	case fabric.MapSwitches:
		return m.Switches
	case fabric.MapNodes:
		return m.Nodes
	case fabric.MapHCAs:
		return m.HCAs
	case fabric.MapCables:
		return m.Cables
	default:
		return m.Partitions
	}
}

// withStashedLists returns a copy of m whose inputs are read (by buildFabric) from the request
// value src as Wrap stashed it. Use the copy only to read the inputs: never State.Set or
// Plan.Set it; the model written back keeps the null inputs the framework sent (Wrap restores
// them).
func withStashedLists(_ context.Context, src listSource, m *fabricModel, _ *diag.Diagnostics) *fabricModel {
	c := *m
	c.src, c.srcSet = src, true
	return &c
}

// fabricInputAttributes are the input attributes of the schema. They are resource schema
// attributes; a data source schema takes them as they are.
func fabricInputAttributes() map[string]schema.Attribute {
	attrs := map[string]schema.Attribute{
		"design": designSchema(),
		"absent_cables": schema.ListAttribute{
			Optional: true, ElementType: types.StringType,
			MarkdownDescription: "Links of the `design` that are not cabled (yet) or have failed, by a cable end label " +
				"(`leaf01:33`, `gpu001/mlx5_0:1`) or a full cable label (`<a.device>:<a.port> <-> <b.device>:<b.port>`, either " +
				"order). They are left out of the graph. An entry that matches no generated cable is an error that names the " +
				"generated cables nearby.",
		},
	}
	for _, s := range inventoryShapes {
		attrs[s.attrName()] = s.schemaAttribute()
	}
	return attrs
}

// inputValue returns the input name of the request source src: Wrap's stash, or the model's
// value when the request did not go through Wrap.
func inputValue(ctx context.Context, src listSource, name string, in *fabricInputsModel) tftypes.Value {
	if v, ok := stashedValue(ctx, src, name); ok {
		return v
	}
	av := in.value(name)
	if av == nil || av.IsNull() {
		return tftypes.NewValue(tftypes.DynamicPseudoType, nil)
	}
	if av.IsUnknown() {
		return tftypes.NewValue(tftypes.DynamicPseudoType, tftypes.UnknownValue)
	}
	v, err := av.ToTerraformValue(ctx)
	if err != nil {
		return tftypes.NewValue(tftypes.DynamicPseudoType, tftypes.UnknownValue)
	}
	return v
}

// hasFabricInputs reports whether the request declares any fabric (a design or any map).
func hasFabricInputs(ctx context.Context, src listSource, in *fabricInputsModel) bool {
	for _, name := range fabricInputNames {
		if name != "absent_cables" && !inputValue(ctx, src, name, in).IsNull() {
			return true
		}
	}
	return false
}

// readFabricSpec returns the fabric that the inputs describe (the config's, or those of the
// request value withStashedLists chose): the
// graph of `design` (topogen regenerates it from the normalized design), less `absent_cables`,
// merged by name with the items of the maps (an item of a generated name replaces the generated
// one, a new name adds). Missing values and refusals are attribute errors. unknown is true when a
// value the graph depends on is not known yet (spec is then nil).
func readFabricSpec(ctx context.Context, cat *catalog.Catalog, in *fabricInputsModel) (spec *fabric.Spec, unknown bool, diags diag.Diagnostics) {
	src := fromConfig
	if in.srcSet {
		src = in.src
	}
	r := specReader{}
	explicit := &fabric.Spec{
		Racks:      rackShape.decodeMap(&r, inputValue(ctx, src, fabric.MapRacks, in)),
		Switches:   switchShape.decodeMap(&r, inputValue(ctx, src, fabric.MapSwitches, in)),
		Nodes:      nodeShape.decodeMap(&r, inputValue(ctx, src, fabric.MapNodes, in)),
		HCAs:       hcaShape.decodeMap(&r, inputValue(ctx, src, fabric.MapHCAs, in)),
		Cables:     cableShape.decodeMap(&r, inputValue(ctx, src, fabric.MapCables, in)),
		Partitions: partitionShape.decodeMap(&r, inputValue(ctx, src, fabric.MapPartitions, in)),
	}
	absent := r.stringList(inputValue(ctx, src, "absent_cables", in))
	dv := inputValue(ctx, src, "design", in)
	if dv.IsNull() {
		if len(absent) > 0 {
			r.diags.AddAttributeError(path.Root("absent_cables"), "absent_cables without a design",
				"absent_cables names links of the generated design; without `design` there is none. Leave the cable out of `cables` instead.")
		}
		if r.unknown || r.diags.HasError() {
			return nil, r.unknown, r.diags
		}
		return explicit, false, r.diags
	}
	p := r.decodeDesign(dv)
	if r.unknown || r.diags.HasError() {
		return nil, r.unknown, r.diags
	}
	des, err := topogen.Generate(p, cat)
	if err != nil {
		addDesignError(&r.diags, err)
		return nil, false, r.diags
	}
	gen := des.FabricSpec()
	removeAbsent(gen, absent, &r.diags)
	if r.diags.HasError() {
		return nil, false, r.diags
	}
	mergeSpec(gen, explicit)
	return gen, false, r.diags
}

// readFabricGraph is readFabricSpec of the config (or of the source withStashedLists chose) and
// fabric.Build, with the build's problems as diagnostics on the attributes at fault. The graph is
// nil while the inputs are unknown or when they hold errors.
func readFabricGraph(ctx context.Context, cat *catalog.Catalog, in *fabricInputsModel) (g *fabric.Graph, unknown bool, diags diag.Diagnostics) {
	spec, unknown, diags := readFabricSpec(ctx, cat, in)
	if spec == nil || diags.HasError() {
		return nil, unknown, diags
	}
	g, problems := fabric.Build(spec, cat)
	addProblems(&diags, problems)
	if diags.HasError() {
		return nil, false, diags
	}
	return g, false, diags
}

// addProblems reports the build's problems on their attributes.
func addProblems(diags *diag.Diagnostics, problems []fabric.Problem) {
	for _, p := range problems {
		// Terraform points at a map element, not deeper: the detail names the whole path.
		pp := problemPath(p.Path)
		if p.Severity == fabric.Warning {
			diags.AddAttributeWarning(shownPath(pp), "Fabric: "+p.Rule, withPath(pp, problemDetail(p)))
		} else {
			diags.AddAttributeError(shownPath(pp), "Fabric: "+p.Rule, withPath(pp, problemDetail(p)))
		}
	}
}

// problemDetail adds, for a generated element, which element the problem is in (the path
// points at the design argument).
func problemDetail(p fabric.Problem) string {
	if p.Path.Design == "" {
		return p.Message
	}
	return p.Message + "\n\n(in the generated " + p.Path.Element() + ")"
}

func (r *specReader) stringList(v tftypes.Value) []string {
	if v.IsNull() {
		return nil
	}
	if !v.IsKnown() {
		r.unknown = true
		return nil
	}
	var l []tftypes.Value
	if v.As(&l) != nil {
		return nil
	}
	out := make([]string, len(l))
	for i, e := range l {
		if !e.IsKnown() {
			r.unknown = true
			continue
		}
		if !e.IsNull() {
			_ = e.As(&out[i])
		}
	}
	return out
}

// mergeSpec merges the explicit items into the generated spec by name: an item whose name the
// design generated replaces that item (keeping its place), any other is added.
func mergeSpec(gen, explicit *fabric.Spec) {
	gen.Racks = mergeByName(gen.Racks, explicit.Racks, func(r *fabric.Rack) string { return r.Name })
	gen.Switches = mergeByName(gen.Switches, explicit.Switches, func(s *fabric.Switch) string { return s.Name })
	gen.Nodes = mergeByName(gen.Nodes, explicit.Nodes, func(n *fabric.Node) string { return n.Name })
	gen.HCAs = mergeByName(gen.HCAs, explicit.HCAs, func(h *fabric.HCA) string { return h.Name })
	gen.Cables = mergeByName(gen.Cables, explicit.Cables, func(c *fabric.Cable) string { return c.Key })
	gen.Partitions = mergeByName(gen.Partitions, explicit.Partitions, func(p *fabric.Partition) string { return p.Name })
}

func mergeByName[T any](gen, explicit []T, name func(*T) string) []T {
	if len(explicit) == 0 {
		return gen
	}
	at := make(map[string]int, len(gen))
	for i := range gen {
		at[name(&gen[i])] = i
	}
	for i := range explicit {
		if j, ok := at[name(&explicit[i])]; ok {
			gen[j] = explicit[i]
		} else {
			gen = append(gen, explicit[i])
		}
	}
	return gen
}

// removeAbsent takes the generated cables that absent names out of spec. An entry is a cable end
// label ("leaf01:33") or a full label ("a:1 <-> b:2", either order); one that matches no
// generated cable is an error on its index naming the generated cables nearby.
func removeAbsent(spec *fabric.Spec, absent []string, diags *diag.Diagnostics) {
	if len(absent) == 0 {
		return
	}
	byEnd := make(map[string]int, 2*len(spec.Cables))
	byLabel := make(map[string]int, len(spec.Cables))
	for i := range spec.Cables {
		c := &spec.Cables[i]
		byEnd[c.A.String()], byEnd[c.B.String()] = i, i
		byLabel[c.A.String()+" <-> "+c.B.String()], byLabel[c.B.String()+" <-> "+c.A.String()] = i, i
	}
	drop := make([]bool, len(spec.Cables))
	for k, entry := range absent {
		p := path.Root("absent_cables").AtListIndex(k)
		var i int
		var ok bool
		if left, right, full := strings.Cut(entry, "<->"); full {
			a, b := strings.TrimSpace(left), strings.TrimSpace(right)
			i, ok = byLabel[a+" <-> "+b]
			if !ok {
				diags.AddAttributeError(p, "No such generated cable", fmt.Sprintf("%q is not a cable of the design. %s", entry, nearbyCables(spec, a, b)))
				continue
			}
		} else {
			e := strings.TrimSpace(entry)
			i, ok = byEnd[e]
			if !ok {
				diags.AddAttributeError(p, "No such generated cable", fmt.Sprintf("no cable of the design ends at %q. %s", entry, nearbyCables(spec, e)))
				continue
			}
		}
		drop[i] = true
	}
	kept := spec.Cables[:0]
	for i, c := range spec.Cables {
		if !drop[i] {
			kept = append(kept, c)
		}
	}
	spec.Cables = kept
}

// nearbyCables names the generated cables closest to the ends asked for: those of the same
// device on the nearest ports, or, for a device the design lacks, the nearest device names.
func nearbyCables(spec *fabric.Spec, ends ...string) string {
	var out []string
	for _, e := range ends {
		dev, portStr, ok := cutLast(e, ":")
		port, err := strconv.Atoi(portStr)
		if !ok || err != nil {
			out = append(out, fmt.Sprintf("%q is not a cable end label: write <device>:<port>, e.g. \"leaf01:33\".", e))
			continue
		}
		type cand struct {
			label string
			dist  int
		}
		var cands []cand
		devices := map[string]bool{}
		for i := range spec.Cables {
			c := &spec.Cables[i]
			for _, end := range []fabric.End{c.A, c.B} {
				devices[end.Device] = true
				if end.Device == dev {
					cands = append(cands, cand{c.Label(), abs(end.Port - port)})
				}
			}
		}
		if len(cands) > 0 {
			sort.Slice(cands, func(i, j int) bool {
				if cands[i].dist != cands[j].dist {
					return cands[i].dist < cands[j].dist
				}
				return cands[i].label < cands[j].label
			})
			var ls []string
			for i := 0; i < len(cands) && i < 4; i++ {
				ls = append(ls, strconv.Quote(cands[i].label))
			}
			out = append(out, fmt.Sprintf("Generated cables of %s nearest port %d: %s.", dev, port, strings.Join(ls, ", ")))
			continue
		}
		names := make([]string, 0, len(devices))
		for d := range devices {
			names = append(names, d)
		}
		sort.Slice(names, func(i, j int) bool {
			di, dj := levenshtein.Distance(names[i], dev, nil), levenshtein.Distance(names[j], dev, nil)
			if di != dj {
				return di < dj
			}
			return names[i] < names[j]
		})
		if len(names) > 4 {
			names = names[:4]
		}
		out = append(out, fmt.Sprintf("The design has no device %q; nearest names: %s.", dev, quoteAll(names)))
	}
	return strings.Join(out, " ")
}

func cutLast(s, sep string) (before, after string, ok bool) {
	i := strings.LastIndex(s, sep)
	if i < 0 {
		return s, "", false
	}
	return s[:i], s[i+len(sep):], true
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

func quoteAll(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = strconv.Quote(s)
	}
	return strings.Join(q, ", ")
}
