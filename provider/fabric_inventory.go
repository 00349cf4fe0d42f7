package provider

import (
	"context"
	"fmt"
	"math/big"
	"sort"
	"strings"
	"sync"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64default"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
	"github.com/gpucluster/terraform-provider-gpucluster/provider/tfwire"
)

// One table per inventory shape (rack, switch, node, hca, cable, partition). Each field of a
// table names the Terraform attribute, its description, its kind and the fabric.X field it maps
// to; from the table come the fabric's nested attributes (schemaAttribute), the object type
// (objectType: also the element type of gpucluster_topology's maps), the decoder (a Terraform
// object -> fabric.X) and the encoder (fabric.X -> the Terraform object gpucluster_topology
// returns), the MessagePack writer (fabric_inventory_msgpack.go, through tfwire.Object) and,
// for a row marked withResource, the attribute of the shape's own resource (gpucluster_rack and
// gpucluster_switch take their declared attributes from rackShape and switchShape;
// inventory_resource_attr.go). A shape is written once, so schema, types, decoder and encoders
// cannot drift apart (TestInventoryShapesRoundTrip checks that they do not).
//
// The nested attributes are all Optional, without validators, defaults or plan modifiers:
// Terraform validates map elements as unknown objects first and the framework would report
// Required children as missing (terraform-plugin-framework issue 186), and tfwire keeps the
// maps away from the framework, which would not run them anyway. Presence is checked by the
// decoder (required), every other check by fabric.Build and the checks behind it.

type fieldKind uint8

const (
	kString fieldKind = iota
	kInt
	kFloat
	kBool
	kEnd     // a cable end object { device, port }
	kMembers // a partition's list of { hca, guid, membership }
)

// field is one attribute of a shape. Exactly one accessor matches kind. Unset values map to null
// in both directions: "" for strings, unset for ints, 0 for floats.
type field[T any] struct {
	name, desc string
	kind       fieldKind
	required   bool
	unset      int // kInt: the value null decodes to and encodes from (0, or -1 for a rail)
	str        func(*T) *string
	num        func(*T) *int
	flt        func(*T) *float64
	bl         func(*T) *bool
	end        func(*T) *fabric.End
	mem        func(*T) *[]fabric.Member
	res        *resAttr // the same attribute in the resource of the shape (gpucluster_switch), if any
}

func fStr[T any](name, desc string, required bool, acc func(*T) *string) field[T] {
	return field[T]{name: name, desc: desc, kind: kString, required: required, str: acc}
}

func fInt[T any](name, desc string, required bool, unset int, acc func(*T) *int) field[T] {
	return field[T]{name: name, desc: desc, kind: kInt, required: required, unset: unset, num: acc}
}

func fFloat[T any](name, desc string, acc func(*T) *float64) field[T] {
	return field[T]{name: name, desc: desc, kind: kFloat, flt: acc}
}

// shape is the table of one inventory map.
type shape[T any] struct {
	attr   string // the map attribute: "switches"
	desc   string
	fields []field[T]
	ref    func(*T) *fabric.Ref
	// fill completes a decoded element: its name from its key when unset, defaults.
	fill func(t *T, key string)

	wireOnce sync.Once
	wire     *tfwire.Object[T] // appendObject's writer, made from fields
}

// inventoryShape is what the schema builder and the tests need of a shape, whatever its T.
type inventoryShape interface {
	attrName() string
	schemaAttribute() schema.MapNestedAttribute
	objectType() types.ObjectType
}

func (s *shape[T]) attrName() string { return s.attr }

var (
	endAttrTypes    = map[string]attr.Type{"device": types.StringType, "port": types.Int64Type}
	endObjectType   = types.ObjectType{AttrTypes: endAttrTypes}
	memberAttrTypes = map[string]attr.Type{"hca": types.StringType, "guid": types.StringType, "membership": types.StringType}
	memberObjType   = types.ObjectType{AttrTypes: memberAttrTypes}
	membersListType = types.ListType{ElemType: memberObjType}
)

func (f *field[T]) attrType() attr.Type {
	switch f.kind {
	case kString:
		return types.StringType
	case kInt:
		return types.Int64Type
	case kFloat:
		return types.Float64Type
	case kBool:
		return types.BoolType
	case kEnd:
		return endObjectType
	default:
		return membersListType
	}
}

func (f *field[T]) schemaAttr() schema.Attribute {
	// Required fields are Optional in the schema (see above) and checked by the decoder; the
	// description says so, and the docs show it.
	desc := f.desc
	if f.required {
		desc = "Required. " + desc
	}
	switch f.kind {
	case kString:
		return schema.StringAttribute{Optional: true, MarkdownDescription: desc}
	case kInt:
		return schema.Int64Attribute{Optional: true, MarkdownDescription: desc}
	case kFloat:
		return schema.Float64Attribute{Optional: true, MarkdownDescription: desc}
	case kBool:
		return schema.BoolAttribute{Optional: true, MarkdownDescription: desc}
	case kEnd:
		return schema.SingleNestedAttribute{Optional: true, MarkdownDescription: desc, Attributes: map[string]schema.Attribute{
			"device": schema.StringAttribute{Optional: true, MarkdownDescription: "Required. Switch name or HCA name (`<node>/<device>`)."},
			"port":   schema.Int64Attribute{Optional: true, MarkdownDescription: "Required. 1-based port number."},
		}}
	default:
		return schema.ListNestedAttribute{Optional: true, MarkdownDescription: desc, NestedObject: schema.NestedAttributeObject{
			Attributes: map[string]schema.Attribute{
				"hca":        schema.StringAttribute{Optional: true, MarkdownDescription: "HCA name."},
				"guid":       schema.StringAttribute{Optional: true, MarkdownDescription: "Port GUID or OpenSM keyword (`ALL`, `ALL_CAS`, `ALL_SWITCHES`, `SELF`)."},
				"membership": schema.StringAttribute{Optional: true, MarkdownDescription: "`full` (default) or `limited`."},
			},
		}}
	}
}

func (s *shape[T]) objectType() types.ObjectType {
	at := make(map[string]attr.Type, len(s.fields))
	for i := range s.fields {
		at[s.fields[i].name] = s.fields[i].attrType()
	}
	return types.ObjectType{AttrTypes: at}
}

func (s *shape[T]) schemaAttribute() schema.MapNestedAttribute {
	attrs := make(map[string]schema.Attribute, len(s.fields))
	for i := range s.fields {
		attrs[s.fields[i].name] = s.fields[i].schemaAttr()
	}
	return schema.MapNestedAttribute{
		Optional: true, MarkdownDescription: s.desc,
		NestedObject: schema.NestedAttributeObject{Attributes: attrs},
	}
}

// tfTypeOf caches the tftypes object type of a shape.
func tfTypeOf(t types.ObjectType) tftypes.Object {
	o, ok := t.TerraformType(context.Background()).(tftypes.Object)
	if !ok {
		panic("an object type's Terraform type is not an object") // framework contract: never happens
	}
	return o
}

// ---- the tables ----

var rackShape = &shape[fabric.Rack]{
	attr: fabric.MapRacks,
	desc: "Racks by name: `gpucluster_rack.all`, the `racks` of `gpucluster_topology`, or objects of the same shape. " +
		"A rack's name is its `name`, or its key when `name` is unset.",
	fields: []field[fabric.Rack]{
		fStr("name", "Rack name (default: the map key).", false, func(r *fabric.Rack) *string { return &r.Name }).withResource(resAttr{
			required: true, desc: "Unique rack name, e.g. `r01`.",
			strVal: []validator.String{nameValidator()}, strMod: []planmodifier.String{stringplanmodifier.RequiresReplace()},
		}),
		fInt("row", "Row of the hall (1-based).", true, 0, func(r *fabric.Rack) *int { return &r.Row }).withResource(resAttr{
			required: true, desc: "Row of the hall, 0-999, counted from 0 or 1 as you like; only differences matter.",
			intVal: []validator.Int64{rowValidator()},
		}),
		fInt("position", "Slot in the row (1-based).", true, 0, func(r *fabric.Rack) *int { return &r.Position }).withResource(resAttr{
			required: true, desc: "Slot of the rack within its row, 0-999.", intVal: []validator.Int64{positionValidator()},
		}),
		fInt("units", fmt.Sprintf("Usable units (default %d).", fabric.DefaultRackUnits), false, 0, func(r *fabric.Rack) *int { return &r.Units }).withResource(resAttr{
			intDef: int64default.StaticInt64(fabric.DefaultRackUnits),
			desc:   fmt.Sprintf("Usable rack units (U). Defaults to `%d`.", fabric.DefaultRackUnits),
			intVal: []validator.Int64{unitsValidator()},
		}),
		fFloat("power_kw", "Power budget in kW.", func(r *fabric.Rack) *float64 { return &r.PowerKW }).withResource(resAttr{
			desc: "Power budget in kW. When set, the fabric fails the plan if the equipment's maximum " +
				"power from the catalog exceeds it.",
			fltVal: []validator.Float64{powerKWValidator()},
		}),
	},
	ref:  func(r *fabric.Rack) *fabric.Ref { return &r.Ref },
	fill: func(r *fabric.Rack, key string) { r.Name = orKey(r.Name, key) },
}

var switchShape = &shape[fabric.Switch]{
	attr: fabric.MapSwitches,
	desc: "Switches by name: `gpucluster_switch.all`, the `switches` of `gpucluster_topology`, or objects of the same shape. " +
		"A switch's name is its `name`, or its key when `name` is unset.",
	fields: []field[fabric.Switch]{
		fStr("name", "Switch name (default: the map key).", false, func(s *fabric.Switch) *string { return &s.Name }).withResource(resAttr{
			required: true,
			desc: "Name of the switch, unique among the switches and HCAs of the fabric, e.g. `leaf01`. " +
				"It is the device name of cable ends and the name OpenSM's node-name-map gives the switch.",
			strVal: []validator.String{nameValidator()}, strMod: []planmodifier.String{stringplanmodifier.RequiresReplace()},
		}),
		fStr("model", "Catalog model (default `"+defaultSwitchModel+"`).", false, func(s *fabric.Switch) *string { return &s.Model }).withResource(resAttr{
			strDef: stringdefault.StaticString(defaultSwitchModel),
			desc: "Switch model from the catalog (built-in: " + docText().SwitchModels() + "; more with the provider's " +
				"`catalog_files`). It sets the port count, port rate, height and power. Defaults to `" + defaultSwitchModel + "`.",
		}),
		fStr("rack", "Rack name.", false, func(s *fabric.Switch) *string { return &s.Rack }).withResource(resAttr{
			desc: "Name of the `gpucluster_rack` the switch is mounted in; with `position_u`. Unset (a switch " +
				"adopted from the floor, where discovery sees no rack): the fabric skips what needs a location (cable " +
				"reach, rack units and power) and says so once.",
			strVal: []validator.String{nameValidator(), stringvalidator.AlsoRequires(path.MatchRoot("position_u"))},
		}),
		fInt("position_u", "Lowest rack unit.", false, 0, func(s *fabric.Switch) *int { return &s.PositionU }).withResource(resAttr{
			desc:   positionUDescription + " With `rack`.",
			intVal: []validator.Int64{positionUValidator(), int64validator.AlsoRequires(path.MatchRoot("rack"))},
		}),
		fStr("role", "`leaf`, `spine` or `core`; inferred when unset.", false, func(s *fabric.Switch) *string { return &s.Role }).withResource(resAttr{
			desc: "Tier of the switch: `leaf` (HCAs attach to it), `spine` or `core`. Leave it unset to let " +
				"the fabric infer it from the cabling (one hop from an HCA is a leaf; the top tier is the spine, or the " +
				"core when there are three switch tiers); set it where the inference is not what you mean.",
			strVal: []validator.String{roleValidator()},
		}),
		fStr("guid", "Node GUID.", false, func(s *fabric.Switch) *string { return &s.GUID }).withResource(resAttr{
			required: true,
			desc: "Node GUID of the switch as `0x` and 16 hex digits, e.g. `0x0002c90300a1b2c3` (as " +
				"`ibstat` or `ibswitches` print it). OpenSM's root GUID file and node-name-map are written from it.",
			strVal: []validator.String{guidValidator()},
		}),
		fStr("group", "Dragonfly+ group.", false, func(s *fabric.Switch) *string { return &s.Group }).withResource(resAttr{
			desc: "Dragonfly+ group of the switch, e.g. `g1`. Only dragonfly+ fabrics use it; the policy " +
				"counts global links and hops per group.",
			strVal: []validator.String{nameValidator()},
		}),
	},
	ref: func(s *fabric.Switch) *fabric.Ref { return &s.Ref },
	fill: func(s *fabric.Switch, key string) {
		s.Name = orKey(s.Name, key)
		s.Model = orKey(s.Model, fabricDefaultSwitchModel)
	},
}

var nodeShape = &shape[fabric.Node]{
	attr: fabric.MapNodes,
	desc: "GPU nodes by name: `gpucluster_node.all`, the `nodes` of `gpucluster_topology`, or objects of the same shape. " +
		"A node's name is its `name`, or its key when `name` is unset.",
	fields: []field[fabric.Node]{
		fStr("name", "Node name (default: the map key).", false, func(n *fabric.Node) *string { return &n.Name }),
		fStr("model", "Catalog model (default `"+defaultNodeModel+"`).", false, func(n *fabric.Node) *string { return &n.Model }),
		fStr("rack", "Rack name.", false, func(n *fabric.Node) *string { return &n.Rack }),
		fInt("position_u", "Lowest rack unit.", false, 0, func(n *fabric.Node) *int { return &n.PositionU }),
		fInt("compute_hcas", "Compute HCAs (default from the catalog).", false, 0, func(n *fabric.Node) *int { return &n.ComputeHCAs }),
	},
	ref: func(n *fabric.Node) *fabric.Ref { return &n.Ref },
	fill: func(n *fabric.Node, key string) {
		n.Name = orKey(n.Name, key)
		n.Model = orKey(n.Model, fabricDefaultNodeModel)
	},
}

var hcaShape = &shape[fabric.HCA]{
	attr: fabric.MapHCAs,
	desc: "HCA ports by name: `gpucluster_hca.all`, the `hcas` of `gpucluster_topology`, or objects of the same shape. " +
		"An HCA's name is its `name`, or its key when `name` is unset.",
	fields: []field[fabric.HCA]{
		fStr("name", "HCA name (default: the map key; `gpucluster_hca` sets `<node>/<device>`).", false, func(h *fabric.HCA) *string { return &h.Name }),
		fStr("node", "Node name.", true, func(h *fabric.HCA) *string { return &h.Node }),
		fStr("device", "Device, e.g. `mlx5_0`.", true, func(h *fabric.HCA) *string { return &h.Device }),
		fStr("model", "Catalog HCA model (default: the node model's).", false, func(h *fabric.HCA) *string { return &h.Model }),
		fStr("port_guid", "Port GUID.", false, func(h *fabric.HCA) *string { return &h.PortGUID }),
		fInt("rail", "Rail (0-based HCA index of a rail-optimized fabric).", false, -1, func(h *fabric.HCA) *int { return &h.Rail }),
	},
	ref: func(h *fabric.HCA) *fabric.Ref { return &h.Ref },
	fill: func(h *fabric.HCA, key string) {
		if h.Name == "" {
			h.Name = orKey(key, fabric.HCAName(h.Node, h.Device))
		}
	},
}

var cableShape = &shape[fabric.Cable]{
	attr: fabric.MapCables,
	desc: "Cables by name: `gpucluster_cable.all`, the `cables` of `gpucluster_topology`, or objects of the same shape. " +
		"A cable's name is its key.",
	fields: []field[fabric.Cable]{
		{name: "a", desc: "One end: `{ device, port }`.", kind: kEnd, required: true, end: func(c *fabric.Cable) *fabric.End { return &c.A }},
		{name: "b", desc: "The other end: `{ device, port }`.", kind: kEnd, required: true, end: func(c *fabric.Cable) *fabric.End { return &c.B }},
		fStr("kind", "Cable kind; chosen by the planner when unset.", false, func(c *fabric.Cable) *string { return &c.Kind }),
		fFloat("length_m", "Length; estimated from rack positions when unset.", func(c *fabric.Cable) *float64 { return &c.LengthM }),
	},
	ref:  func(c *fabric.Cable) *fabric.Ref { return &c.Ref },
	fill: func(*fabric.Cable, string) {},
}

var partitionShape = &shape[fabric.Partition]{
	attr: fabric.MapPartitions,
	desc: "Partitions by name: `gpucluster_partition.all` or objects of the same shape. A partition's name is its `name`, " +
		"or its key when `name` is unset.",
	fields: []field[fabric.Partition]{
		fStr("name", "Partition name (default: the map key).", false, func(p *fabric.Partition) *string { return &p.Name }),
		fStr("pkey", "P_Key, `0x0001`-`0x7ffe`.", true, func(p *fabric.Partition) *string { return &p.PKey }),
		{name: "members", desc: "Members.", kind: kMembers, mem: func(p *fabric.Partition) *[]fabric.Member { return &p.Members }},
		{name: "ipoib", desc: "IPoIB broadcast group.", kind: kBool, bl: func(p *fabric.Partition) *bool { return &p.IPoIB }},
		fInt("mtu", "MTU in bytes.", false, 0, func(p *fabric.Partition) *int { return &p.MTU }),
		fInt("rate", "Rate in Gb/s.", false, 0, func(p *fabric.Partition) *int { return &p.RateGbps }),
		fInt("sl", "Service level.", false, 0, func(p *fabric.Partition) *int { return &p.SL }),
	},
	ref:  func(p *fabric.Partition) *fabric.Ref { return &p.Ref },
	fill: func(p *fabric.Partition, key string) { p.Name = orKey(p.Name, key) },
}

// inventoryShapes lists the tables in the order of fabric.Spec.
var inventoryShapes = []inventoryShape{rackShape, switchShape, nodeShape, hcaShape, cableShape, partitionShape}

func orKey(v, key string) string {
	if v == "" {
		return key
	}
	return v
}

// Object types of the shapes, made once: the element types of the fabric's maps and of
// gpucluster_topology's.
var (
	rackObjType   = rackShape.objectType()
	switchObjType = switchShape.objectType()
	nodeObjType   = nodeShape.objectType()
	hcaObjType    = hcaShape.objectType()
	cableObjType  = cableShape.objectType()

	tfSwitchObj = tfTypeOf(switchObjType)
	tfHCAObj    = tfTypeOf(hcaObjType)
	tfCableObj  = tfTypeOf(cableObjType)
	tfEndObj    = tfTypeOf(endObjectType)
	tfMemberObj = tfTypeOf(memberObjType)
)

// ---- encoder ----

// encode returns t as the Terraform object of the shape, with unset values null.
func (s *shape[T]) encode(typ tftypes.Type, t *T) tftypes.Value {
	vals := make(map[string]tftypes.Value, len(s.fields))
	for i := range s.fields {
		f := &s.fields[i]
		switch f.kind {
		case kString:
			vals[f.name] = tfStrOrNull(*f.str(t))
		case kInt:
			vals[f.name] = tfIntOrNull(*f.num(t), f.unset)
		case kFloat:
			vals[f.name] = tfFloatOrNull(*f.flt(t))
		case kBool:
			vals[f.name] = tftypes.NewValue(tftypes.Bool, *f.bl(t))
		case kEnd:
			e := f.end(t)
			vals[f.name] = tftypes.NewValue(tfEndObj, map[string]tftypes.Value{"device": tfStr(e.Device), "port": tfInt(e.Port)})
		case kMembers:
			ms := *f.mem(t)
			l := make([]tftypes.Value, len(ms))
			for j, m := range ms {
				l[j] = tftypes.NewValue(tfMemberObj, map[string]tftypes.Value{
					"hca": tfStrOrNull(m.HCA), "guid": tfStrOrNull(m.GUID), "membership": tfStrOrNull(m.Membership),
				})
			}
			vals[f.name] = tftypes.NewValue(tftypes.List{ElementType: tfMemberObj}, l)
		}
	}
	return tftypes.NewValue(typ, vals)
}

// ---- decoder ----

// decodeMap reads the map attribute v (a tftypes map of the shape's objects, or null) into
// fabric elements sorted by key, each with its key in Ref. Missing required values are attribute
// errors on the element; unknown values set r.unknown.
func (s *shape[T]) decodeMap(r *specReader, v tftypes.Value) []T {
	if v.IsNull() {
		return nil
	}
	if !v.IsKnown() {
		r.unknown = true
		return nil
	}
	var m map[string]tftypes.Value
	if v.As(&m) != nil {
		r.addAttributeError(r.mapPath(s.attr), "Invalid attribute type",
			fmt.Sprintf("%s must be a map of objects keyed by name, not %s.", s.attr, tfwire.Kind(v)))
		return nil
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]T, 0, len(keys))
	for _, k := range keys {
		var t T
		if s.decode(r, k, m[k], &t) {
			out = append(out, t)
		}
	}
	return out
}

// decode reads one element; false when it is unknown or not an object.
func (s *shape[T]) decode(r *specReader, key string, v tftypes.Value, t *T) bool {
	if !v.IsKnown() {
		r.unknown = true
		return false
	}
	var attrs map[string]tftypes.Value
	if v.IsNull() || v.As(&attrs) != nil {
		r.addAttributeError(r.mapPath(s.attr).AtMapKey(key), "Invalid element",
			fmt.Sprintf("every element of %s must be an object, and %s is %s", s.attr, key, tfwire.Kind(v)))
		return false
	}
	at := func(f *field[T]) path.Path { return r.mapPath(s.attr).AtMapKey(key).AtName(f.name) }
	wrongType := func(f *field[T], av tftypes.Value, want string) {
		r.addAttributeError(at(f), "Invalid attribute type",
			fmt.Sprintf("%s must be %s, and %s has %s.", f.name, want, r.mapPath(s.attr).AtMapKey(key), tfwire.Kind(av)))
	}
	for i := range s.fields {
		f := &s.fields[i]
		av, ok := attrs[f.name]
		if !ok || av.IsNull() {
			if f.required {
				r.addAttributeError(at(f), "Missing required attribute",
					fmt.Sprintf("%s is required for every element of %s, and %s has none.", f.name, s.attr, r.mapPath(s.attr).AtMapKey(key)))
			}
			if f.kind == kInt {
				*f.num(t) = f.unset
			}
			continue
		}
		if !av.IsKnown() {
			r.unknown = true
			continue
		}
		switch f.kind {
		case kString:
			str, ok := tfwire.AsString(av)
			if !ok {
				wrongType(f, av, "a string")
				continue
			}
			*f.str(t) = str
			if f.required && str == "" {
				r.addAttributeError(at(f), "Missing required attribute",
					fmt.Sprintf("%s is required for every element of %s, and %s has none.", f.name, s.attr, r.mapPath(s.attr).AtMapKey(key)))
			}
		case kInt:
			n, ok := tfwire.AsInt(av)
			if !ok {
				wrongType(f, av, "a whole number")
				continue
			}
			*f.num(t) = n
			if n == f.unset {
				r.explicitUnset(at(f), f.name)
			}
		case kFloat:
			n, ok := tfwire.AsNumber(av)
			if !ok {
				wrongType(f, av, "a number")
				continue
			}
			*f.flt(t), _ = n.Float64()
			if *f.flt(t) == 0 {
				r.explicitUnset(at(f), f.name)
			}
		case kBool:
			b, ok := tfwire.AsBool(av)
			if !ok {
				wrongType(f, av, "a bool")
				continue
			}
			*f.bl(t) = b
		case kEnd:
			*f.end(t) = r.decodeEnd(at(f), av)
		case kMembers:
			*f.mem(t) = r.decodeMembers(at(f), av)
		}
	}
	*s.ref(t) = fabric.Ref{Key: key}
	s.fill(t, key)
	return true
}

// addAttributeError records an element's error without diag.Diagnostics.Append's duplicate
// check, which compares the new diagnostic with every one before it: 10,000 malformed cables
// took 50 s to decode (TestGarbageIsCappedPerCause). The decoder cannot repeat itself (each
// error is at its own element and attribute), and capDiagnostics caps the lot afterwards.
func (r *specReader) addAttributeError(p path.Path, summary, detail string) {
	r.diags = append(r.diags, diag.NewAttributeErrorDiagnostic(p, summary, detail))
}

// explicitUnset refuses a value written out that the fabric reads as "unset" (units = 0, rail =
// -1), where the attribute's rule refuses it: only the decoder can tell it from a null.
func (r *specReader) explicitUnset(p path.Path, attr string) {
	if msg := fabric.ExplicitUnset(attr); msg != "" {
		addRuleError(&r.diags, p, "Fabric: invalid-"+strings.ReplaceAll(attr, "_", "-"), msg)
	}
}

func tfNumberInt(v tftypes.Value) int {
	var f big.Float
	if v.As(&f) != nil {
		return 0
	}
	i, _ := f.Int64()
	return int(i)
}

func tfNumberFloat(v tftypes.Value) float64 {
	var f big.Float
	if v.As(&f) != nil {
		return 0
	}
	x, _ := f.Float64()
	return x
}

func (r *specReader) decodeEnd(p path.Path, v tftypes.Value) fabric.End {
	var attrs map[string]tftypes.Value
	if v.As(&attrs) != nil {
		r.addAttributeError(p, "Invalid attribute type", fmt.Sprintf("a cable end must be an object { device, port }, not %s.", tfwire.Kind(v)))
		return fabric.End{}
	}
	var e fabric.End
	dv, pv := attrs["device"], attrs["port"]
	switch {
	case !dv.IsKnown():
		r.unknown = true
	case dv.IsNull():
		r.addAttributeError(p.AtName("device"), "Missing required attribute", "device is required for every cable end.")
	default:
		var ok bool
		if e.Device, ok = tfwire.AsString(dv); !ok {
			r.addAttributeError(p.AtName("device"), "Invalid attribute type", "device must be a string (a switch or HCA name), not "+tfwire.Kind(dv)+".")
		}
	}
	switch {
	case !pv.IsKnown():
		r.unknown = true
	case pv.IsNull():
		r.addAttributeError(p.AtName("port"), "Missing required attribute", "port is required for every cable end.")
	default:
		var ok bool
		if e.Port, ok = tfwire.AsInt(pv); !ok {
			r.addAttributeError(p.AtName("port"), "Invalid attribute type", "port must be a whole number (1-based), not "+tfwire.Kind(pv)+".")
		}
	}
	return e
}

func (r *specReader) decodeMembers(p path.Path, v tftypes.Value) []fabric.Member {
	var l []tftypes.Value
	if v.As(&l) != nil {
		return nil
	}
	out := make([]fabric.Member, 0, len(l))
	for _, e := range l {
		var attrs map[string]tftypes.Value
		if !e.IsKnown() {
			r.unknown = true
			continue
		}
		if e.As(&attrs) != nil {
			continue
		}
		var m fabric.Member
		for name, dst := range map[string]*string{"hca": &m.HCA, "guid": &m.GUID, "membership": &m.Membership} {
			av := attrs[name]
			if !av.IsKnown() {
				r.unknown = true
				continue
			}
			if !av.IsNull() {
				_ = av.As(dst)
			}
		}
		if m.Membership == "" {
			m.Membership = fabric.DefaultMembership
		}
		out = append(out, m)
	}
	_ = p
	return out
}
