package provider

import (
	"context"
	"os"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	provschema "github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/opensm"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/partition"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/ufm"
)

// The UFM side of gpucluster_fabric: with subnet_manager.kind = "ufm", partitions go through
// UFM's PKey REST API (internal/ufm) instead of partitions.conf over SSH, and `ufm_partitions`
// holds what UFM holds for them, one line per partition, so drift shows in the plan.

// ufmModel is the provider's `ufm`.
type ufmModel struct {
	URL      types.String `tfsdk:"url"`
	Username types.String `tfsdk:"username"`
	Password types.String `tfsdk:"password"`
	Token    types.String `tfsdk:"token"`
	CAFile   types.String `tfsdk:"ca_file"`
}

func ufmProviderAttribute() provschema.SingleNestedAttribute {
	return provschema.SingleNestedAttribute{
		Optional: true,
		MarkdownDescription: "NVIDIA UFM that runs the subnet manager of fabrics with `subnet_manager = { kind = \"ufm\" }`: " +
			"their partitions are applied through UFM's PKey REST API. HTTPS only, the certificate always checked " +
			"(against `ca_file`, or the system's roots); there is no insecure mode. Credentials are sensitive and never logged.",
		Attributes: map[string]provschema.Attribute{
			"url": provschema.StringAttribute{Required: true, MarkdownDescription: "UFM's address, `https://ufm.example.com[:port]`."},
			"username": provschema.StringAttribute{Optional: true, MarkdownDescription: "UFM user (basic authentication on `/ufmRest`); with `password`.",
				Validators: []validator.String{stringvalidator.AlsoRequires(path.MatchRelative().AtParent().AtName("password"))}},
			"password": provschema.StringAttribute{Optional: true, Sensitive: true, MarkdownDescription: "Password of `username`. Sensitive: never logged.",
				Validators: []validator.String{stringvalidator.AlsoRequires(path.MatchRelative().AtParent().AtName("username"))}},
			"token": provschema.StringAttribute{Optional: true, Sensitive: true,
				MarkdownDescription: "UFM access token (token authentication on `/ufmRestV3`), instead of `username` and `password`. Sensitive: never logged.",
				Validators:          []validator.String{stringvalidator.ExactlyOneOf(path.MatchRelative().AtParent().AtName("password"))}},
			"ca_file": provschema.StringAttribute{Optional: true, MarkdownDescription: "PEM file of the CA that signed UFM's certificate; default: the system's roots.",
				Validators: []validator.String{filePathValidator("a PEM CA certificate", "leave ca_file unset to trust the system's roots")}},
		},
	}
}

// readUFMProvider reads the provider's `ufm` into a client configuration (nil without one).
func readUFMProvider(ctx context.Context, o types.Object, diags *diag.Diagnostics) *ufm.Config {
	if o.IsNull() || o.IsUnknown() {
		return nil
	}
	var m ufmModel
	if d := o.As(ctx, &m, objectAsOptions); d.HasError() {
		diags.Append(d...)
		return nil
	}
	cfg := &ufm.Config{URL: m.URL.ValueString(), Username: m.Username.ValueString(), Password: m.Password.ValueString(), Token: m.Token.ValueString()}
	if f := m.CAFile.ValueString(); f != "" {
		b, err := os.ReadFile(f)
		if err != nil {
			diags.AddAttributeError(path.Root("ufm").AtName("ca_file"), "UFM CA file unreadable", err.Error())
			return nil
		}
		cfg.CAPEM = string(b)
	}
	if _, err := ufm.New(*cfg); err != nil {
		diags.AddAttributeError(path.Root("ufm"), "Invalid UFM settings", err.Error())
		return nil
	}
	return cfg
}

// subnetManagerKindAttribute is subnet_manager.kind: the registered partition targets.
func subnetManagerKindAttribute() schema.StringAttribute {
	return schema.StringAttribute{
		Optional: true,
		MarkdownDescription: "Who runs the subnet manager and so owns the partitions: `opensm` (default; the files are " +
			"pushed to `hosts` over SSH) or `ufm` (NVIDIA UFM: partitions go through UFM's PKey REST API with the " +
			"provider's `ufm` settings, `hosts` is not used, and the OpenSM files are neither pushed nor read back; " +
			"`opensm` still shows their digests for reference). With `ufm`, members are port GUIDs (HCAs of the " +
			"fabric or GUIDs, not OpenSM keywords), MTU is 2048 or 4096, and destroy removes only the PKeys the " +
			"fabric created, never the management PKey 0x7fff.",
		Validators: []validator.String{stringvalidator.OneOf(partition.Kinds()...)},
	}
}

// ufmPartitionsSchema is the computed `ufm_partitions`.
func ufmPartitionsSchema() schema.MapAttribute {
	return schema.MapAttribute{
		Computed: true, ElementType: types.StringType,
		MarkdownDescription: "With `subnet_manager.kind = \"ufm\"`: each partition by name, as UFM holds it " +
			"(`pkey=0x0101 ipoib=true index0=false mtu=4096 rate=200 sl=0 members=<guid>:full,...`). The plan " +
			"shows the declared partitions; a refresh reads UFM (`GET /ufmRest/resources/pkeys?guids_data=true`), " +
			"so a GUID or PKey changed behind Terraform's back shows as a change here and the next apply puts it " +
			"back. Null with OpenSM.",
	}
}

// smKind is subnet_manager.kind ("" when the object is null or the kind unknown; opensm when unset).
func smKind(o types.Object) string {
	if o.IsNull() || o.IsUnknown() {
		return ""
	}
	k, ok := o.Attributes()["kind"].(types.String)
	switch {
	case !ok || k.IsUnknown():
		return ""
	case k.IsNull():
		return opensm.TargetKind
	}
	return k.ValueString()
}

// ufmPartitionsValue describes partitions by name for `ufm_partitions`.
func ufmPartitionsValue(parts []partition.Partition) types.Map {
	el := make(map[string]attr.Value, len(parts))
	for _, p := range parts {
		el[p.Name] = types.StringValue(ufm.Describe(p))
	}
	return types.MapValueMust(types.StringType, el)
}

// declaredUFM reads `ufm_partitions` back into partitions.
func declaredUFM(m types.Map) ([]partition.Partition, error) {
	var out []partition.Partition
	for name, v := range m.Elements() {
		s, _ := v.(types.String)
		p, err := ufm.ParseDescribed(name, s.ValueString())
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	partition.Sort(out)
	return out, nil
}

// renamed keeps the declared names of P_Keys UFM reports (UFM may name them its own way).
func renamed(got []partition.Partition, names ...[]partition.Partition) []partition.Partition {
	byKey := map[uint16]string{}
	for _, ps := range names {
		for _, p := range ps {
			if _, ok := byKey[p.PKey]; !ok {
				byKey[p.PKey] = p.Name
			}
		}
	}
	for i := range got {
		if n, ok := byKey[got[i].PKey]; ok {
			got[i].Name = n
		}
	}
	return got
}

// refreshUFM replaces `ufm_partitions` with what UFM holds for the P_Keys in state. An
// unreachable UFM leaves the state as it was, with a warning.
func (r *fabricResource) refreshUFM(ctx context.Context, m *fabricModel, diags *diag.Diagnostics) {
	if smKind(m.SubnetManager) != ufm.Kind || m.UFMPartitions.IsNull() || m.UFMPartitions.IsUnknown() {
		return
	}
	had, err := declaredUFM(m.UFMPartitions)
	if err != nil {
		diags.AddAttributeError(path.Root("ufm_partitions"), "Invalid partitions in state", err.Error())
		return
	}
	var warn diag.Diagnostics
	t, ok := r.openTarget(ctx, ufm.Kind, m, nil, false, &warn)
	if !ok {
		for _, d := range warn {
			diags.AddWarning(d.Summary(), d.Detail())
		}
		return
	}
	held, err := t.Read(ctx)
	if err != nil {
		diags.AddWarning("Cannot read the partitions back from UFM", err.Error()+"\n\nThe plan compares with the last apply; drift on UFM is not seen.")
		return
	}
	keys := map[uint16]bool{}
	for _, p := range had {
		keys[p.PKey] = true
	}
	var got []partition.Partition
	for _, p := range held {
		if keys[p.PKey] {
			got = append(got, p)
		}
	}
	m.UFMPartitions = ufmPartitionsValue(renamed(got, had))
}

// planUFM gives the planned `ufm_partitions`: the declared partitions when UFM owns them
// (checked for what UFM can hold), null otherwise. It also says, once per plan, that OpenSM files
// are not pushed.
func planUFM(kind string, parts []partition.Partition, resolved bool, diags *diag.Diagnostics) types.Map {
	if kind != ufm.Kind {
		return types.MapNull(types.StringType)
	}
	diags.AddWarning("OpenSM files are not pushed: UFM owns the partitions",
		"subnet_manager.kind = \"ufm\": the partitions are applied through UFM's PKey REST API (ufm_partitions), "+
			"and no OpenSM file is written to any host; `opensm` shows the files' digests for reference only.")
	if !resolved {
		diags.AddAttributeError(path.Root("subnet_manager").AtName("kind"), "Partitions cannot be resolved for UFM",
			"The fabric's partitions could not be resolved to port GUIDs; see the warning on the OpenSM files.")
		return types.MapUnknown(types.StringType)
	}
	if err := ufm.Check(parts); err != nil {
		diags.AddAttributeError(path.Root("subnet_manager").AtName("kind"), "Partitions UFM cannot hold as declared", err.Error())
		return types.MapUnknown(types.StringType)
	}
	norm := make([]partition.Partition, len(parts))
	for i, p := range parts {
		norm[i] = ufm.Normalize(p)
	}
	return ufmPartitionsValue(norm)
}

// addNoUFMConfigured refuses kind = "ufm" without the provider's ufm block, at plan and at apply.
func addNoUFMConfigured(diags *diag.Diagnostics) {
	diags.AddAttributeError(path.Root("subnet_manager").AtName("kind"), "No UFM configured",
		"subnet_manager.kind = \"ufm\" applies partitions through UFM: set the provider's ufm = { url, username and password, or token }.")
}

// checkSubnetManagerKind refuses a subnet_manager whose kind and settings disagree, at plan:
// OpenSM needs hosts; UFM needs the provider's ufm and takes no hosts. It returns the kind.
func checkSubnetManagerKind(data *Data, o types.Object, sm subnetManager, diags *diag.Diagnostics) string {
	kind := smKind(o)
	at := path.Root("subnet_manager")
	switch kind {
	case opensm.TargetKind:
		if len(sm.hosts) == 0 {
			diags.AddAttributeError(at.AtName("hosts"), "No subnet manager hosts",
				"subnet_manager.hosts is required with kind = \"opensm\" (the default): list the OpenSM hosts, primary first, "+
					"or set kind = \"ufm\" where NVIDIA UFM runs the subnet manager.")
		}
	case ufm.Kind:
		if len(sm.hosts) > 0 {
			diags.AddAttributeError(at.AtName("hosts"), "Hosts are not used with UFM",
				"With kind = \"ufm\" the partitions go through UFM's REST API and no file is pushed to any host: remove hosts, "+
					"or set kind = \"opensm\" to push OpenSM files to them.")
		}
		if data == nil || data.UFM == nil {
			addNoUFMConfigured(diags)
		}
	}
	return kind
}
