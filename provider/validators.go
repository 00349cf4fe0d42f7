package provider

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/hca"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/inputfile"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/opensm"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/remote"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/scheduler"
)

// The resources' validators are thin wrappers over the attribute rules of internal/fabric
// (rules.go): the fabric's Build runs the same rules on plain objects and generated items, so a
// value is refused with the same words whether it comes from a resource or not.

// stringRule is a framework validator over a rule that takes a string.
type stringRule struct {
	summary string
	desc    string
	check   func(string) string
}

func (v stringRule) Description(context.Context) string             { return v.desc }
func (v stringRule) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (v stringRule) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if msg := v.check(req.ConfigValue.ValueString()); msg != "" {
		addRuleError(&resp.Diagnostics, req.Path, v.summary, msg)
	}
}

// int64Rule is a framework validator over a rule that takes a whole number.
type int64Rule struct {
	summary string
	desc    string
	check   func(int) string
}

func (v int64Rule) Description(context.Context) string             { return v.desc }
func (v int64Rule) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (v int64Rule) ValidateInt64(_ context.Context, req validator.Int64Request, resp *validator.Int64Response) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if msg := v.check(int(req.ConfigValue.ValueInt64())); msg != "" {
		addRuleError(&resp.Diagnostics, req.Path, v.summary, msg)
	}
}

// float64Rule is a framework validator over a rule that takes a number.
type float64Rule struct {
	summary string
	desc    string
	check   func(float64) string
}

func (v float64Rule) Description(context.Context) string             { return v.desc }
func (v float64Rule) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (v float64Rule) ValidateFloat64(_ context.Context, req validator.Float64Request, resp *validator.Float64Response) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if msg := v.check(req.ConfigValue.ValueFloat64()); msg != "" {
		addRuleError(&resp.Diagnostics, req.Path, v.summary, msg)
	}
}

// nameValidator accepts the device and rack names the fabric, OpenSM's node-name-map and cable
// labels can all carry unquoted (fabric.CheckName).
func nameValidator() validator.String {
	return stringRule{"Invalid name", "1-63 letters, digits, '.', '_' or '-', starting with a letter or digit", fabric.CheckName}
}

// guidValidator accepts an InfiniBand GUID written as 0x and 16 hex digits (fabric.CheckGUID).
func guidValidator() validator.String {
	return stringRule{"Invalid GUID", "0x and 16 hex digits, e.g. \"0x0002c90300a1b2c3\"", fabric.CheckGUID}
}

func hcaNameValidator() validator.String {
	return stringRule{"Invalid HCA name", "\"<node>/<device>\", e.g. \"gpu001/mlx5_0\"", fabric.CheckHCAName}
}

func partitionNameValidator() validator.String {
	return stringRule{"Invalid partition name", "up to 31 letters, digits, '_', '.' or '-', starting with a letter or '_'", fabric.CheckPartitionName}
}

func pkeyValidator() validator.String {
	return stringRule{"Invalid partition key", "0x and 4 hex digits from \"0x0001\" to \"0x7ffe\"", fabric.CheckPKey}
}

func memberGUIDValidator() validator.String {
	return stringRule{"Invalid partition member", "a port GUID (0x and 16 hex digits) or one of OpenSM's keywords", fabric.CheckMemberGUID}
}

func membershipValidator() validator.String {
	return stringRule{"Invalid membership", "\"full\" or \"limited\"", fabric.CheckMembership}
}

func roleValidator() validator.String {
	return stringRule{"Invalid switch role", "\"leaf\", \"spine\" or \"core\"", fabric.CheckRole}
}

func mtuValidator() validator.Int64 {
	return int64Rule{"Invalid MTU", "256, 512, 1024, 2048 or 4096 (bytes)", fabric.CheckMTU}
}

func slValidator() validator.Int64 {
	return int64Rule{"Invalid service level", "0-15", fabric.CheckSL}
}

func rowValidator() validator.Int64 {
	return int64Rule{"Invalid row", "0-999", func(n int) string { return fabric.CheckRowPosition("row", n) }}
}

func positionValidator() validator.Int64 {
	return int64Rule{"Invalid position", "0-999", func(n int) string { return fabric.CheckRowPosition("position", n) }}
}

func unitsValidator() validator.Int64 {
	return int64Rule{"Invalid rack units", "1-60", fabric.CheckUnits}
}

// positionUValidator bounds position_u by the tallest rack the rack resource accepts (60 U); the
// exact limit depends on the rack and the device's height, which only the fabric sees.
func positionUValidator() validator.Int64 {
	return int64Rule{"Invalid position_u", "1-60", fabric.CheckPositionU}
}

func railValidator() validator.Int64 {
	return int64Rule{"Invalid rail", "0-63", fabric.CheckRail}
}

func computeHCAsValidator() validator.Int64 {
	return int64Rule{"Invalid compute_hcas", "1-64", fabric.CheckComputeHCAs}
}

// portValidator checks that a port counts from 1; the radix is the fabric's to check, against
// the device's model.
func portValidator() validator.Int64 {
	return int64Rule{"Invalid port", "1 or more", func(n int) string { return fabric.CheckPort(n, 0, "") }}
}

func rateValidator() validator.Int64 {
	return int64Rule{"Invalid rate", "an InfiniBand path rate in Gb/s", fabric.CheckRate}
}

func cableKindValidator() validator.String {
	return stringRule{"Invalid cable kind", "dac, acc, aoc, fiber-mm or fiber-sm", fabric.CheckCableKind}
}

func powerKWValidator() validator.Float64 {
	return float64Rule{"Invalid power budget", "0.1-1000 kW", fabric.CheckPowerKW}
}

func lengthMValidator() validator.Float64 {
	return float64Rule{"Invalid cable length", "at least 0.1 m", fabric.CheckLengthM}
}

// sshPortValidator checks the port of an ssh_host ("host:port", "[v6]:port"): 1-65535, as
// sshConfig reads it at apply (remote.CheckHostPort). The host part has its own validator.
func sshPortValidator() validator.String {
	return stringRule{"Invalid ssh_host port", "host, host:port or [ipv6]:port with a port of 1-65535", remote.CheckHostPort}
}

// shownPath is the part of p that Terraform can point at in the configuration: a top-level
// attribute, or one element of it (switches["leaf01"]). Terraform looks no deeper into nested
// attributes and shows only the resource for a deeper path, so the rest goes in the detail
// (withPath).
func shownPath(p path.Path) path.Path {
	steps := p.Steps()
	if len(steps) <= 1 {
		return p
	}
	keep := 1
	if _, isName := steps[1].(path.PathStepAttributeName); !isName {
		keep = 2
	}
	if keep >= len(steps) {
		return p
	}
	out := path.Empty()
	for _, st := range steps[:keep] {
		switch s := st.(type) {
		case path.PathStepAttributeName:
			out = out.AtName(string(s))
		case path.PathStepElementKeyString:
			out = out.AtMapKey(string(s))
		case path.PathStepElementKeyInt:
			out = out.AtListIndex(int(s))
		case path.PathStepElementKeyValue:
			out = out.AtSetValue(s.Value)
		}
	}
	return out
}

// withPath starts detail with the full path when Terraform will not point at all of it
// (shownPath).
func withPath(p path.Path, detail string) string {
	if shownPath(p).Equal(p) {
		return detail
	}
	return p.String() + ": " + detail
}

// addRuleError reports a refused value on the part of its path Terraform shows, naming the
// whole path in the detail.
func addRuleError(diags *diag.Diagnostics, p path.Path, summary, msg string) {
	diags.AddAttributeError(shownPath(p), summary, withPath(p, msg))
}

// durationValidator accepts a Go duration such as "90s" or "2m".
type durationValidator struct{}

func (durationValidator) Description(context.Context) string {
	return "a Go duration such as 90s or 2m"
}
func (v durationValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}
func (durationValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if d, err := time.ParseDuration(req.ConfigValue.ValueString()); err != nil || d <= 0 {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid duration", fmt.Sprintf("%q is not a positive Go duration such as \"90s\" or \"2m\".", req.ConfigValue.ValueString()))
	}
}

// mlxconfigSettingsValidator checks firmware_settings against the mlxconfig parameter database
// (hca.CheckSettings, which leaves the names of unchecked_parameters it does not know to the
// card).
type mlxconfigSettingsValidator struct{}

func (mlxconfigSettingsValidator) Description(context.Context) string {
	return "names and values must be valid mlxconfig parameters"
}

func (v mlxconfigSettingsValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (mlxconfigSettingsValidator) ValidateMap(ctx context.Context, req validator.MapRequest, resp *validator.MapResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	unchecked := map[string]bool{}
	var set types.Set
	if d := req.Config.GetAttribute(ctx, path.Root("unchecked_parameters"), &set); !d.HasError() && !set.IsNull() && !set.IsUnknown() {
		for _, e := range set.Elements() {
			if s, ok := e.(types.String); ok && !s.IsUnknown() && !s.IsNull() {
				unchecked[s.ValueString()] = true
			}
		}
	}
	settings := map[string]string{}
	for name, val := range req.ConfigValue.Elements() {
		s, ok := val.(types.String)
		if !ok || s.IsUnknown() || s.IsNull() {
			continue
		}
		settings[name] = s.ValueString()
	}
	var d diag.Diagnostics
	for _, p := range hca.CheckSettings(settings, unchecked) {
		at := req.Path
		if p.Param != "" {
			at = at.AtMapKey(p.Param)
		}
		d.AddAttributeError(at, "Invalid mlxconfig setting", p.Detail)
	}
	resp.Diagnostics.Append(capDiagnostics(d)...) // one per setting, and the map has no bound
}

// partitionMemberValidator requires each member to name exactly one of hca and guid.
type partitionMemberValidator struct{}

func (partitionMemberValidator) Description(context.Context) string {
	return "exactly one of hca and guid must be set"
}

func (v partitionMemberValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (partitionMemberValidator) ValidateObject(_ context.Context, req validator.ObjectRequest, resp *validator.ObjectResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	attrs := req.ConfigValue.Attributes()
	set := 0
	for _, k := range []string{"hca", "guid"} {
		v, ok := attrs[k]
		if !ok {
			continue
		}
		if v.IsUnknown() {
			return // decided once the value is known
		}
		if !v.IsNull() {
			set++
		}
	}
	const right = "name either an HCA of the fabric (hca = \"gpu001/mlx5_0\") or a port GUID or OpenSM keyword (guid = \"0x...\" or \"ALL_CAS\")"
	switch set {
	case 0:
		resp.Diagnostics.AddAttributeError(req.Path, "Partition member names nothing",
			fmt.Sprintf("%s sets neither hca nor guid; %s", req.Path, right))
	case 2:
		resp.Diagnostics.AddAttributeError(req.Path, "Partition member names two ports",
			fmt.Sprintf("%s sets both hca and guid; %s, one per member", req.Path, right))
	}
}

// deviceValidator accepts an RDMA device name such as mlx5_0.
// It is the fabric's name rule (fabric.CheckName), which an HCA's device in a plain object meets.
func deviceValidator() validator.String {
	return stringRule{"Invalid device name", "an RDMA device name as `ibstat` or `ibv_devices` list it, e.g. \"mlx5_0\"", fabric.CheckName}
}

// labelKeyValidator refuses what Kubernetes refuses as a label key.
type labelKeyValidator struct{}

func (labelKeyValidator) Description(context.Context) string {
	return "a Kubernetes label key: optional DNS-subdomain prefix and '/', then a name of 1-63 characters"
}
func (v labelKeyValidator) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }
func (labelKeyValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	k := req.ConfigValue.ValueString()
	if r := scheduler.CheckLabelKey(k); r != "" {
		resp.Diagnostics.AddAttributeError(req.Path, "Not a Kubernetes label key",
			"\""+k+"\": "+r+"; for example \"fabric.topograph.run/tier-0\" or \"example.com/scalable-unit\".")
	}
	if k == scheduler.HostnameLabel {
		resp.Diagnostics.AddAttributeError(req.Path, "Hostname label as a fabric tier",
			"kubernetes.io/hostname is Kueue's lowest level (see hostname_level), not a fabric tier; choose another key.")
	}
}

// sameSSHHostValidator refuses a subnet_manager.hosts list that names one SSH endpoint twice
// (opensm.DuplicateHosts), each host's port defaulting to the sibling `port` attribute, else 22.
type sameSSHHostValidator struct{}

func (sameSSHHostValidator) Description(context.Context) string {
	return "each entry a different host and port"
}

func (v sameSSHHostValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (sameSSHHostValidator) ValidateList(ctx context.Context, req validator.ListRequest, resp *validator.ListResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	defPort := 22
	var port types.Int64
	if d := req.Config.GetAttribute(ctx, req.Path.ParentPath().AtName("port"), &port); d.HasError() || port.IsUnknown() {
		return
	}
	if !port.IsNull() {
		defPort = int(port.ValueInt64())
	}
	elems := req.ConfigValue.Elements()
	hosts, known := make([]string, len(elems)), make([]bool, len(elems))
	for i, e := range elems {
		s, ok := e.(types.String)
		hosts[i], known[i] = s.ValueString(), ok && !s.IsNull() && !s.IsUnknown()
	}
	dups := opensm.DuplicateHosts(hosts, known, defPort)
	for i := range hosts {
		if msg, ok := dups[i]; ok {
			addRuleError(&resp.Diagnostics, req.Path.AtListIndex(i), "Subnet manager host listed twice", msg)
		}
	}
}

// filePathValidator is the one validator of every argument that names a local file the plan
// reads (inputfile.CheckPath): "" is refused on the argument, saying what to give (what) and what
// leaving it out does (instead); os.Open("") would say only "open : no such file or directory".
// An unknown value passes: Terraform validates again once it is known, before the file is read.
func filePathValidator(what, instead string) validator.String { return filePath{what, instead} }

type filePath struct{ what, instead string }

func (v filePath) Description(context.Context) string             { return "the path of " + v.what }
func (v filePath) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (v filePath) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	msg := inputfile.CheckPath(req.ConfigValue.ValueString(), v.what, v.instead)
	if msg == "" {
		return
	}
	// Terraform points at a list attribute's line, not at the entry (policy_files = ["a", ""]),
	// so an entry of a top-level list is named in the detail; addRuleError names deeper paths.
	steps := req.Path.Steps()
	if last, _ := steps.LastStep(); len(steps) == 2 && isListIndex(last) {
		msg = req.Path.String() + ": " + msg
	}
	addRuleError(&resp.Diagnostics, req.Path, "Empty file path", msg)
}

func isListIndex(s path.PathStep) bool {
	_, ok := s.(path.PathStepElementKeyInt)
	return ok
}

// filePathsValidator is filePathValidator for each entry of a list of files.
func filePathsValidator(what string) validator.List {
	return listvalidator.ValueStringsAre(filePathValidator(what, "remove the entry"))
}

// The file arguments, each worded once for every schema that carries it.

func nodeNameMapValidator() validator.String {
	return filePathValidator("an OpenSM node name map", "leave node_name_map unset to name devices by their node descriptions")
}

// knownHostsOverrideValidator is for the known_hosts_file of a resource or data source, which
// overrides the provider's.
func knownHostsOverrideValidator() validator.String {
	return filePathValidator("an OpenSSH known_hosts file", "leave known_hosts_file unset to use the provider's ssh.known_hosts_file")
}
