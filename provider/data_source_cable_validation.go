package provider

// gpucluster_cable_validation: glue over internal/firstlight. It decodes the design (the fabric's
// inputs, built by plan.Build as every reader of a fabric does), the floor record, the work
// order and the port counters' verdicts, calls firstlight.FitMatch and Validate, and maps the
// Result to attributes.

import (
	"context"
	"sort"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/asbuilt"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/firstlight"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/plan"
)

var (
	_ datasource.DataSource              = (*cableValidationDataSource)(nil)
	_ datasource.DataSourceWithConfigure = (*cableValidationDataSource)(nil)
)

func newCableValidationDataSource() datasource.DataSource { return &cableValidationDataSource{} }

type cableValidationDataSource struct {
	data *Data
}

type cableValidationModel struct {
	fabricInputsModel
	Floor    types.Object  `tfsdk:"floor"`
	Scope    types.String  `tfsdk:"scope"`
	Counters types.Dynamic `tfsdk:"counters"`

	Summary      types.Object `tfsdk:"summary"`
	Passed       types.Bool   `tfsdk:"passed"`
	PunchList    types.List   `tfsdk:"punch_list"`
	PunchListCSV types.String `tfsdk:"punch_list_csv"`
	Report       types.String `tfsdk:"report"`
	Topo         types.String `tfsdk:"topo"`
	TopoIBNL     types.Map    `tfsdk:"topo_ibnl"`
}

// summaryFields are the summary's counts, in the order the docs list them.
var summaryFields = []struct{ name, doc string }{
	{"expected", "design links in scope"},
	{"ok", "on their designed ports at both ends (and, with `counters`, not suspect or down)"},
	{"missing", "no cable on either port (a device the floor lacks counts all its links)"},
	{"miswired", "one end on the wrong port or the wrong device"},
	{"swapped", "two cables with exchanged ends (2 per pair)"},
	{"unexpected", "floor cables in scope the design does not have"},
	{"degraded", "up below the design's rate (not judged from a floor record, which carries no rates)"},
	{"noisy", "cabled right, but `counters` says suspect or down"},
	{"outside_scope", "design links outside `scope`: counted, not judged"},
}

var summaryAttrTypes = func() map[string]attr.Type {
	m := map[string]attr.Type{}
	for _, f := range summaryFields {
		m[f.name] = types.Int64Type
	}
	return m
}()

var punchRowAttrTypes = map[string]attr.Type{
	"action": types.StringType, "label": types.StringType, "a": types.StringType, "b": types.StringType,
	"where": types.StringType, "detail": types.StringType,
}

func (d *cableValidationDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_cable_validation"
}

func (d *cableValidationDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.data = providerData(req.ProviderData, &resp.Diagnostics)
}

func (d *cableValidationDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	attrs := map[string]schema.Attribute{}
	for k, v := range fabricInputAttributes() {
		attrs[k] = v
	}
	floorAttrs := map[string]schema.Attribute{}
	for name, doc := range floorFieldDocs {
		floorAttrs[name] = schema.StringAttribute{Optional: true, MarkdownDescription: doc}
	}
	attrs["floor"] = schema.SingleNestedAttribute{Required: true, Attributes: floorAttrs,
		MarkdownDescription: "The fabric on the floor: `floor` of `gpucluster_discovered_fabric` (live over SSH or from a " +
			"snapshot), `{ summary, sha256, record }`, handed on unchanged. Its devices may carry their own names and GUIDs: " +
			"they are matched to the design's by the links they have (as `as_built` is fitted), then judged port by port."}
	attrs["scope"] = schema.StringAttribute{Optional: true,
		MarkdownDescription: "A work order: `cabling_changes_csv` of `gpucluster_bom`. Only the links it adds or moves are " +
			"judged (and floor cables on the ports it touches); the design's other links are counted in " +
			"`summary.outside_scope`, not judged. Without it, every link of the design is judged."}
	attrs["counters"] = schema.DynamicAttribute{Optional: true,
		MarkdownDescription: "`links` of `gpucluster_port_counters`: cable label to an object with `verdict` (`ok`, " +
			"`suspect`, `down`) and `reason`. A link cabled right whose verdict is `suspect` or `down` is `noisy`, and " +
			"its row is `replace`."}
	sum := map[string]schema.Attribute{}
	for _, f := range summaryFields {
		sum[f.name] = outInt("Links " + f.doc + ".")
	}
	attrs["summary"] = schema.SingleNestedAttribute{Computed: true, Attributes: sum,
		MarkdownDescription: "The links in scope, counted by verdict."}
	attrs["passed"] = schema.BoolAttribute{Computed: true,
		MarkdownDescription: "Every link in scope is `ok` and no unexpected cable is in scope: the condition of a `check` block."}
	attrs["punch_list"] = schema.ListNestedAttribute{Computed: true,
		MarkdownDescription: "One row per fix, in the technician's walk (row of racks, rack, unit, cage, split of the " +
			"first end). `action` is `swap` (two cables with exchanged ends: exchange the plugs in `a` and `b`), `move` " +
			"(the cable in `a` goes to `b`), `plug` (a missing link, or a whole device the floor lacks: `label` names it), " +
			"`unplug` (a cable the design does not have), `reseat` (slow) or `replace` (noisy or down, or a copper " +
			"twin-port cable whose splits cross: no plug can be exchanged). Two splits of one copper twin-port cable are " +
			"swapped at their far ends, where they are two plugs.",
		NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
			"action": outStr("`swap`, `move`, `plug`, `unplug`, `reseat` or `replace`."),
			"label":  outStr("The design link it fixes (`a <-> b`; two, ` / `-separated, for a swap), the floor cable to unplug, or the device to install."),
			"a":      outStr("The first port, by the design's names (`leaf01:3`); a floor device's own name where the design has none."),
			"b":      outStr("The second port; empty for a device to install."),
			"where":  outStr("Both ends as a technician walks to them: rack, unit, box, cage and split."),
			"detail": outStr("What is wrong and what to do, and the links that go down while it is done (a twin-port cage's other split)."),
		}}}
	attrs["punch_list_csv"] = outStr("The punch list as CSV (RFC 4180) after the header `" + strings.Join(firstlight.PunchListHeader, ",") +
		"`, in the same walk order, ready to print.")
	attrs["report"] = outStr("A short text for a `check` block's `error_message`: the counts, then the first rows.")
	attrs["topo"] = outStr("The design in ibdm's topology file format (Debian `ibutils`: `ibtopodiff -t`, `ibdiagnet -t`), " +
		"one section per switch and node; its system types are defined in `topo_ibnl`.")
	attrs["topo_ibnl"] = schema.MapAttribute{Computed: true, ElementType: types.StringType,
		MarkdownDescription: "The IBNL system definitions `topo` names, by file name (`QM9700.ibnl`, `NODE_DGXH100.ibnl`): " +
			"Debian's ibutils ships none for NDR systems. Write them to a directory and point `IBDM_IBNL_PATH` at it."}
	resp.Schema = schema.Schema{
		MarkdownDescription: "First light: the floor checked link by link against the design after the technicians cable a " +
			"wave. Every design link in scope is `ok`, `missing`, `miswired`, `swapped`, `degraded` or `noisy`, and every " +
			"floor cable the design lacks `unexpected`; the punch list has one row per fix, sorted by where a technician " +
			"walks, with both ends' rack, unit, cage and split. Put `passed` in a `check` block with `report` as its message.",
		Attributes: attrs,
	}
}

func (d *cableValidationDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m cableValidationModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	cat := inventoryCatalog(d.data)
	f, unknown, diags := readFabric(ctx, cat, &m.fabricInputsModel, false)
	resp.Diagnostics.Append(diags...)
	floor := decodeFloorObject(m.Floor, &resp.Diagnostics)
	var scope *firstlight.Scope
	if !m.Scope.IsNull() && !m.Scope.IsUnknown() {
		s, err := firstlight.ParseScope(m.Scope.ValueString())
		if err != nil {
			resp.Diagnostics.AddAttributeError(path.Root("scope"), "Cannot read the work order", err.Error())
		}
		scope = s
	}
	counters := decodeCounterVerdicts(ctx, m.Counters, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	if unknown || f == nil || floor == nil || m.Scope.IsUnknown() || m.Counters.IsUnderlyingValueUnknown() {
		resp.Diagnostics.AddError("Unknown values", "gpucluster_cable_validation needs every value of its inputs known; Terraform reads it once they are.")
		return
	}
	var match firstlight.Match
	if f.Design != nil {
		var fitted *fabric.Spec
		if f.Fit != nil {
			fitted = f.Fit.Spec
		}
		now, err := plan.FloorFit(cat, f.Design, floor) // once per plan (internal/plan/fitmemo.go)
		var mm firstlight.Match
		if err == nil {
			mm, err = firstlight.MatchFitted(f.Design, fitted, now)
		}
		if err != nil {
			resp.Diagnostics.AddAttributeError(path.Root("floor"), "Cannot match the floor to the design", err.Error())
			return
		}
		match = mm
	}
	r, err := firstlight.Validate(firstlight.Input{Design: f.Spec, Graph: f.Graph, Floor: floor, Match: match, Scope: scope, Counters: counters, Catalog: cat})
	if err != nil {
		resp.Diagnostics.AddError("Cannot validate the floor", err.Error())
		return
	}
	resp.Diagnostics.Append(setCableValidation(&m, r, f.Graph)...)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

// decodeFloorObject reads `floor` ({ summary, sha256, record }); nil while unknown or on error.
func decodeFloorObject(o types.Object, diags *diag.Diagnostics) *fabric.Spec {
	if o.IsNull() || o.IsUnknown() {
		return nil
	}
	at := o.Attributes()
	sha, _ := at[floorSHA256].(types.String)
	data, _ := at[floorRecord].(types.String)
	if sha.IsUnknown() || data.IsUnknown() {
		return nil
	}
	if sha.IsNull() || data.IsNull() {
		diags.AddAttributeError(path.Root("floor"), "Cannot read the floor",
			"floor must be { summary, sha256, record } as gpucluster_discovered_fabric writes it: floor = data.gpucluster_discovered_fabric.x.floor.")
		return nil
	}
	floor, err := asbuilt.DecodeRecord(asbuilt.Record{SHA256: sha.ValueString(), Data: data.ValueString()})
	if err != nil {
		diags.AddAttributeError(path.Root("floor"), "Cannot read the floor", err.Error()+
			". Hand gpucluster_discovered_fabric's floor on unchanged (floor = data.gpucluster_discovered_fabric.x.floor).")
		return nil
	}
	return floor
}

// decodeCounterVerdicts reads `counters`: a map or object of objects with `verdict` and
// `reason`, keyed by cable label.
func decodeCounterVerdicts(ctx context.Context, d types.Dynamic, diags *diag.Diagnostics) map[string]firstlight.Counter {
	if d.IsNull() || d.IsUnknown() || d.IsUnderlyingValueNull() || d.IsUnderlyingValueUnknown() {
		return nil
	}
	v, err := d.UnderlyingValue().ToTerraformValue(ctx)
	if err != nil {
		diags.AddAttributeError(path.Root("counters"), "Cannot read counters", err.Error())
		return nil
	}
	var links map[string]tftypes.Value
	if err := v.As(&links); err != nil {
		diags.AddAttributeError(path.Root("counters"), "Cannot read counters",
			"counters must be `links` of gpucluster_port_counters (a map of cable label to { verdict, reason, ... }).")
		return nil
	}
	out := map[string]firstlight.Counter{}
	for label, lv := range links {
		var fields map[string]tftypes.Value
		var c firstlight.Counter
		if lv.As(&fields) != nil || fields["verdict"].IsNull() || fields["verdict"].As(&c.Verdict) != nil {
			diags.AddAttributeError(path.Root("counters"), "Cannot read counters",
				"counters["+label+"] has no `verdict`: counters must be `links` of gpucluster_port_counters.")
			return nil
		}
		if r, ok := fields["reason"]; ok && !r.IsNull() {
			_ = r.As(&c.Reason)
		}
		out[label] = c
	}
	return out
}

// setCableValidation maps the Result into the model.
func setCableValidation(m *cableValidationModel, r *firstlight.Result, g *fabric.Graph) diag.Diagnostics {
	var diags diag.Diagnostics
	s := r.Summary
	counts := map[string]int{"expected": s.Expected, "ok": s.OK, "missing": s.Missing, "miswired": s.Miswired, "swapped": s.Swapped,
		"unexpected": s.Unexpected, "degraded": s.Degraded, "noisy": s.Noisy, "outside_scope": s.OutsideScope}
	sv := map[string]attr.Value{}
	for k, n := range counts {
		sv[k] = types.Int64Value(int64(n))
	}
	m.Summary, diags = types.ObjectValue(summaryAttrTypes, sv)
	m.Passed = types.BoolValue(s.Passed())
	rows := make([]attr.Value, len(r.Rows))
	for i, row := range r.Rows {
		detail := row.Detail
		if len(row.Also) > 0 {
			detail += "; also takes down " + strings.Join(row.Also, ", ")
		}
		rows[i] = types.ObjectValueMust(punchRowAttrTypes, map[string]attr.Value{
			"action": types.StringValue(row.Action), "label": types.StringValue(row.Label),
			"a": types.StringValue(row.A.End), "b": types.StringValue(row.B.End),
			"where": types.StringValue(row.WhereText()), "detail": types.StringValue(detail),
		})
	}
	m.PunchList = types.ListValueMust(types.ObjectType{AttrTypes: punchRowAttrTypes}, rows)
	csv, err := firstlight.PunchListCSV(r.Rows)
	if err != nil {
		diags.AddError("Cannot write the punch list", err.Error())
	}
	m.PunchListCSV = types.StringValue(csv)
	m.Report = types.StringValue(firstlight.Report(s, r.Rows))
	tp := firstlight.ExportTopo(g)
	m.Topo = types.StringValue(tp.Text)
	names := make([]string, 0, len(tp.IBNL))
	for n := range tp.IBNL {
		names = append(names, n)
	}
	sort.Strings(names)
	ibnl := map[string]attr.Value{}
	for _, n := range names {
		ibnl[n] = types.StringValue(tp.IBNL[n])
	}
	m.TopoIBNL = types.MapValueMust(types.StringType, ibnl)
	return diags
}
