package provider

import (
	"context"
	"fmt"
	"math/big"
	"sort"
	"strings"
	"sync"

	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
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
// returns), the MessagePack writer (fabric_inventory_wire.go, through tfwire.Object) and,
// for a row marked withResource, the attribute of the shape's own resource: gpucluster_rack,
// gpucluster_switch, gpucluster_node, gpucluster_hca, gpucluster_cable and gpucluster_partition
// take their declared attributes from their shape, with the resource's own rules on the row
// (inventory_resource_attr.go), and add only what is theirs (id, computed outputs, the BMC and
// firmware attributes). A shape is written once, so schema, types, decoder and encoders cannot
// drift apart (TestInventoryShapesRoundTrip checks that they do not).
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
	res        *resAttr // the same attribute in the resource of the shape (gpucluster_switch...), if any
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

func fBool[T any](name, desc string, acc func(*T) *bool) field[T] {
	return field[T]{name: name, desc: desc, kind: kBool, bl: acc}
}

func fEnd[T any](name, desc string, acc func(*T) *fabric.End) field[T] {
	return field[T]{name: name, desc: desc, kind: kEnd, required: true, end: acc}
}

func fMembers[T any](name, desc string, acc func(*T) *[]fabric.Member) field[T] {
	return field[T]{name: name, desc: desc, kind: kMembers, mem: acc}
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

// subField is an attribute of the object nested in a row (kEnd: a cable end; kMembers: a
// partition member), of kind kString or kInt. Its description is the fabric map's; the resource's
// rules for it are in the row's resAttr.nested.
type subField struct {
	name, desc string
	kind       fieldKind
}

var (
	endFields = []subField{
		{"device", "Required. Switch name or HCA name (`<node>/<device>`).", kString},
		{"port", "Required. 1-based port number.", kInt},
	}
	memberFields = []subField{
		{"hca", "HCA name.", kString},
		{"guid", "Port GUID or OpenSM keyword (`ALL`, `ALL_CAS`, `ALL_SWITCHES`, `SELF`).", kString},
		{"membership", "`full` (default) or `limited`.", kString},
	}

	endAttrTypes    = subAttrTypes(endFields)
	endObjectType   = types.ObjectType{AttrTypes: endAttrTypes}
	memberAttrTypes = subAttrTypes(memberFields)
	memberObjType   = types.ObjectType{AttrTypes: memberAttrTypes}
	membersListType = types.ListType{ElemType: memberObjType}
)

// subFieldsOf are the attributes of the object nested in a row of kind, if any.
func subFieldsOf(kind fieldKind) []subField {
	switch kind {
	case kEnd:
		return endFields
	case kMembers:
		return memberFields
	}
	return nil
}

func subAttrTypes(sub []subField) map[string]attr.Type {
	at := make(map[string]attr.Type, len(sub))
	for _, s := range sub {
		at[s.name] = scalarType(s.kind)
	}
	return at
}

// scalarType is the type of a kString, kInt, kFloat or kBool attribute.
func scalarType(kind fieldKind) attr.Type {
	switch kind {
	case kString:
		return types.StringType
	case kInt:
		return types.Int64Type
	case kFloat:
		return types.Float64Type
	default:
		return types.BoolType
	}
}

func (f *field[T]) attrType() attr.Type {
	switch f.kind {
	case kEnd:
		return endObjectType
	case kMembers:
		return membersListType
	}
	return scalarType(f.kind)
}

func (f *field[T]) schemaAttr() schema.Attribute {
	// Required fields are Optional in the schema (see above) and checked by the decoder; the
	// description says so, and the docs show it.
	desc := f.desc
	if f.required {
		desc = "Required. " + desc
	}
	return optionalAttr(f.kind, desc)
}

// optionalAttr is the fabric map's attribute of kind: Optional, with no rules (see above).
func optionalAttr(kind fieldKind, desc string) schema.Attribute {
	switch kind {
	case kString:
		return schema.StringAttribute{Optional: true, MarkdownDescription: desc}
	case kInt:
		return schema.Int64Attribute{Optional: true, MarkdownDescription: desc}
	case kFloat:
		return schema.Float64Attribute{Optional: true, MarkdownDescription: desc}
	case kBool:
		return schema.BoolAttribute{Optional: true, MarkdownDescription: desc}
	case kEnd:
		return schema.SingleNestedAttribute{Optional: true, MarkdownDescription: desc, Attributes: optionalAttrs(endFields)}
	default:
		return schema.ListNestedAttribute{Optional: true, MarkdownDescription: desc, NestedObject: schema.NestedAttributeObject{
			Attributes: optionalAttrs(memberFields),
		}}
	}
}

func optionalAttrs(sub []subField) map[string]schema.Attribute {
	out := make(map[string]schema.Attribute, len(sub))
	for _, s := range sub {
		out[s.name] = optionalAttr(s.kind, s.desc)
	}
	return out
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
		fStr("rack", "Rack name.", false, func(s *fabric.Switch) *string { return &s.Rack }).withResource(rackRules("switch")),
		fInt("position_u", "Lowest rack unit.", false, 0, func(s *fabric.Switch) *int { return &s.PositionU }).withResource(positionURules()),
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
		fStr("name", "Node name (default: the map key).", false, func(n *fabric.Node) *string { return &n.Name }).withResource(resAttr{
			required: true, desc: "Unique node name, e.g. `gpu001`; its HCAs are named `<name>/<device>`.",
			strVal: []validator.String{nameValidator()}, strMod: []planmodifier.String{stringplanmodifier.RequiresReplace()},
		}),
		fStr("model", "Catalog model (default `"+defaultNodeModel+"`).", false, func(n *fabric.Node) *string { return &n.Model }).withResource(resAttr{
			strDef: stringdefault.StaticString(defaultNodeModel),
			desc: "Node model from the catalog (built-in: " + docText().NodeModels() + "; more with the provider's " +
				"`catalog_files`). It sets the height, power and the default number of compute HCAs. Defaults to `" +
				defaultNodeModel + "`.",
		}),
		fStr("rack", "Rack name.", false, func(n *fabric.Node) *string { return &n.Rack }).withResource(rackRules("node")),
		fInt("position_u", "Lowest rack unit.", false, 0, func(n *fabric.Node) *int { return &n.PositionU }).withResource(positionURules()),
		fInt("compute_hcas", "Compute HCAs (default from the catalog).", false, 0, func(n *fabric.Node) *int { return &n.ComputeHCAs }).withResource(resAttr{
			computed: true,
			desc: "Number of compute-fabric HCAs in the node. Defaults to the model's count from the catalog " +
				"(" + docText().ComputeHCAs() + "). Set it for builds that differ, such as an HGX with one HCA " +
				"per GPU pair.",
			intVal: []validator.Int64{computeHCAsValidator()},
		}),
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
		fStr("name", "HCA name (default: the map key; `gpucluster_hca` sets `<node>/<device>`).", false, func(h *fabric.HCA) *string { return &h.Name }).withResource(resAttr{
			computed: true,
			desc: "Name of the HCA in the fabric, unique among its switches and HCAs. Defaults to " +
				"`<node>/<device>`, e.g. `gpu001/mlx5_0`; a name you set must keep that form (two parts joined by `/`), " +
				"since the `/` is what tells an HCA from a switch in a cable end.",
			strVal: []validator.String{hcaNameValidator()},
		}),
		fStr("node", "Node name.", true, func(h *fabric.HCA) *string { return &h.Node }).withResource(resAttr{
			required: true, desc: "Name of the `gpucluster_node` the HCA sits in.",
			strVal: []validator.String{nameValidator()}, strMod: []planmodifier.String{stringplanmodifier.RequiresReplace()},
		}),
		fStr("device", "Device, e.g. `mlx5_0`.", true, func(h *fabric.HCA) *string { return &h.Device }).withResource(resAttr{
			required: true,
			desc: "RDMA device name of the HCA on its node, as `ibstat` lists it, e.g. `mlx5_0`; one of " +
				"the node's `hca_devices`.",
			strVal: []validator.String{deviceValidator()}, strMod: []planmodifier.String{stringplanmodifier.RequiresReplace()},
		}),
		fStr("model", "Catalog HCA model (default: the node model's).", false, func(h *fabric.HCA) *string { return &h.Model }).withResource(resAttr{
			strDef: stringdefault.StaticString(defaultHCAModel),
			desc: "HCA model from the catalog (built-in: " + docText().HCAModels() + "; more with " +
				"the provider's `catalog_files`). It sets the port count and rate. Defaults to `" + defaultHCAModel + "`.",
		}),
		fStr("port_guid", "Port GUID.", false, func(h *fabric.HCA) *string { return &h.PortGUID }).withResource(resAttr{
			required: true,
			desc: "Port GUID as `0x` and 16 hex digits, e.g. `0x0002c90300a1b2c3` (`ibstat` prints it as " +
				"`Port GUID`). OpenSM's partitions, compute-node GUID file and node-name-map are written from it.",
			strVal: []validator.String{guidValidator()},
		}),
		fInt("rail", "Rail (0-based HCA index of a rail-optimized fabric).", false, -1, func(h *fabric.HCA) *int { return &h.Rail }).withResource(resAttr{
			desc: "Rail of the HCA: its index among the node's compute HCAs, " + docText().ComputeRails() + ". In a " +
				"rail-optimized fabric all HCAs of one rail share a leaf; the fabric uses it to check that cabling.",
			intVal: []validator.Int64{railValidator()},
		}),
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
		fEnd("a", "One end: `{ device, port }`.", func(c *fabric.Cable) *fabric.End { return &c.A }).withResource(cableEndRules("a")),
		fEnd("b", "The other end: `{ device, port }`.", func(c *fabric.Cable) *fabric.End { return &c.B }).withResource(cableEndRules("b")),
		fStr("kind", "Cable kind; chosen by the planner when unset.", false, func(c *fabric.Cable) *string { return &c.Kind }).withResource(resAttr{
			desc: "Cable kind: `dac` (passive copper, up to 2-3 m), `acc` (active copper, up to 5 m), " +
				"`aoc` (active optical, up to 30 m), `fiber-mm` (multimode fiber with transceivers, up to 50 m) or `fiber-sm` " +
				"(single-mode fiber, up to 500 m). Unset: the fabric picks the cheapest kind that reaches.",
			strVal: []validator.String{cableKindValidator()},
		}),
		fFloat("length_m", "Length; estimated from rack positions when unset.", func(c *fabric.Cable) *float64 { return &c.LengthM }).withResource(resAttr{
			computed: true,
			desc: "Length of the run in metres. Unset (null), the fabric estimates it from the rack " +
				"positions of both ends.",
			fltVal: []validator.Float64{lengthMValidator()},
		}),
	},
	ref:  func(c *fabric.Cable) *fabric.Ref { return &c.Ref },
	fill: func(*fabric.Cable, string) {},
}

var partitionShape = &shape[fabric.Partition]{
	attr: fabric.MapPartitions,
	desc: "Partitions by name: `gpucluster_partition.all` or objects of the same shape. A partition's name is its `name`, " +
		"or its key when `name` is unset.",
	fields: []field[fabric.Partition]{
		fStr("name", "Partition name (default: the map key).", false, func(p *fabric.Partition) *string { return &p.Name }).withResource(resAttr{
			required: true,
			desc: "Partition name as OpenSM logs it, e.g. `compute`: up to 31 letters, digits, `_`, `.` or `-`, " +
				"starting with a letter or `_` (OpenSM reads a leading digit as a P_Key and splits on `,` `=` `:` `;`).",
			strVal: []validator.String{partitionNameValidator()}, strMod: []planmodifier.String{stringplanmodifier.RequiresReplace()},
		}),
		fStr("pkey", "P_Key, `0x0001`-`0x7ffe`.", true, func(p *fabric.Partition) *string { return &p.PKey }).withResource(resAttr{
			required: true,
			desc: "Partition key as `0x` and 4 hex digits, from `0x0001` to `0x7ffe`. The top bit (0x8000) " +
				"is the membership bit, which each member's `membership` sets; `0x7fff` is the default partition. " +
				"Each partition of a fabric needs its own key (OpenSM merges partitions that share one).",
			strVal: []validator.String{pkeyValidator()},
		}),
		fMembers("members", "Members.", func(p *fabric.Partition) *[]fabric.Member { return &p.Members }).withResource(resAttr{
			required: true,
			desc: "Members of the partition: each names an HCA of the fabric (`{ hca = \"gpu001/mlx5_0\" }`) " +
				"or a port GUID or OpenSM keyword (`{ guid = \"ALL_CAS\" }`), with a membership.",
			listVal: []validator.List{listvalidator.SizeAtLeast(1)},
			objVal:  []validator.Object{partitionMemberValidator{}},
			nested: map[string]resAttr{
				"hca": {
					desc:   "Name of a `gpucluster_hca` of the fabric, e.g. `gpu001/mlx5_0`; its `port_guid` goes into the file.",
					strVal: []validator.String{hcaNameValidator()},
				},
				"guid": {
					desc: "A port GUID (`0x` and 16 hex digits), or one of OpenSM's keywords: `ALL` (every port), " +
						"`ALL_CAS` (every HCA port), `ALL_SWITCHES`, `ALL_ROUTERS`, `SELF` (the subnet manager's own port).",
					strVal: []validator.String{memberGUIDValidator()},
				},
				"membership": {
					strDef: stringdefault.StaticString(fabric.DefaultMembership),
					desc: "`full` (talks to every member) or `limited` (talks to full members only). " +
						"Defaults to `full` (in partitions.conf an omitted membership means limited).",
					strVal: []validator.String{membershipValidator()},
				},
			},
		}),
		fBool("ipoib", "IPoIB broadcast group.", func(p *fabric.Partition) *bool { return &p.IPoIB }).withResource(resAttr{
			boolDef: booldefault.StaticBool(false),
			desc:    "Create the IPoIB broadcast group of the partition (OpenSM's `ipoib` flag). Defaults to `false`.",
		}),
		fInt("mtu", "MTU in bytes.", false, 0, func(p *fabric.Partition) *int { return &p.MTU }).withResource(resAttr{
			desc: "MTU of the IPoIB broadcast group in bytes, one of the InfiniBand MTUs: `256`, `512`, `1024`, " +
				"`2048` or `4096` (4096 on a GPU fabric; smaller ones only cost bandwidth). Unset: OpenSM's default (2048). " +
				"The provider writes OpenSM's IBTA code (`mtu=1` ... `mtu=5`; 4096 is `mtu=5`).",
			intVal: []validator.Int64{mtuValidator()},
		}),
		fInt("rate", "Rate in Gb/s.", false, 0, func(p *fabric.Partition) *int { return &p.RateGbps }).withResource(resAttr{
			desc: "Rate of the IPoIB broadcast group in Gb/s, one of the InfiniBand path rates: " +
				fabric.PartitionRateList() + " (400 for NDR). Unset: OpenSM's default (10). The provider writes " +
				"OpenSM's enum (`rate=21` for 400).",
			intVal: []validator.Int64{rateValidator()},
		}),
		fInt("sl", "Service level.", false, 0, func(p *fabric.Partition) *int { return &p.SL }).withResource(resAttr{
			intDef: int64default.StaticInt64(0),
			desc:   "Service level of the broadcast group, 0-15. Defaults to `0`.",
			intVal: []validator.Int64{slValidator()},
		}),
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
