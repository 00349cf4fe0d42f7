package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/plan"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/policy"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/scheduler"
)

var (
	_ datasource.DataSource              = (*schedulerTopologyDataSource)(nil)
	_ datasource.DataSourceWithConfigure = (*schedulerTopologyDataSource)(nil)
)

func newSchedulerTopologyDataSource() datasource.DataSource { return &schedulerTopologyDataSource{} }

// schedulerTopologyDataSource is glue over internal/scheduler: it reads the fabric's inputs with
// the shared reader and renders what Slurm and Kueue need.
type schedulerTopologyDataSource struct {
	data *Data
}

type schedulerTopologyModel struct {
	fabricInputsModel
	Name          types.String `tfsdk:"name"`
	LabelKeys     types.List   `tfsdk:"label_keys"`
	HostnameLevel types.Bool   `tfsdk:"hostname_level"`
	RootName      types.String `tfsdk:"root_name"`
	FailedCables  types.List   `tfsdk:"failed_cables"`

	SlurmTopologyConf      types.String `tfsdk:"slurm_topology_conf"`
	SlurmBlockTopologyConf types.String `tfsdk:"slurm_block_topology_conf"`
	KueueTopology          types.String `tfsdk:"kueue_topology"`
	NodeLabels             types.Map    `tfsdk:"node_labels"`
	Units                  types.Map    `tfsdk:"units"`
	Notes                  types.List   `tfsdk:"notes"`
	DrainNodes             types.Map    `tfsdk:"drain_nodes"`
}

func (d *schedulerTopologyDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_scheduler_topology"
}

func (d *schedulerTopologyDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.data = providerData(req.ProviderData, &resp.Diagnostics)
}

func (d *schedulerTopologyDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	attrs := map[string]schema.Attribute{}
	for k, v := range fabricInputAttributes() {
		attrs[k] = v
	}
	attrs["name"] = schema.StringAttribute{Optional: true,
		MarkdownDescription: "`metadata.name` of the Kueue Topology (default `gpucluster`); a ResourceFlavor's `topologyName` names it."}
	attrs["label_keys"] = schema.ListAttribute{Optional: true, ElementType: types.StringType,
		Validators: []validator.List{listvalidator.ValueStringsAre(labelKeyValidator{})},
		MarkdownDescription: "Node label keys of the fabric tiers, tier 0 (the leaf, or the scalable unit) first. Tiers " +
			"without a key here take NVIDIA Topograph's `fabric.topograph.run/tier-N` (Topograph reference, \"Node Labels " +
			"and Annotations\": tier 0 is the switch closest to the node), so Kueue, KAI or Run:ai set up for Topograph " +
			"work unchanged."}
	attrs["hostname_level"] = schema.BoolAttribute{Optional: true,
		MarkdownDescription: "Whether `kubernetes.io/hostname` is the Topology's last level, as Kueue recommends (default " +
			"`true`). The kubelet sets that label, so `node_labels` never carries it."}
	attrs["root_name"] = schema.StringAttribute{Optional: true,
		Validators: []validator.String{stringRule{"Invalid root_name", "a name topology.conf can carry", scheduler.CheckName}},
		MarkdownDescription: "Name of the virtual top switch written to `slurm_topology_conf` when no switch of the " +
			"fabric reaches every node (dragonfly+ groups, a torus); default `fabric`."}
	attrs["failed_cables"] = schema.ListNestedAttribute{
		Optional: true,
		MarkdownDescription: "The fabric's `failed_cables` (cables cabled and down), as `gpucluster_fabric` takes them: a node " +
			"with an HCA cut off by its own failed cable is listed in `drain_nodes`. The topology itself stays as designed, so " +
			"the node comes back where it was once the cable is replaced.",
		NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
			"cable": schema.StringAttribute{Required: true, MarkdownDescription: "The cable: an end label (`gpu005/mlx5_3:1`) or a full label.",
				Validators: []validator.String{stringvalidator.LengthAtLeast(1)}},
			"reason": schema.StringAttribute{Optional: true, MarkdownDescription: "Why it is down."},
			"since": schema.StringAttribute{Optional: true, MarkdownDescription: "Since when, `YYYY-MM-DD`.",
				Validators: []validator.String{stringvalidator.RegexMatches(sinceRe, "must be a date YYYY-MM-DD, e.g. \"2026-11-30\"")}},
		}},
	}
	attrs["drain_nodes"] = schema.MapAttribute{Computed: true, ElementType: types.StringType,
		MarkdownDescription: "Nodes to drain while `failed_cables` are down: node -> reason (`gpu005/mlx5_3 cut off: failed cable " +
			"gpu005/mlx5_3:1 <-> leaf02:4`), the nodes `gpucluster_fabric` warns about (`analysis.degraded.unreachable_endpoints`). " +
			"For Slurm, `scontrol update NodeName=<node> State=DRAIN Reason=\"<reason>\"`; for Kubernetes, `kubectl cordon` and " +
			"`kubectl drain`. Empty without failed cables."}
	attrs["slurm_topology_conf"] = outStr("`topology.conf` for Slurm's `TopologyPlugin=topology/tree`: one " +
		"`SwitchName=... Nodes=...` line per leaf-level switch and one `SwitchName=... Switches=...` line per upper switch, " +
		"names from the fabric, lists in Slurm hostlist form (`gpu[001-031]`). Write it next to `slurm.conf`.")
	attrs["slurm_block_topology_conf"] = outStr("`topology.conf` for `TopologyPlugin=topology/block` (Slurm 23.11 and " +
		"later): one `BlockName=... Nodes=...` line per scalable unit (per leaf where the fabric has none), in node order, " +
		"and `BlockSizes`: the smallest block's node count (Slurm: \"each block must have at least the planning base " +
		"block size count of nodes\") doubled up to the largest power of two of blocks the fabric holds.")
	attrs["kueue_topology"] = outStr("A Kueue `Topology` object (YAML, `kueue.x-k8s.io/v1beta2`, Kueue's storage " +
		"version since v0.15) whose levels are the fabric tiers' node labels, broadest first, and `kubernetes.io/hostname` " +
		"last. Apply it with `kubectl apply -f` and name it in a ResourceFlavor's `spec.topologyName`.")
	attrs["node_labels"] = schema.MapAttribute{Computed: true, ElementType: types.MapType{ElemType: types.StringType},
		MarkdownDescription: "Per node, the labels it must carry for `kueue_topology`: tier key -> domain (`su01`, " +
			"`spines`, `pod01`, a leaf's name). Ready for a `kubernetes_labels` resource or `kubectl label node`."}
	attrs["units"] = schema.MapAttribute{Computed: true, ElementType: types.ListType{ElemType: types.StringType},
		MarkdownDescription: "The leaf level: unit name -> the leaf switches it stands for (a leaf stands for itself)."}
	attrs["notes"] = schema.ListAttribute{Computed: true, ElementType: types.StringType,
		MarkdownDescription: "What was left out and why (nodes without a cabled HCA, leaves without nodes), and the nodes to drain (`drain_nodes`)."}
	resp.Schema = schema.Schema{
		MarkdownDescription: "What job schedulers need from the fabric: Slurm's `topology.conf` for the tree and block " +
			"plugins, a Kueue `Topology` and the node labels its levels read. Takes the fabric's own inputs (`design` and " +
			"the maps).\n\n" +
			"**The leaf level.** Slurm's tree plugin places a job under the lowest switch that holds all its nodes and " +
			"expects each node under one leaf switch: it logs \"Multiple leaf switches contain nodes\" otherwise " +
			"(topology.conf(5), https://slurm.schedmd.com/topology.conf.html, and the plugin's switch_record.c). A " +
			"rail-optimized fabric cables each DGX to eight rail leaves, and NVIDIA's SuperPOD reference architecture " +
			"(RA-11333-001) states that traffic per rail \"is always one hop away from the other 31 nodes in a SU\": the " +
			"scalable unit, not a rail leaf, is the one-hop domain. So the leaves that share nodes are written as one " +
			"leaf-level switch named after their scalable unit (`su01`), every spine lists the units below it, and the " +
			"same unit is Kueue's tier 0 and Slurm's block. A fat tree, whose nodes each hang from one leaf, keeps its " +
			"leaves as they are.\n\n" +
			"**Checked against the real peers:** Debian's slurmctld 22.05 loads the tree file and `scontrol show " +
			"topology` lists exactly the expected switches and nodes; the block file is checked against Slurm's " +
			"documented grammar only, because Slurm 22.05 predates topology/block (23.11); the Topology decodes strictly " +
			"into Kueue's own Go API types (sigs.k8s.io/kueue v0.17).",
		Attributes: attrs,
	}
}

func (d *schedulerTopologyDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m schedulerTopologyModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	cat := inventoryCatalog(d.data)
	inputs, unknown, diags := decodeInputs(ctx, &m.fabricInputsModel)
	diags = capDiagnostics(diags)
	failed, known, fd := failedCables(ctx, m.FailedCables)
	diags.Append(fd...)
	var f *plan.Fabric
	if !unknown && known && !diags.HasError() {
		inputs.Failed = failed
		var ps plan.Problems
		f, ps = plan.Build(cat, inputs)
		addPlanProblems(&diags, ps)
	}
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	if unknown || !known || f == nil || m.LabelKeys.IsUnknown() {
		resp.Diagnostics.AddError("Unknown values", "gpucluster_scheduler_topology needs every value of its inputs known; Terraform reads it once they are.")
		return
	}
	drain := map[string]string{}
	if f.Running != nil {
		for _, dr := range policy.CutOff(f.Graph, f.Running).Drain {
			drain[dr.Node] = dr.Reason()
		}
	}
	opts := scheduler.Options{
		Drain:           drain,
		Groups:          f.Spec.Groups,
		RootName:        m.RootName.ValueString(),
		TopologyName:    m.Name.ValueString(),
		NoHostnameLevel: !m.HostnameLevel.IsNull() && !m.HostnameLevel.ValueBool(),
	}
	for _, v := range m.LabelKeys.Elements() {
		if s, ok := v.(types.String); ok {
			opts.LabelKeys = append(opts.LabelKeys, s.ValueString())
		}
	}
	top, err := scheduler.Build(f.Graph, opts)
	if err == nil {
		err = top.CheckLabels()
	}
	if err != nil {
		resp.Diagnostics.AddError("Scheduler topology", err.Error()+"; rename the device so that Slurm and Kubernetes can carry its name.")
		return
	}
	m.SlurmTopologyConf = types.StringValue(top.TreeConf(top.Name()))
	m.SlurmBlockTopologyConf = types.StringValue(top.BlockConf(top.Name()))
	m.KueueTopology = types.StringValue(top.KueueTopology())
	labels := map[string]attr.Value{}
	for nd, ls := range top.NodeLabels() {
		vs := map[string]attr.Value{}
		for k, v := range ls {
			vs[k] = types.StringValue(v)
		}
		labels[nd] = types.MapValueMust(types.StringType, vs)
	}
	m.NodeLabels = types.MapValueMust(types.MapType{ElemType: types.StringType}, labels)
	units := map[string]attr.Value{}
	for name, leaves := range top.UnitLeaves() {
		units[name] = textList(leaves)
	}
	m.Units = types.MapValueMust(types.ListType{ElemType: types.StringType}, units)
	m.Notes = textList(top.Notes())
	dm := map[string]attr.Value{}
	for _, nd := range top.Drain {
		dm[nd] = types.StringValue(drain[nd])
	}
	m.DrainNodes = types.MapValueMust(types.StringType, dm)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}
