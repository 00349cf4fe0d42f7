package provider

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/float64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/objectvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/waves"
)

var (
	_ datasource.DataSource              = (*wavesDataSource)(nil)
	_ datasource.DataSourceWithConfigure = (*wavesDataSource)(nil)
)

func newMaintenanceWavesDataSource() datasource.DataSource { return &wavesDataSource{} }

// wavesDataSource is glue over waves.Split.
type wavesDataSource struct {
	data *Data
}

type wavesModel struct {
	fabricInputsModel
	Devices  types.List   `tfsdk:"devices"`
	Select   types.Object `tfsdk:"select"`
	Degraded types.Object `tfsdk:"degraded"`

	Waves   types.List   `tfsdk:"waves"`
	Fewest  types.Bool   `tfsdk:"fewest"`
	Summary types.String `tfsdk:"summary"`
}

type wavesSelectModel struct {
	Role types.String `tfsdk:"role"`
}

type wavesDegradedModel struct {
	MinBisectionRatio       types.Float64 `tfsdk:"min_bisection_ratio"`
	MaxOversubscription     types.Float64 `tfsdk:"max_oversubscription"`
	MaxUnreachableEndpoints types.Int64   `tfsdk:"max_unreachable_endpoints"`
}

var (
	waveProofAttrTypes = map[string]attr.Type{
		"bisection_lower_gbps": types.Float64Type, "full_bisection_gbps": types.Float64Type,
		"bisection_ratio": types.Float64Type, "required_ratio": types.Float64Type,
		"max_oversubscription": types.Float64Type, "unreachable_endpoints": types.Int64Type,
	}
	waveAttrTypes = map[string]attr.Type{
		"devices":       types.ListType{ElemType: types.StringType},
		"drained_nodes": types.ListType{ElemType: types.StringType},
		"degraded":      types.ObjectType{AttrTypes: waveProofAttrTypes},
	}
)

func (d *wavesDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_maintenance_waves"
}

func (d *wavesDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.data = providerData(req.ProviderData, &resp.Diagnostics)
}

func (d *wavesDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	attrs := map[string]schema.Attribute{}
	for k, v := range fabricInputAttributes() {
		attrs[k] = v
	}
	attrs["devices"] = schema.ListAttribute{
		Optional: true, ElementType: types.StringType,
		MarkdownDescription: "Switches and nodes to take down, by name. Give `devices` or `select`.",
		Validators: []validator.List{
			listvalidator.SizeAtLeast(1), listvalidator.UniqueValues(),
			listvalidator.ExactlyOneOf(path.MatchRoot("select")),
		},
	}
	attrs["select"] = schema.SingleNestedAttribute{
		Optional:            true,
		MarkdownDescription: "Take down every switch of a role instead of naming them.",
		Attributes: map[string]schema.Attribute{
			"role": schema.StringAttribute{
				Required: true, MarkdownDescription: "`leaf`, `spine` or `core`.",
				Validators: []validator.String{stringvalidator.OneOf(fabric.RoleLeaf, fabric.RoleSpine, fabric.RoleCore)},
			},
		},
		Validators: []validator.Object{objectvalidator.ExactlyOneOf(path.MatchRoot("devices"))},
	}
	attrs["degraded"] = schema.SingleNestedAttribute{
		Optional: true,
		MarkdownDescription: "The thresholds each wave must keep, as the fabric's `policy.degraded` takes them (pass the same " +
			"values). Always, whatever they say: no switch outside the wave cut off from the fabric.",
		Attributes: map[string]schema.Attribute{
			"min_bisection_ratio": schema.Float64Attribute{
				Optional: true,
				MarkdownDescription: "Least proved bisection of the fabric left running, as a share of its own full bisection " +
					"(⌊endpoints/2⌋ x port rate of the endpoints that still run). Default: 0.9 x the designed `bisection_ratio`.",
				Validators: []validator.Float64{float64validator.Between(0, 1)},
			},
			"max_oversubscription": schema.Float64Attribute{
				Optional: true, MarkdownDescription: "Largest down:up ratio of any switch left running (default: no limit).",
				Validators: []validator.Float64{float64validator.AtLeast(1)},
			},
			"max_unreachable_endpoints": schema.Int64Attribute{
				Optional: true,
				MarkdownDescription: "Most endpoints (HCAs) a wave may cut off; their nodes are drained for the wave. " +
					"The HCAs of nodes in the wave are down with them and count too (default: no limit).",
				Validators: []validator.Int64{int64validator.AtLeast(0)},
			},
		},
	}
	attrs["waves"] = schema.ListNestedAttribute{
		Computed: true,
		MarkdownDescription: "The waves, in order: each with its devices, the nodes to drain while it is down and the " +
			"degraded analysis of the fabric left running, which proves that the wave keeps the thresholds.",
		NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
			"devices":       schema.ListAttribute{Computed: true, ElementType: types.StringType, MarkdownDescription: "The devices this wave takes down."},
			"drained_nodes": schema.ListAttribute{Computed: true, ElementType: types.StringType, MarkdownDescription: "Nodes to drain first: nodes of the wave and nodes with an HCA the wave cuts off."},
			"degraded": schema.SingleNestedAttribute{
				Computed:            true,
				MarkdownDescription: "The fabric left running while the wave is down.",
				Attributes: map[string]schema.Attribute{
					"bisection_lower_gbps":  outFloat("Proved bisection bandwidth, Gb/s, one direction."),
					"full_bisection_gbps":   outFloat("Full bisection of the endpoints that still run: ⌊endpoints/2⌋ x port rate."),
					"bisection_ratio":       outFloat("`bisection_lower_gbps` over `full_bisection_gbps`, rounded down."),
					"required_ratio":        outFloat("The ratio the wave must keep (`degraded.min_bisection_ratio`, or its default)."),
					"max_oversubscription":  outFloat("Worst down:up ratio of a switch left running."),
					"unreachable_endpoints": outInt("HCAs the wave cuts off, and HCAs of the wave's own nodes."),
				},
			},
		}},
	}
	attrs["fewest"] = schema.BoolAttribute{Computed: true,
		MarkdownDescription: "Whether the wave count is proved the fewest: by exhaustive search over the waves that hold, " +
			"for up to 16 devices. Past that the waves are first-fit (each device into the first wave that still holds) and this is `false`."}
	attrs["summary"] = outStr("One line per wave, for a plan or a change ticket: its devices, the nodes to drain and its proved bisection.")
	resp.Schema = schema.Schema{
		MarkdownDescription: "Maintenance waves: the fewest groups of switches or nodes that can go down together (for a " +
			"firmware update, a repair) while the fabric left running keeps `policy.degraded`, each with the analysis that " +
			"proves it. A device that cannot go down even alone is refused by name with the limit it breaks.",
		Attributes: attrs,
	}
}

func (d *wavesDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m wavesModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	cat := inventoryCatalog(d.data)
	f, unknown, diags := readFabric(ctx, cat, &m.fabricInputsModel, false)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	if unknown || f == nil {
		resp.Diagnostics.AddError("Unknown values", "gpucluster_maintenance_waves needs every value of its inputs known; Terraform reads it once they are.")
		return
	}
	var devices []string
	devicesPath := path.Root("devices")
	if !m.Devices.IsNull() {
		resp.Diagnostics.Append(m.Devices.ElementsAs(ctx, &devices, false)...)
		var unknownDevices diag.Diagnostics
		for i, name := range devices {
			if f.Spec.SwitchNamed(name) == nil && f.Spec.NodeNamed(name) == nil {
				unknownDevices.AddAttributeError(devicesPath.AtListIndex(i), "No such device",
					fmt.Sprintf("%q is neither a switch nor a node of the fabric; name a switch or a node the fabric has", name))
			}
		}
		resp.Diagnostics.Append(capDiagnostics(unknownDevices)...)
	} else {
		var sel wavesSelectModel
		resp.Diagnostics.Append(m.Select.As(ctx, &sel, objectAsOptions)...)
		for _, s := range f.Graph.Devices {
			if s.Kind == fabric.KindSwitch && s.Role == sel.Role.ValueString() {
				devices = append(devices, s.Name)
			}
		}
		if len(devices) == 0 {
			resp.Diagnostics.AddAttributeError(path.Root("select").AtName("role"), "No switch of that role",
				fmt.Sprintf("the fabric has no %s switch; select a role it has", sel.Role.ValueString()))
		}
	}
	if resp.Diagnostics.HasError() {
		return
	}
	var lim waves.Limits
	if !m.Degraded.IsNull() {
		var dm wavesDegradedModel
		resp.Diagnostics.Append(m.Degraded.As(ctx, &dm, objectAsOptions)...)
		lim.MinBisectionRatio, lim.MaxOversubscription = floatPtr(dm.MinBisectionRatio), floatPtr(dm.MaxOversubscription)
		if !dm.MaxUnreachableEndpoints.IsNull() {
			n := int(dm.MaxUnreachableEndpoints.ValueInt64())
			lim.MaxUnreachableEndpoints = &n
		}
	}
	p, err := waves.Split(f.Spec, cat, devices, lim)
	var refused *waves.RefusedError
	switch {
	case errors.As(err, &refused):
		index := map[string]int{}
		for i, name := range devices {
			index[name] = i
		}
		var held diag.Diagnostics
		for _, r := range refused.Refused {
			at := path.Root("select").AtName("role")
			if i, ok := index[r.Devices[0]]; ok && !m.Devices.IsNull() {
				at = devicesPath.AtListIndex(i)
			}
			held.AddAttributeError(at, "No wave can hold "+r.Devices[0],
				fmt.Sprintf("%s cannot go down even alone: %s. Take it down in a window with the fabric drained, or loosen degraded.",
					r.Devices[0], strings.Join(r.Breaks, "; ")))
		}
		// One per device that no wave holds (every spine of a fabric with one, say): capped.
		resp.Diagnostics.Append(capDiagnosticsBy(held, func(diag.Diagnostic) string { return "No wave can hold these devices" })...)
		return
	case err != nil:
		resp.Diagnostics.AddError("Maintenance waves", err.Error())
		return
	}
	var elems []attr.Value
	var lines []string
	for i, w := range p.Waves {
		a := w.Analysis
		proof, ds := types.ObjectValue(waveProofAttrTypes, map[string]attr.Value{
			"bisection_lower_gbps": types.Float64Value(a.BisectionLowerGbps), "full_bisection_gbps": types.Float64Value(a.FullBisectionGbps),
			"bisection_ratio": types.Float64Value(a.BisectionRatio), "required_ratio": types.Float64Value(w.MinRatio),
			"max_oversubscription": types.Float64Value(a.MaxOversubscription), "unreachable_endpoints": types.Int64Value(int64(w.Unreachable)),
		})
		resp.Diagnostics.Append(ds...)
		devs, ds := types.ListValueFrom(ctx, types.StringType, w.Devices)
		resp.Diagnostics.Append(ds...)
		drained, ds := types.ListValueFrom(ctx, types.StringType, append([]string{}, w.DrainedNodes...))
		resp.Diagnostics.Append(ds...)
		obj, ds := types.ObjectValue(waveAttrTypes, map[string]attr.Value{"devices": devs, "drained_nodes": drained, "degraded": proof})
		resp.Diagnostics.Append(ds...)
		elems = append(elems, obj)
		lines = append(lines, w.Line(i+1))
	}
	m.Waves, diags = types.ListValue(types.ObjectType{AttrTypes: waveAttrTypes}, elems)
	resp.Diagnostics.Append(diags...)
	m.Fewest = types.BoolValue(p.Fewest)
	m.Summary = types.StringValue(strings.Join(lines, "\n"))
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}
