package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/opensm"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/plan"
)

var (
	_ datasource.DataSource              = (*openSMFilesDataSource)(nil)
	_ datasource.DataSourceWithConfigure = (*openSMFilesDataSource)(nil)
)

func newOpenSMFilesDataSource() datasource.DataSource { return &openSMFilesDataSource{} }

// openSMFilesDataSource gives the texts of the files gpucluster_fabric keeps only digests of. It
// renders them with the fabric's own function (plan.Render) from the same inputs and the same
// rendering settings (openSMRenderAttributes), so its files hash to the fabric's `opensm`.
type openSMFilesDataSource struct {
	data *Data
}

type openSMFilesModel struct {
	fabricInputsModel
	SubnetManager types.Object `tfsdk:"subnet_manager"`

	Files            types.Map    `tfsdk:"files"`
	ExpectedTopology types.String `tfsdk:"expected_topology"`
}

func (d *openSMFilesDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_opensm_files"
}

func (d *openSMFilesDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.data = providerData(req.ProviderData, &resp.Diagnostics)
}

func (d *openSMFilesDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	attrs := map[string]schema.Attribute{}
	for k, v := range fabricInputAttributes() {
		attrs[k] = v
	}
	sm := map[string]schema.Attribute{}
	for k, v := range openSMRenderAttributes() {
		sm[k] = v
	}
	attrs["subnet_manager"] = schema.SingleNestedAttribute{
		Optional: true,
		MarkdownDescription: "The settings of `gpucluster_fabric.subnet_manager` that change the files: `config_dir`, " +
			"`routing_engine`, `lmc`, `options`, `roots`, `default_membership`, `log_file`, with the same meaning and " +
			"defaults. The fabric's whole `subnet_manager` object fits as it is (Terraform drops the other attributes), " +
			"so one local can feed both.",
		Attributes: sm,
	}
	attrs["files"] = schema.MapAttribute{
		Computed: true, ElementType: types.StringType,
		MarkdownDescription: "The exact text of every file the fabric pushes, keyed by its name on the host: `opensm.conf` " +
			"(routing engine, LMC, the paths of the other files, options), `partitions.conf` (the Default partition and " +
			"one line per partition, members by port GUID), `root_guids.conf` (root switch GUIDs), `cn_guids.conf` " +
			"(compute-node HCA port GUIDs) and `node-name-map` (GUID to name). Each hashes to the fabric's " +
			"`opensm[name].sha256` for the same inputs: `sha256(files[\"opensm.conf\"])`.",
	}
	attrs["expected_topology"] = schema.StringAttribute{
		Computed: true,
		MarkdownDescription: "The declared fabric in `ibnetdiscover` format, which `ibsim -s` loads as is: a " +
			"`switchguid=`/`caguid=` line and a `Switch`/`Ca` header per device (HCAs named `<node> <device>`, as " +
			"ConnectX ports describe themselves), one `[port] \"peer\"[port]` line per cabled port. " + docText().SimSpeed() + ", " +
			"because ibsim 0.10 cannot parse NDR or XDR; an HCA's node GUID is its declared port GUID " +
			"minus 1, because ibsim numbers CA ports from the node GUID. Compare it with what " +
			"`gpucluster_discovered_fabric` finds.",
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "The OpenSM files of a fabric, as text: what `gpucluster_fabric` renders and pushes with " +
			"`subnet_manager` and keeps only a digest of in its `opensm` output, so that a plan stays short. Takes the " +
			"fabric's own inputs (the same objects, or the maps of `gpucluster_topology`) and the rendering settings of " +
			"its `subnet_manager`. For CI artifacts (`local_file`) and the simulator (`expected_topology`).\n\n" +
			"To review a change, read the fabric's plan summary, not this data source: Terraform reads a data source " +
			"only at apply when a resource it depends on has a pending change (the partition a pull request adds), so " +
			"its `files` are unknown in exactly the plans a reviewer reads. The summary shows each file the plan " +
			"changes as a unified diff (the prior state's inputs rendered against the planned ones), bounded per file.",
		Attributes: attrs,
	}
}

func (d *openSMFilesDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m openSMFilesModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	// The inputs come from Wrap's stash when the request went through it (see wire.go and tfwire); m keeps
	// the null lists for State.Set and Wrap puts the config's back in the response.
	f, unknown, diags := readFabric(ctx, inventoryCatalog(d.data), &m.fabricInputsModel, true)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	var settings plan.OpenSMSettings // null subnet_manager: the defaults
	known := !m.SubnetManager.IsUnknown()
	if known && !m.SubnetManager.IsNull() {
		var rm openSMRenderModel
		resp.Diagnostics.Append(m.SubnetManager.As(ctx, &rm, objectAsOptions)...)
		settings, known = rm.settings()
	}
	if unknown || f == nil || !known {
		resp.Diagnostics.AddError("Unknown values", "gpucluster_opensm_files needs every value of its inputs known; Terraform reads it once they are.")
		return
	}
	rendered, ps := plan.Render(f, settings)
	addPlanProblems(&resp.Diagnostics, ps)
	if rendered == nil {
		return
	}
	files, g := rendered.Files, f.Graph
	m.Files = filesValue(files)
	m.ExpectedTopology = types.StringValue(opensm.ExpectedTopology(g))
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

func filesValue(files opensm.Files) types.Map {
	vs := make(map[string]attr.Value, len(files))
	for n, text := range files {
		vs[n] = types.StringValue(text)
	}
	return types.MapValueMust(types.StringType, vs)
}
