// Package provider is the Terraform glue of gpucluster: schemas, models and CRUD that call the
// plain Go packages under internal/. It does no graph, analysis or remote work of its own.
package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/action"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/list"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/bmc"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/remote"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/ufm"
)

// Address is the provider's registry address.
const Address = "registry.terraform.io/gpucluster/gpucluster"

var (
	_ provider.Provider                  = (*gpuclusterProvider)(nil)
	_ provider.ProviderWithActions       = (*gpuclusterProvider)(nil)
	_ provider.ProviderWithListResources = (*gpuclusterProvider)(nil)
)

// New returns a constructor of the provider at the given version.
func New(version string) func() provider.Provider {
	return func() provider.Provider { return &gpuclusterProvider{version: version} }
}

type gpuclusterProvider struct {
	version string
}

type providerModel struct {
	CatalogFiles types.List   `tfsdk:"catalog_files"`
	SSH          types.Object `tfsdk:"ssh"`
	BMC          types.Object `tfsdk:"bmc"`
	Floor        types.Object `tfsdk:"floor"`
	UFM          types.Object `tfsdk:"ufm"`
}

type sshModel struct {
	User           types.String `tfsdk:"user"`
	PrivateKey     types.String `tfsdk:"private_key"`
	KnownHostsFile types.String `tfsdk:"known_hosts_file"`
}

type bmcCredentialsModel struct {
	Username types.String `tfsdk:"username"`
	Password types.String `tfsdk:"password"`
}

// Data is what the provider hands every resource and data source through Configure.
type Data struct {
	Catalog *catalog.Catalog
	// Fleet defaults; a resource's own settings override them.
	SSH SSHDefaults
	BMC BMCDefaults
	// UFM is the provider's `ufm` (fabric_ufm.go), nil without one.
	UFM *ufm.Config
	// floor is the provider's `floor` (floor.go), nil without one.
	floor *providerFloor
	// bmcOwners is which gpucluster_node each BMC is, as the nodes this run reads and applies
	// claim them: gpucluster_node_power refuses a node whose BMC another node of the run claims.
	bmcOwners *bmc.Owners
}

// SSHDefaults are the provider-level SSH settings.
type SSHDefaults struct {
	User           string
	PrivateKey     string
	KnownHostsFile string
}

// BMCDefaults are the provider-level BMC credentials.
type BMCDefaults struct {
	Username string
	Password string
}

func (p *gpuclusterProvider) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = "gpucluster"
	resp.Version = p.version
}

func (p *gpuclusterProvider) Schema(_ context.Context, _ provider.SchemaRequest, resp *provider.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Plans and builds GPU clusters whose hard part is the InfiniBand fabric: " +
			"racks, GPU nodes, HCAs, cables and switches (by default " + docText().Defaults() + "), checked as one fabric at plan time.",
		Attributes: map[string]schema.Attribute{
			"catalog_files": schema.ListAttribute{
				ElementType: types.StringType,
				Optional:    true,
				MarkdownDescription: "HCL files that add or override hardware models, cables, transceivers and prices, " +
					"read in order after the built-in catalog. An entry replaces a built-in entry of the same kind and name whole.",
				Validators: []validator.List{filePathsValidator("an HCL catalog file")},
			},
			"ssh": schema.SingleNestedAttribute{
				Optional: true,
				MarkdownDescription: "Fleet-wide SSH settings for subnet manager hosts and nodes (in-band work). " +
					"Host keys are always checked against `known_hosts_file`; there is no insecure mode.",
				Attributes: map[string]schema.Attribute{
					"user":        schema.StringAttribute{Optional: true, MarkdownDescription: "SSH user."},
					"private_key": schema.StringAttribute{Optional: true, Sensitive: true, MarkdownDescription: "PEM private key. Sensitive: never logged."},
					"known_hosts_file": schema.StringAttribute{
						Optional:            true,
						MarkdownDescription: "OpenSSH known_hosts file that holds the host keys of every host the provider connects to; it must exist when Terraform plans (`~` is not expanded: use `pathexpand(\"~/.ssh/known_hosts\")`).",
						Validators:          []validator.String{filePathValidator("an OpenSSH known_hosts file", "leave known_hosts_file unset and give it where each host is named")},
					},
				},
			},
			"bmc": schema.SingleNestedAttribute{
				Optional:            true,
				MarkdownDescription: "Fleet-wide BMC credentials, used by nodes that do not set their own.",
				Attributes: map[string]schema.Attribute{
					"username": schema.StringAttribute{Optional: true, MarkdownDescription: "BMC user name."},
					"password": schema.StringAttribute{Optional: true, Sensitive: true, MarkdownDescription: "BMC password. Sensitive: never logged."},
				},
			},
			"floor": floorProviderAttribute(),
			"ufm":   ufmProviderAttribute(),
		},
	}
}

func (p *gpuclusterProvider) Configure(ctx context.Context, req provider.ConfigureRequest, resp *provider.ConfigureResponse) {
	var cfg providerModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}
	var files []string
	if !cfg.CatalogFiles.IsNull() && !cfg.CatalogFiles.IsUnknown() {
		resp.Diagnostics.Append(cfg.CatalogFiles.ElementsAs(ctx, &files, false)...)
	}
	cat, err := catalog.Load(files...)
	if err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("catalog_files"), "Invalid catalog file", err.Error())
		return
	}
	data := &Data{Catalog: cat, bmcOwners: &bmc.Owners{}}
	if !cfg.SSH.IsNull() && !cfg.SSH.IsUnknown() {
		var s sshModel
		resp.Diagnostics.Append(cfg.SSH.As(ctx, &s, objectAsOptions)...)
		data.SSH = SSHDefaults{User: s.User.ValueString(), PrivateKey: s.PrivateKey.ValueString(), KnownHostsFile: s.KnownHostsFile.ValueString()}
		// At plan, not at validate: whether the file is there depends on the machine, not on
		// the configuration, and the first SSH connection would otherwise fail only at apply.
		if f := data.SSH.KnownHostsFile; f != "" {
			if msg := remote.CheckKnownHostsFile(f); msg != "" {
				resp.Diagnostics.AddAttributeError(path.Root("ssh"), "known_hosts file not found", withPath(path.Root("ssh").AtName("known_hosts_file"), msg))
			}
		}
	}
	if !cfg.BMC.IsNull() && !cfg.BMC.IsUnknown() {
		var b bmcCredentialsModel
		resp.Diagnostics.Append(cfg.BMC.As(ctx, &b, objectAsOptions)...)
		data.BMC = BMCDefaults{Username: b.Username.ValueString(), Password: b.Password.ValueString()}
	}
	if !cfg.Floor.IsNull() && !cfg.Floor.IsUnknown() {
		var f floorModel
		resp.Diagnostics.Append(cfg.Floor.As(ctx, &f, objectAsOptions)...)
		f.check(path.Root("floor"), &resp.Diagnostics)
		data.floor = &providerFloor{model: f}
	}
	data.UFM = readUFMProvider(ctx, cfg.UFM, &resp.Diagnostics)
	resp.ResourceData = data
	resp.DataSourceData = data
	resp.ActionData = data
	resp.ListResourceData = data
}

// Resources lists every resource type the provider serves; a new type is added here, where a
// reader looks first, rather than registered from its own file.
func (p *gpuclusterProvider) Resources(_ context.Context) []func() resource.Resource {
	return []func() resource.Resource{
		newCableResource,
		newFabricResource,
		newFirmwareRolloutResource,
		newHCAResource,
		newNodeResource,
		newPartitionResource,
		newRackResource,
		newSwitchResource,
	}
}

// DataSources lists every data source type the provider serves.
func (p *gpuclusterProvider) DataSources(_ context.Context) []func() datasource.DataSource {
	return []func() datasource.DataSource{
		newBOMDataSource,
		newCableValidationDataSource,
		newDiagramDataSource,
		newDiscoveredFabricDataSource,
		newMaintenanceWavesDataSource,
		newOpenSMFilesDataSource,
		newPortCountersDataSource,
		newSchedulerTopologyDataSource,
		newTopologyDataSource,
	}
}

// ListResources lists every list resource (Terraform 1.14+, terraform query).
func (p *gpuclusterProvider) ListResources(_ context.Context) []func() list.ListResource {
	return []func() list.ListResource{
		newCableList,
		newHCAList,
		newNodeList,
		newPartitionList,
		newSwitchList,
	}
}

// Actions lists every action type (Terraform 1.14+).
func (p *gpuclusterProvider) Actions(_ context.Context) []func() action.Action {
	return []func() action.Action{
		newHCAResetAction,
		newNodePowerAction,
		newOpenSMSweepAction,
	}
}

// providerData extracts the provider's Data in a resource's or data source's Configure. It
// returns nil before the provider is configured (Terraform validates configs that early).
func providerData(raw any, diags interface{ AddError(string, string) }) *Data {
	if raw == nil {
		return nil
	}
	d, ok := raw.(*Data)
	if !ok {
		diags.AddError("Unexpected provider data", fmt.Sprintf("expected *provider.Data, got %T; this is a bug in the provider", raw))
		return nil
	}
	return d
}
