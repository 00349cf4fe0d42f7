package provider

import (
	"context"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/plan"
	"github.com/hashicorp/terraform-plugin-framework-validators/float64validator"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

var (
	_ datasource.DataSource              = (*diagramDataSource)(nil)
	_ datasource.DataSourceWithConfigure = (*diagramDataSource)(nil)
)

func newDiagramDataSource() datasource.DataSource { return &diagramDataSource{} }

// diagramDataSource is glue over plan.Diagram (internal/diagram, with the analysis highlights).
type diagramDataSource struct {
	data *Data
}

type diagramModel struct {
	fabricInputsModel
	Title               types.String  `tfsdk:"title"`
	FoldAbove           types.Int64   `tfsdk:"fold_above"`
	Highlight           types.Bool    `tfsdk:"highlight"`
	MaxOversubscription types.Float64 `tfsdk:"max_oversubscription"`

	DOT types.String `tfsdk:"dot"`
	SVG types.String `tfsdk:"svg"`
}

func (d *diagramDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_diagram"
}

func (d *diagramDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.data = providerData(req.ProviderData, &resp.Diagnostics)
}

func (d *diagramDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	attrs := map[string]schema.Attribute{}
	for k, v := range fabricInputAttributes() {
		attrs[k] = v
	}
	attrs["title"] = schema.StringAttribute{Optional: true, MarkdownDescription: "Title drawn above the picture (default `fabric`)."}
	attrs["fold_above"] = schema.Int64Attribute{Optional: true,
		MarkdownDescription: "Nodes get a box each up to this many nodes (default 32, one scalable unit); beyond it they " +
			"are folded into one box per scalable unit or generator group, else per rack, else per leaf. `-1` never folds."}
	attrs["highlight"] = schema.BoolAttribute{Optional: true,
		MarkdownDescription: "Draw the analysis' witness cut (its crossing bundles in red, the two sides' switches with " +
			"blue and purple borders) and the oversubscribed switches (orange). Default `true`."}
	attrs["max_oversubscription"] = schema.Float64Attribute{Optional: true,
		Validators:          []validator.Float64{float64validator.AtLeast(1)},
		MarkdownDescription: "Switches whose down:up ratio exceeds this are highlighted (default 1: any blocking switch)."}
	attrs["dot"] = outStr("The fabric in Graphviz DOT: one rank per tier (highest on top), every switch a box with its " +
		"name and model, node boxes below the leaves, and the parallel links between two boxes drawn once with their count " +
		"and capacity (`" + docText().Bundle() + "`). Render it with `dot -Tsvg`.")
	attrs["svg"] = outStr("The same picture as a standalone SVG laid out by the provider itself (layers by tier, boxes " +
		"in fabric order, deterministic), so a plan needs no Graphviz. Where bundles are too many to label, the legend " +
		"sums them per tier pair and each line's tooltip carries its numbers.")
	resp.Schema = schema.Schema{
		MarkdownDescription: "A picture of the fabric: Graphviz DOT and a ready SVG, from the fabric's own inputs " +
			"(`design` and the maps). Write them out with `terraform output -raw` or a `local_file`.",
		Attributes: attrs,
	}
}

func (d *diagramDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m diagramModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	cat := inventoryCatalog(d.data)
	f, unknown, diags := readFabric(ctx, cat, &m.fabricInputsModel, true)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	if unknown || f == nil {
		resp.Diagnostics.AddError("Unknown values", "gpucluster_diagram needs every value of its inputs known; Terraform reads it once they are.")
		return
	}
	title := m.Title.ValueString()
	if title == "" {
		title = "fabric"
	}
	highlight := m.Highlight.IsNull() || m.Highlight.ValueBool()
	dg, err := plan.Diagram(f, title, int(m.FoldAbove.ValueInt64()), highlight, m.MaxOversubscription.ValueFloat64())
	if err != nil {
		resp.Diagnostics.AddError("Diagram", err.Error())
		return
	}
	m.DOT = types.StringValue(dg.DOT())
	m.SVG = types.StringValue(dg.SVG())
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}
