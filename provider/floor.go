package provider

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	lschema "github.com/hashicorp/terraform-plugin-framework/list/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	pschema "github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/asbuilt"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/importid"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/remote"
	"github.com/gpucluster/terraform-provider-gpucluster/provider/tfwire"
)

// The fabric on the floor, read the way gpucluster_discovered_fabric reads it (a topology file,
// or ibnetdiscover over SSH, through the same reader with the same options) and named the same way as
// its `as_built`, for the list resources (terraform query) and for imports by identity, which
// fill an item from the provider's `floor`. One reader: asbuilt.LoadFile and LoadText; this file
// only fetches the text over SSH, says where problems go, and turns the floor's items into the
// resources' models.

// floorModel is where a floor is read from: the provider's `floor` and a list block's config.
type floorModel struct {
	TopologyFile         types.String `tfsdk:"topology_file"`
	NodeNameMap          types.String `tfsdk:"node_name_map"`
	Simulated            types.Bool   `tfsdk:"simulated"`
	Host                 types.String `tfsdk:"host"`
	Port                 types.Int64  `tfsdk:"port"`
	IBNetDiscoverCommand types.String `tfsdk:"ibnetdiscover_command"`
}

// floorAttributeDocs describes each floor attribute once, for the provider's and the list
// resources' schemas.
var floorAttributeDocs = map[string]string{
	"topology_file": "Read the floor from this file: ibnetdiscover output, as `gpucluster_discovered_fabric` reads it " +
		"(the committed as-built record). Exactly one of `topology_file` and `host`.",
	"node_name_map": "OpenSM's node-name-map file: where it names a switch's node GUID, or a CA's node or port GUID, its " +
		"name wins over the node description, as in `gpucluster_discovered_fabric`'s `as_built`.",
	"simulated": "The floor is ibsim running a declared fabric: its `4xHDR` stand-in reads as NDR.",
	"host": "Run ibnetdiscover over SSH on this host of the fabric (the SM host, or any host with an HCA on it and " +
		"infiniband-diags); `host` or `host:port`. User, key and known_hosts come from the provider's `ssh` block.",
	"port":                  "SSH port when `host` has none (default 22).",
	"ibnetdiscover_command": "Command that prints the fabric in ibnetdiscover format over SSH (default `ibnetdiscover`).",
}

// floorFileValidators check a floor's topology_file, which is the alternative to host.
var floorFileValidators = []validator.String{
	filePathValidator("a file of ibnetdiscover output", "leave topology_file unset and give host to run ibnetdiscover there over SSH"),
}

// set reports whether the model names a source.
func (m floorModel) set() bool { return !m.TopologyFile.IsNull() || !m.Host.IsNull() }

// check reports a model that names no source or both; at is where to report it.
func (m floorModel) check(at path.Path, diags *diag.Diagnostics) {
	switch {
	case !m.TopologyFile.IsNull() && !m.Host.IsNull():
		diags.AddAttributeError(at, "Two sources for the floor", "Give either topology_file (a committed ibnetdiscover output) or host (ibnetdiscover run there over SSH), not both.")
	case !m.set():
		diags.AddAttributeError(at, "No source for the floor", "Give topology_file (a committed ibnetdiscover output) or host (ibnetdiscover run there over SSH), here or in the provider's floor = { ... }.")
	}
}

// readFloor reads the floor a model names. at is where to report a problem with it.
func readFloor(ctx context.Context, data *Data, m floorModel, at path.Path) (*asbuilt.Floor, diag.Diagnostics) {
	var diags diag.Diagnostics
	m.check(at, &diags)
	if diags.HasError() {
		return nil, diags
	}
	src := floorSource{topologyFile: m.TopologyFile, nodeNameMap: m.NodeNameMap, command: m.IBNetDiscoverCommand,
		host: fabricHostModel{Host: m.Host, Port: m.Port}}
	l := src.load(ctx, data, m.Simulated.ValueBool(), at, func(bool) (path.Path, string) { return at, "The floor cannot be adopted" }, &diags)
	if l == nil {
		return nil, diags
	}
	return l.Floor, diags
}

// floorSource is where a floor's ibnetdiscover text comes from, as the provider's floor, a list
// block's config and gpucluster_discovered_fabric all give it: topology_file, or host over SSH
// with ibnetdiscover_command, and node_name_map.
type floorSource struct {
	topologyFile, nodeNameMap, command types.String
	host                               fabricHostModel
	// emptyOK adopts a text with nothing in it as an empty floor (gpucluster_discovered_fabric's
	// empty_ok, which offersEmptyOK says it has); elsewhere a floor with no switch is an error.
	emptyOK, offersEmptyOK bool
}

// load fetches the text over SSH when no topology_file is given and hands it, or the file, to
// asbuilt's one reader. Problems go on the attributes under at; adoptAt says where and how to
// report a floor that cannot be adopted (fromFile: the text came from topology_file). nil when
// an error was reported.
func (s floorSource) load(ctx context.Context, data *Data, simulated bool, at path.Path,
	adoptAt func(fromFile bool) (path.Path, string), diags *diag.Diagnostics) *asbuilt.Loaded {
	opts := asbuilt.ReadOptions{Simulated: simulated, Catalog: inventoryCatalog(data)}
	lo := asbuilt.LoadOptions{EmptyOK: s.emptyOK}
	fromFile := !s.topologyFile.IsNull()
	var l *asbuilt.Loaded
	var err error
	if fromFile {
		// Room for the MessagePack header of the text, which gpucluster_discovered_fabric sends
		// back as its topology without copying it (topologyValue).
		l, err = asbuilt.LoadFileAfter(s.topologyFile.ValueString(), s.nodeNameMap.ValueString(), opts, lo, tfwire.StringRoom)
	} else {
		text, ok := discoverOverSSH(ctx, data, s.host, s.command, at, diags)
		if !ok {
			return nil
		}
		l, err = asbuilt.LoadTextWith(text, s.nodeNameMap.ValueString(), opts, lo)
	}
	warnUnparsed(l.Unparsed, diags)
	if err == nil {
		return l
	}
	p, summary := adoptAt(fromFile)
	if le := (*asbuilt.LoadError)(nil); errors.As(err, &le) {
		switch le.Input {
		case asbuilt.InputTopology:
			p, summary = at.AtName("topology_file"), "Cannot read the topology file"
		case asbuilt.InputNodeNameMap:
			p, summary = at.AtName("node_name_map"), "Cannot read the node name map"
		case asbuilt.InputTopologyText:
			// The data source, the list resources and the drift report all read the text here:
			// a text that is no one fabric is refused alike, where it came from.
			p, summary = at.AtName("topology_file"), "The topology is not one fabric"
			if !fromFile {
				p = at.AtName("ibnetdiscover_command")
			}
		}
	}
	msg := err.Error()
	if errors.Is(err, asbuilt.ErrNoSwitch) {
		summary = "The topology holds no switch"
		if !fromFile {
			p = at.AtName("ibnetdiscover_command")
		}
		switch {
		case s.offersEmptyOK && !s.emptyOK:
			msg += " with empty_ok = true"
		case !s.offersEmptyOK:
			msg += " in gpucluster_discovered_fabric (empty_ok = true); a floor to list or import from holds a switch"
		}
	}
	diags.AddAttributeError(p, summary, msg)
	return nil
}

// discoverOverSSH runs ibnetdiscover on host; problems go on host and ibnetdiscover_command
// under at.
func discoverOverSSH(ctx context.Context, data *Data, host fabricHostModel, command types.String, at path.Path, diags *diag.Diagnostics) (string, bool) {
	ctx, cancel := context.WithTimeout(ctx, fabricDiagTimeout)
	defer cancel()
	c, err := dialFabricHost(ctx, data, host)
	if err != nil {
		diags.AddAttributeError(at.AtName("host"), "Cannot reach "+host.Host.ValueString(), err.Error())
		return "", false
	}
	defer func() { _ = c.Close() }()
	return runIBNetDiscover(ctx, c, command, at, diags)
}

// runIBNetDiscover runs the ibnetdiscover command (default `ibnetdiscover`) on c; a failure goes
// on ibnetdiscover_command under at.
func runIBNetDiscover(ctx context.Context, c *remote.Client, command types.String, at path.Path, diags *diag.Diagnostics) (string, bool) {
	cmd := command.ValueString()
	if cmd == "" {
		cmd = "ibnetdiscover"
	}
	text, err := runDiag(ctx, c, cmd)
	if err != nil {
		diags.AddAttributeError(at.AtName("ibnetdiscover_command"), "ibnetdiscover failed", err.Error())
		return "", false
	}
	return text, true
}

// topologyValue is the text of l as the MessagePack string of an output: the file's own bytes
// when it was read from one (floorSource.load leaves room for the header), else a copy.
func topologyValue(l *asbuilt.Loaded) []byte {
	if l.File != nil {
		return tfwire.StringAfter(l.File, tfwire.StringRoom)
	}
	return tfwire.AppendString(nil, l.Text)
}

// warnUnparsed reports the lines of ibnetdiscover output opensm.ParseTopology could not read; it
// used the rest.
func warnUnparsed(err error, diags *diag.Diagnostics) {
	if err != nil {
		diags.AddWarning("Part of the ibnetdiscover output was not understood", err.Error())
	}
}

// providerFloor is the provider's `floor`, read once per provider process; nil without one.
type providerFloor struct {
	model floorModel
	once  sync.Once
	floor *asbuilt.Floor
	diags diag.Diagnostics
}

// get reads the provider's floor the first time it is needed.
func (p *providerFloor) get(ctx context.Context, data *Data) (*asbuilt.Floor, diag.Diagnostics) {
	p.once.Do(func() { p.floor, p.diags = readFloor(ctx, data, p.model, path.Root("floor")) })
	return p.floor, p.diags
}

// floorOf returns the provider's floor for an import by identity: nil, without a word, when the
// provider has none; a floor that cannot be read is an error.
func floorOf(ctx context.Context, data *Data, diags *diag.Diagnostics) *asbuilt.Floor {
	if data == nil || data.floor == nil {
		return nil
	}
	f, d := data.floor.get(ctx, data)
	for _, x := range d {
		diags.AddError("The provider's floor cannot be read", fmt.Sprintf("%s: %s", x.Summary(), x.Detail()))
	}
	return f
}

// The floor's items as the resources' models: what a list result holds, and what an import by
// identity of an item on the floor starts from. Discovery sees no rack, so none has a location.

func floorSwitch(data *Data, s *fabric.Switch) switchModel {
	n := types.StringValue(s.Name)
	m := switchModel{ID: n, Name: n, Model: types.StringValue(orDefault(s.Model, defaultSwitchModel)), Rack: types.StringNull(),
		PositionU: types.Int64Null(), Role: strOrNull(s.Role), GUID: strOrNull(s.GUID), Group: strOrNull(s.Group), Ports: types.Int64Null()}
	if sm, ok := inventoryCatalog(data).Switches[m.Model.ValueString()]; ok {
		m.Ports = types.Int64Value(int64(sm.Ports))
	}
	return m
}

func floorNode(ctx context.Context, data *Data, spec *fabric.Spec, nd *fabric.Node) nodeModel {
	n := types.StringValue(nd.Name)
	m := nodeModel{ID: n, Name: n, Model: types.StringValue(orDefault(nd.Model, defaultNodeModel)), Rack: types.StringNull(),
		PositionU: types.Int64Null(), SSHHost: types.StringNull()}
	nullNodeBMCFields(&m)
	devs := asbuilt.NodeHCADevices(spec, nd, inventoryCatalog(data), m.Model.ValueString())
	m.ComputeHCAs = types.Int64Value(int64(len(devs)))
	m.HCADevices, _ = types.ListValueFrom(ctx, types.StringType, devs)
	return m
}

func floorHCA(h *fabric.HCA) hcaModel {
	n := types.StringValue(orDefault(h.Name, fabric.HCAName(h.Node, h.Device)))
	m := hcaModel{ID: n, Name: n, Node: types.StringValue(h.Node), Device: types.StringValue(h.Device),
		Model: types.StringValue(orDefault(h.Model, defaultHCAModel)), PortGUID: strOrNull(h.PortGUID),
		Rail: types.Int64Null(), MSTDevice: types.StringNull()}
	if h.Rail >= 0 {
		m.Rail = types.Int64Value(int64(h.Rail))
	}
	nullHCAFirmwareFields(&m)
	return m
}

func floorCable(c *fabric.Cable) cableModel { return importedCable(importid.FloorCable(c)) }

// importedCable is the model of a cable imported from the floor or by identity alone: one mapping
// of importid.Cable for both, so an item imported and the same item listed plan alike. No SKU:
// neither names one, and the plan picks it.
func importedCable(ci importid.Cable) cableModel {
	a, b := cableEnd(ci.A), cableEnd(ci.B)
	l := types.StringValue(cableLabel(a, b))
	return cableModel{ID: l, A: a.object(), B: b.object(), Kind: types.StringPointerValue(ci.Kind),
		LengthM: types.Float64PointerValue(ci.LengthM), Label: l, SKU: types.StringNull()}
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func strOrNull(s string) types.String {
	if s == "" {
		return types.StringNull()
	}
	return types.StringValue(s)
}

// floorProviderAttribute is the provider's `floor`.
func floorProviderAttribute() pschema.SingleNestedAttribute {
	d := floorAttributeDocs
	return pschema.SingleNestedAttribute{
		Optional: true,
		MarkdownDescription: "The fabric on the floor, read as `gpucluster_discovered_fabric` reads it: what an `import` block " +
			"with an `identity` of a switch, node, HCA or cable fills the item from (its GUID, model and devices, as the " +
			"list resources return it), and what the list resources read when their `config` names no source. Read once " +
			"per run, and only when an import or a list needs it.",
		Attributes: map[string]pschema.Attribute{
			"topology_file":         pschema.StringAttribute{Optional: true, MarkdownDescription: d["topology_file"], Validators: floorFileValidators},
			"node_name_map":         pschema.StringAttribute{Optional: true, MarkdownDescription: d["node_name_map"], Validators: []validator.String{nodeNameMapValidator()}},
			"simulated":             pschema.BoolAttribute{Optional: true, MarkdownDescription: d["simulated"]},
			"host":                  pschema.StringAttribute{Optional: true, MarkdownDescription: d["host"]},
			"port":                  pschema.Int64Attribute{Optional: true, MarkdownDescription: d["port"]},
			"ibnetdiscover_command": pschema.StringAttribute{Optional: true, MarkdownDescription: d["ibnetdiscover_command"]},
		},
	}
}

// floorListSchema is the configuration of the list resources: where to read the floor.
func floorListSchema(what string) lschema.Schema {
	d := floorAttributeDocs
	return lschema.Schema{
		MarkdownDescription: "Every " + what + " of the fabric on the floor, read as `gpucluster_discovered_fabric` reads it and " +
			"named as its `as_built` names them, for `terraform query` (Terraform 1.14 or later): with " +
			"`-generate-config-out`, a resource block and an `import` block with its identity for each. Without a source " +
			"in `config`, the provider's `floor` is read; give the provider that `floor` for the imports too, so that they " +
			"fill each item from it and the generated configuration plans with no change.",
		Attributes: map[string]lschema.Attribute{
			"topology_file":         lschema.StringAttribute{Optional: true, MarkdownDescription: d["topology_file"], Validators: floorFileValidators},
			"node_name_map":         lschema.StringAttribute{Optional: true, MarkdownDescription: d["node_name_map"], Validators: []validator.String{nodeNameMapValidator()}},
			"simulated":             lschema.BoolAttribute{Optional: true, MarkdownDescription: d["simulated"]},
			"host":                  lschema.StringAttribute{Optional: true, MarkdownDescription: d["host"]},
			"port":                  lschema.Int64Attribute{Optional: true, MarkdownDescription: d["port"]},
			"ibnetdiscover_command": lschema.StringAttribute{Optional: true, MarkdownDescription: d["ibnetdiscover_command"]},
		},
	}
}
