package provider

import (
	"context"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/plan"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/topogen"
	"github.com/gpucluster/terraform-provider-gpucluster/provider/tfwire"
)

// fillAll sets every field of t the shape knows to a value that is not its unset value.
func fillAll[T any](s *shape[T], t *T) {
	for i := range s.fields {
		f := &s.fields[i]
		switch f.kind {
		case kString:
			*f.str(t) = "v-" + f.name
		case kInt:
			*f.num(t) = 7 + i
		case kFloat:
			*f.flt(t) = 2.5
		case kBool:
			*f.bl(t) = true
		case kEnd:
			*f.end(t) = fabric.End{Device: "dev-" + f.name, Port: 3 + i}
		case kMembers:
			*f.mem(t) = []fabric.Member{{HCA: "gpu001/mlx5_0", Membership: "full"}, {GUID: "ALL", Membership: "limited"}}
		}
	}
}

// roundTrip checks one shape: every field of the fabric struct (but Ref) is in the table; the
// encoded value has the object type the schema declares; decoding gives back what was encoded.
func roundTrip[T any](t *testing.T, s *shape[T]) {
	t.Helper()
	var want T
	fillAll(s, &want)
	rv := reflect.ValueOf(want)
	for i := 0; i < rv.NumField(); i++ {
		if name := rv.Type().Field(i).Name; name != "Ref" && rv.Field(i).IsZero() {
			t.Errorf("%s: field %s of %T is in no row of the table", s.attr, name, want)
		}
	}
	typ := tfTypeOf(s.objectType())
	v := s.encode(typ, &want)
	if !v.Type().Equal(typ) {
		t.Errorf("%s: encoded type %s, want %s", s.attr, v.Type(), typ)
	}
	sch := s.schemaAttribute()
	if st := sch.GetType().TerraformType(context.Background()); !st.Equal(tftypes.Map{ElementType: typ}) {
		t.Errorf("%s: schema type %s, want a map of %s", s.attr, st, typ)
	}
	r := specReader{}
	got := s.decodeMap(&r, tftypes.NewValue(tftypes.Map{ElementType: typ}, map[string]tftypes.Value{"k1": v}))
	if r.diags.HasError() || r.unknown || len(got) != 1 {
		t.Fatalf("%s: decode: %v unknown=%v n=%d", s.attr, r.diags, r.unknown, len(got))
	}
	*s.ref(&want) = fabric.Ref{Key: "k1"}
	if !reflect.DeepEqual(got[0], want) {
		t.Errorf("%s: round trip\n got %+v\nwant %+v", s.attr, got[0], want)
	}
	// Null everywhere: required fields are reported on the element's key.
	nulls := map[string]tftypes.Value{}
	for name, at := range typ.AttributeTypes {
		nulls[name] = tftypes.NewValue(at, nil)
	}
	r = specReader{}
	s.decodeMap(&r, tftypes.NewValue(tftypes.Map{ElementType: typ}, map[string]tftypes.Value{"k2": tftypes.NewValue(typ, nulls)}))
	for i := range s.fields {
		f := &s.fields[i]
		if !f.required {
			continue
		}
		found := false
		for _, d := range r.diags {
			if strings.Contains(d.Detail(), f.name+" is required") {
				found = true
			}
		}
		if !found {
			t.Errorf("%s: a null required %s is not reported: %v", s.attr, f.name, r.diags)
		}
	}
}

func TestInventoryShapesRoundTrip(t *testing.T) {
	roundTrip(t, rackShape)
	roundTrip(t, switchShape)
	roundTrip(t, nodeShape)
	roundTrip(t, hcaShape)
	roundTrip(t, cableShape)
	roundTrip(t, partitionShape)
}

// fits reports whether a value of type from converts to want with nothing lost that want
// declares: Terraform drops the extra attributes of from's objects (go-cty conversion).
func fits(from, want tftypes.Type) bool {
	switch w := want.(type) {
	case tftypes.Object:
		f, ok := from.(tftypes.Object)
		if !ok {
			return false
		}
		for name, at := range w.AttributeTypes {
			ft, ok := f.AttributeTypes[name]
			if !ok || !fits(ft, at) {
				return false
			}
		}
		return true
	case tftypes.List:
		f, ok := from.(tftypes.List)
		return ok && fits(f.ElementType, w.ElementType)
	case tftypes.Map:
		f, ok := from.(tftypes.Map)
		return ok && fits(f.ElementType, w.ElementType)
	default:
		return from.Equal(want)
	}
}

// TestInventoryFitsResourcesAndTopology: `switches = gpucluster_switch.all` and `switches =
// data.gpucluster_topology.x.switches` both fit the fabric's map as they are, and the data
// sources that read a fabric take the same inputs as the fabric. The resources' attributes are
// their shape's rows (resourceAttributes), so what the resource half still catches is a row with
// no resource rules, which would leave the resource without an attribute the map's element has.
func TestInventoryFitsResourcesAndTopology(t *testing.T) {
	fw := providerserver.NewProtocol6(New("test")())()
	resp, err := fw.GetProviderSchema(t.Context(), &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	fab := as[tftypes.Object](t, resp.ResourceSchemas["gpucluster_fabric"].ValueType())
	topo := as[tftypes.Object](t, resp.DataSourceSchemas["gpucluster_topology"].ValueType())
	resources := map[string]string{
		"racks": "gpucluster_rack", "switches": "gpucluster_switch", "nodes": "gpucluster_node",
		"hcas": "gpucluster_hca", "cables": "gpucluster_cable", "partitions": "gpucluster_partition",
	}
	for m, res := range resources {
		elem := as[tftypes.Map](t, fab.AttributeTypes[m]).ElementType
		rt := resp.ResourceSchemas[res].ValueType()
		if !fits(rt, elem) {
			t.Errorf("%s: a %s object does not fit the fabric's map element %s", m, res, elem)
		}
		if tt, ok := topo.AttributeTypes[m]; ok && !tt.Equal(fab.AttributeTypes[m]) {
			t.Errorf("%s: gpucluster_topology's map %s is not the fabric's %s", m, tt, fab.AttributeTypes[m])
		}
	}
	if !topo.AttributeTypes["design"].Equal(fab.AttributeTypes["design"]) {
		t.Errorf("design: the topology's %s is not the fabric's %s", topo.AttributeTypes["design"], fab.AttributeTypes["design"])
	}
	for name := range bypassDataSources {
		ds, ok := resp.DataSourceSchemas[name]
		if !ok || name == "gpucluster_topology" {
			continue // not written yet; the topology is listed for its as_built floor, not a fabric's inputs
		}
		dt := as[tftypes.Object](t, ds.ValueType())
		for _, in := range fabricInputNames {
			if at, ok := dt.AttributeTypes[in]; !ok || !at.Equal(fab.AttributeTypes[in]) {
				t.Errorf("%s: input %s is %v, not the fabric's %s", name, in, at, fab.AttributeTypes[in])
			}
		}
	}
}

// TestInputsCarryNoFrameworkBehaviour: tfwire keeps the inputs away from the framework, which
// would silently skip any validator, default or plan modifier declared in them; nothing in them
// may be Required (framework issue 186) or Computed (Wrap plans them as configured).
func TestInputsCarryNoFrameworkBehaviour(t *testing.T) {
	var walk func(p string, a schema.Attribute)
	walk = func(p string, a schema.Attribute) {
		v := reflect.ValueOf(a)
		for _, f := range []string{"Validators", "PlanModifiers"} {
			if fv := v.FieldByName(f); fv.IsValid() && fv.Len() > 0 {
				t.Errorf("%s has %s: the bypass would skip them; check in the decoder or fabric.Build instead", p, f)
			}
		}
		if fv := v.FieldByName("Default"); fv.IsValid() && !fv.IsNil() {
			t.Errorf("%s has a Default: the bypass would skip it; default in the decoder's fill instead", p)
		}
		if a.IsRequired() || a.IsComputed() || !a.IsOptional() {
			t.Errorf("%s must be Optional only (required %v, computed %v)", p, a.IsRequired(), a.IsComputed())
		}
		if a.IsSensitive() || a.IsWriteOnly() {
			t.Errorf("%s is sensitive or write-only, which the bypass does not handle", p)
		}
		children := map[string]schema.Attribute{}
		if fv := v.FieldByName("Attributes"); fv.IsValid() {
			for k, c := range as[map[string]schema.Attribute](t, fv.Interface()) {
				children[k] = c
			}
		}
		if fv := v.FieldByName("NestedObject"); fv.IsValid() {
			no := as[schema.NestedAttributeObject](t, fv.Interface())
			for k, c := range no.Attributes {
				children[k] = c
			}
			if len(no.Validators) > 0 || len(no.PlanModifiers) > 0 {
				t.Errorf("%s's nested object has validators or plan modifiers", p)
			}
		}
		for k, c := range children {
			walk(p+"."+k, c)
		}
	}
	attrs := fabricInputAttributes()
	names := make([]string, 0, len(attrs))
	for k := range attrs {
		names = append(names, k)
	}
	sort.Strings(names)
	if !reflect.DeepEqual(names, sortedCopy(fabricInputNames)) {
		t.Errorf("input attributes %v, but Wrap strips %v", names, fabricInputNames)
	}
	for _, k := range names {
		walk(k, attrs[k])
	}
}

func sortedCopy(ss []string) []string {
	out := append([]string(nil), ss...)
	sort.Strings(out)
	return out
}

// stashCtx is a request context as Wrap makes it, with the inputs of the config.
func stashCtx(inputs map[string]tftypes.Value) context.Context {
	return tfwire.WithStashed(context.Background(), tfwire.FromConfig, inputs)
}

// topologyInputs returns gpucluster_topology's outputs for p (design and maps), as the fabric
// would receive them.
func topologyInputs(t *testing.T, p topogen.Params) (*topogen.Design, map[string]tftypes.Value) {
	t.Helper()
	des := generate(t, p)
	return des, topologyOutputs(des, nil, noFloor, allItems())
}

// TestFabricGetsTheTopologysGraph: given the topology's `design`, or its maps, the fabric reads
// exactly the graph the data source describes.
func TestFabricGetsTheTopologysGraph(t *testing.T) {
	cat := catalog.Default()
	for name, p := range map[string]topogen.Params{
		"rail-optimized": {Kind: topogen.KindRailOptimized, ScalableUnits: 2, PlannedScalableUnits: 4, ReservedNodeSlots: 1},
		"fat-tree":       {Kind: topogen.KindFatTree, Nodes: 40, PlannedNodes: 100},
		"dragonfly+":     {Kind: topogen.KindDragonflyPlus, Groups: 3},
		"torus":          {Kind: topogen.KindTorus3D, TorusDims: [3]int{2, 2, 3}},
	} {
		t.Run(name, func(t *testing.T) {
			des, out := topologyInputs(t, p)
			want := des.FabricSpec()

			byDesign, diags := buildSpec(stashCtx(map[string]tftypes.Value{"design": out["design"]}), cat)
			if diags.HasError() || byDesign == nil {
				t.Fatalf("design: %v", diags)
			}
			// The spec carries the generator's groups (the scheduler's blocks, the diagram's
			// folds): every switch and node of the design is in the group that lists it.
			for _, g := range des.Groups {
				for n := range g.Switches {
					if byDesign.Groups[n] != g.Name {
						t.Fatalf("switch %s is in group %q, want %q", n, byDesign.Groups[n], g.Name)
					}
				}
				for n := range g.Nodes {
					if byDesign.Groups[n] != g.Name {
						t.Fatalf("node %s is in group %q, want %q", n, byDesign.Groups[n], g.Name)
					}
				}
			}
			if !reflect.DeepEqual(byDesign, want) {
				t.Error("the fabric's graph from the design differs from the topology's")
			}

			maps := map[string]tftypes.Value{}
			for _, m := range []string{"racks", "switches", "nodes", "hcas", "cables"} {
				maps[m] = out[m]
			}
			byMaps, diags := buildSpec(stashCtx(maps), cat)
			if diags.HasError() || byMaps == nil {
				t.Fatalf("maps: %v", diags)
			}
			gd, pd := fabric.Build(byDesign, cat)
			gm, pm := fabric.Build(byMaps, cat)
			if fabric.HasErrors(pd) || fabric.HasErrors(pm) {
				t.Fatalf("problems: %v %v", pd, pm)
			}
			if a, b := linkSet(gd), linkSet(gm); !reflect.DeepEqual(a, b) || len(gd.Devices) != len(gm.Devices) {
				t.Errorf("the graph from the maps differs from the design's: %d/%d devices, %d/%d links", len(gm.Devices), len(gd.Devices), len(b), len(a))
			}
		})
	}
}

func linkSet(g *fabric.Graph) []string {
	var out []string
	for _, l := range g.Links {
		a, b := g.Devices[l.A].Name, g.Devices[l.B].Name
		out = append(out, a+"<->"+b)
	}
	sort.Strings(out)
	return out
}

// TestReadFabricMergeAndAbsent: explicit items merge with the design by name, absent cables
// leave the graph, and a wrong entry names the generated cables nearby.
func TestReadFabricMergeAndAbsent(t *testing.T) {
	cat := catalog.Default()
	des, out := topologyInputs(t, topogen.Params{Kind: topogen.KindFatTree, Nodes: 16})
	gen := des.FabricSpec()
	str := func(s string) tftypes.Value { return tftypes.NewValue(tftypes.String, s) }
	list := func(ss ...string) tftypes.Value {
		var vs []tftypes.Value
		for _, s := range ss {
			vs = append(vs, str(s))
		}
		return tftypes.NewValue(tftypes.List{ElementType: tftypes.String}, vs)
	}
	leaf := gen.Switches[0]
	replaced := leaf
	replaced.GUID, replaced.Ref = "0x00000000000000aa", fabric.Ref{}
	sw := tftypes.NewValue(tftypes.Map{ElementType: tfSwitchObj}, map[string]tftypes.Value{
		leaf.Name: switchShape.encode(tfSwitchObj, &replaced),
		"spare01": switchShape.encode(tfSwitchObj, &fabric.Switch{Model: "QM9700"}),
	})
	c0 := gen.Cables[0]
	full := gen.Cables[1]
	inputs := map[string]tftypes.Value{
		"design":        out["design"],
		"switches":      sw,
		"absent_cables": list(c0.A.String(), full.B.String()+" <-> "+full.A.String()),
	}
	spec, diags := buildSpec(stashCtx(inputs), cat)
	if diags.HasError() || spec == nil {
		t.Fatal(diags)
	}
	if len(spec.Switches) != len(gen.Switches)+1 || spec.Switches[0].GUID != replaced.GUID || spec.Switches[0].Origin != "" {
		t.Errorf("merge: %d switches (want %d), first %+v", len(spec.Switches), len(gen.Switches)+1, spec.Switches[0])
	}
	if last := spec.Switches[len(spec.Switches)-1]; last.Name != "spare01" || last.Key != "spare01" {
		t.Errorf("the added switch is %+v, want spare01 named from its key", last)
	}
	if len(spec.Cables) != len(gen.Cables)-2 {
		t.Errorf("%d cables, want %d: two absent", len(spec.Cables), len(gen.Cables)-2)
	}
	for _, c := range spec.Cables {
		if c.Key == c0.Key || c.Key == full.Key {
			t.Errorf("absent cable %s still in the graph", c.Key)
		}
	}

	inputs["absent_cables"] = list(c0.A.String(), "leaf01:99", "laef01:3")
	_, diags = buildSpec(stashCtx(inputs), cat)
	var got []string
	for _, d := range diags.Errors() {
		got = append(got, d.Detail())
	}
	if len(got) != 2 || !strings.Contains(got[0], `Generated cables of leaf01 nearest port 99: "leaf01:`) ||
		!strings.Contains(got[1], `no device "laef01"; nearest names: "leaf01"`) {
		t.Errorf("errors %q", got)
	}
	for i, d := range diags.Errors() {
		wd := as[diag.DiagnosticWithPath](t, d)
		if want := "absent_cables[" + []string{"1", "2"}[i] + "]"; wd.Path().String() != want {
			t.Errorf("error on %s, want %s", wd.Path(), want)
		}
	}
}

// buildSpec decodes the inputs of ctx's stash and builds them with the plan pipeline: the spec
// the graph was built from, nil when the inputs hold an error.
func buildSpec(ctx context.Context, cat *catalog.Catalog) (*fabric.Spec, diag.Diagnostics) {
	f, _, diags := readFabric(ctx, cat, &fabricInputsModel{}, true)
	if f == nil {
		return nil, diags
	}
	return f.Spec, diags
}

// TestDiagPath: a problem's location becomes the framework path of the same attribute.
func TestDiagPath(t *testing.T) {
	cases := []struct {
		at   plan.Loc
		want path.Path
	}{
		{plan.Attr("switches").Key("leaf01").Attr("guid"), path.Root("switches").AtMapKey("leaf01").AtName("guid")},
		{plan.Attr("partitions").Key("p").Attr("members").Index(3).Attr("hca"), path.Root("partitions").AtMapKey("p").AtName("members").AtListIndex(3).AtName("hca")},
		{plan.Attr("design", "switch_model"), path.Root("design").AtName("switch_model")},
		{plan.Attr("subnet_manager", "options").Key("qos"), path.Root("subnet_manager").AtName("options").AtMapKey("qos")},
		{plan.Loc{}, path.Empty()},
	}
	for _, c := range cases {
		if got := diagPath(c.at); !got.Equal(c.want) || got.String() != c.at.String() {
			t.Errorf("diagPath(%s) = %s, want %s (and the same text)", c.at, got, c.want)
		}
	}
}

// TestGarbageIsCappedPerCause: 10,000 cables between devices that do not exist (found by the
// graph builder), and 10,000 without their `b` end (found by the decoder), plan as a handful of
// diagnostics per cause, each cause counting what it leaves out; before, the first case alone was
// 20,000 errors, which Terraform renders in quadratic time.
func TestGarbageIsCappedPerCause(t *testing.T) {
	cat := catalog.Default()
	for name, withB := range map[string]bool{"unknown devices": true, "no b end": false} {
		t.Run(name, func(t *testing.T) {
			end := func(dev string) tftypes.Value {
				return tftypes.NewValue(tfEndObj, map[string]tftypes.Value{"device": tftypes.NewValue(tftypes.String, dev), "port": tftypes.NewValue(tftypes.Number, 1)})
			}
			cables := map[string]tftypes.Value{}
			for i := 0; i < 10000; i++ {
				c := map[string]tftypes.Value{"a": end(fmt.Sprintf("nowhere%05d", i))}
				if withB {
					c["b"] = end(fmt.Sprintf("elsewhere%05d", i))
				}
				for k, a := range tfCableObj.AttributeTypes {
					if _, ok := c[k]; !ok {
						c[k] = tftypes.NewValue(a, nil)
					}
				}
				cables[fmt.Sprintf("c%05d", i)] = tftypes.NewValue(tfCableObj, c)
			}
			_, diags := buildSpec(stashCtx(map[string]tftypes.Value{"cables": tftypes.NewValue(tftypes.Map{ElementType: tfCableObj}, cables)}), cat)
			if !diags.HasError() {
				t.Fatal("garbage planned clean")
			}
			causes := map[string]int{}
			for _, d := range diags {
				causes[d.Summary()]++
			}
			if len(diags) > 4*(plan.MaxPerCause+1) {
				t.Errorf("%d diagnostics for %d causes: %v", len(diags), len(causes), causes)
			}
			last := diags[len(diags)-1]
			if !strings.Contains(last.Detail(), "more problems of this kind are not shown, at cables[") {
				t.Errorf("the last diagnostic does not count what was cut: %s: %s", last.Summary(), last.Detail())
			}
			// Terraform shows the resource, not the element: each shown error names its cable.
			if !withB && !strings.Contains(diags[0].Detail(), `b is required for every element of cables, and cables["c0`) {
				t.Errorf("the first missing-b error does not name its cable: %s", diags[0].Detail())
			}
		})
	}
}
