package tfwire

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// Config says what Wrap keeps away from the framework. The names are the provider's: this
// package knows no resource, data source or attribute of its own.
type Config struct {
	// Provider makes the provider whose framework schemas give each number its kind (the
	// protocol schema says "number" for Int64 and Float64 alike).
	Provider func() provider.Provider
	// Resources and DataSources are the types whose Inputs are stripped from every request and
	// stashed (Stashed reads them back); a name without a schema is ignored.
	Resources, DataSources map[string]bool
	// Outputs are the data sources whose big computed outputs go into the response here
	// (StashOutputs, WithRawOutputs) instead of through the framework.
	Outputs map[string]bool
	// Inputs are the attribute names stripped from the types above.
	Inputs []string
	// Floor is a dynamic input that a data source's validation has no use for (nulled in the
	// request's bytes, undecoded) and that a data source does not echo into its state.
	Floor string
}

// Wrap returns a protocol 6 server that serves everything through inner, except that the
// inputs named by cfg bypass the framework (see the package doc), and that numbers which fit no
// attribute are refused in the user's terms before either sees them (numbers.go).
func Wrap(inner tfprotov6.ProviderServer, cfg Config) tfprotov6.ProviderServer {
	return &server{ProviderServer: inner, cfg: cfg, numbers: numberCheck{newProvider: cfg.Provider}}
}

// server is the one wrapping server: each RPC it serves first refuses the numbers that fit no
// attribute (numbers.go), then keeps the inputs and outputs of Config away from the framework.
type server struct {
	tfprotov6.ProviderServer
	cfg     Config
	numbers numberCheck

	once        sync.Once
	resources   map[string]tftypes.Object // schema types of the bypassed resources
	dataSources map[string]tftypes.Object // and data sources (inputs or outputs)
}

// types loads the schema types of the bypassed resources and data sources once. When the
// schema cannot be had, nothing is bypassed.
func (s *server) types(ctx context.Context) {
	s.once.Do(func() {
		s.resources, s.dataSources = map[string]tftypes.Object{}, map[string]tftypes.Object{}
		resp, err := s.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
		if err != nil || resp == nil {
			return
		}
		for name, sch := range resp.ResourceSchemas {
			if o, ok := sch.ValueType().(tftypes.Object); ok && s.cfg.Resources[name] {
				s.resources[name] = o
			}
		}
		for name, sch := range resp.DataSourceSchemas {
			if o, ok := sch.ValueType().(tftypes.Object); ok && (s.cfg.DataSources[name] || s.cfg.Outputs[name]) {
				s.dataSources[name] = o
			}
		}
	})
}

func (s *server) resourceType(ctx context.Context, name string) (tftypes.Object, bool) {
	if !s.cfg.Resources[name] {
		return tftypes.Object{}, false
	}
	s.types(ctx)
	t, ok := s.resources[name]
	return t, ok
}

func (s *server) dataSourceType(ctx context.Context, name string) (tftypes.Object, bool) {
	if !s.cfg.DataSources[name] && !s.cfg.Outputs[name] {
		return tftypes.Object{}, false
	}
	s.types(ctx)
	t, ok := s.dataSources[name]
	return t, ok
}

// strip decodes dv, replaces the fabric inputs with null values of their type and returns the
// re-encoded value with the inputs it took (nil when dv is nil, null or wholly unknown: then it
// is returned as is). Unknown inputs are stashed as they are.
func strip(typ tftypes.Object, names []string, dv *tfprotov6.DynamicValue) (*tfprotov6.DynamicValue, map[string]tftypes.Value, error) {
	if dv == nil {
		return nil, nil, nil
	}
	v, err := dv.Unmarshal(typ)
	if err != nil {
		return nil, nil, err
	}
	if v.IsNull() || !v.IsKnown() {
		return dv, nil, nil
	}
	var attrs map[string]tftypes.Value
	if err := v.As(&attrs); err != nil {
		return nil, nil, err
	}
	lists := map[string]tftypes.Value{}
	for _, name := range names {
		at, ok := typ.AttributeTypes[name]
		if !ok {
			continue
		}
		lists[name] = attrs[name]
		attrs[name] = tftypes.NewValue(at, nil)
	}
	out, err := tfprotov6.NewDynamicValue(typ, tftypes.NewValue(typ, attrs))
	if err != nil {
		return nil, nil, err
	}
	return &out, lists, nil
}

// restore puts lists, and raw (values encoded already), back into dv: it replaces their values
// in dv's MessagePack and leaves every other byte as the framework wrote it, so the state is
// never decoded here. A nil, null or unknown dv, or nothing to put, leave it as is.
func restore(typ tftypes.Object, dv *tfprotov6.DynamicValue, lists map[string]tftypes.Value, raw map[string][]byte) (*tfprotov6.DynamicValue, error) {
	if dv == nil || len(lists)+len(raw) == 0 {
		return dv, nil
	}
	if len(dv.MsgPack) == 0 {
		if len(dv.JSON) > 0 {
			return nil, errors.New("the framework answered in JSON, not MessagePack")
		}
		return dv, nil
	}
	if !isMapCode(dv.MsgPack[0]) { // null or unknown
		return dv, nil
	}
	put := make(map[string][]byte, len(lists)+len(raw))
	for name, v := range lists {
		b, err := AppendValue(nil, v, typ.AttributeTypes[name]) // encode.go: the inputs are the big values
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		put[name] = b
	}
	for name, b := range raw {
		put[name] = b
	}
	out, err := replaceAttrs(dv.MsgPack, put)
	if err != nil {
		return nil, err
	}
	return &tfprotov6.DynamicValue{MsgPack: out}, nil
}

// stripAll strips each value into the stash under its source.
func (s *server) stripAll(typ tftypes.Object, st *listStash, vals map[Source]**tfprotov6.DynamicValue) error {
	for src, dv := range vals {
		out, lists, err := strip(typ, s.cfg.Inputs, *dv)
		if err != nil {
			return err
		}
		*dv, st.lists[src] = out, lists
	}
	return nil
}

func bypassError(typeName string, err error) []*tfprotov6.Diagnostic {
	return []*tfprotov6.Diagnostic{{
		Severity: tfprotov6.DiagnosticSeverityError,
		Summary:  "Cannot process " + typeName + " request",
		Detail:   "The provider could not decode or encode the fabric inputs of " + typeName + ": " + err.Error() + "\n\nThis is a bug in the provider.",
	}}
}

func (s *server) ValidateResourceConfig(ctx context.Context, req *tfprotov6.ValidateResourceConfigRequest) (*tfprotov6.ValidateResourceConfigResponse, error) {
	if d := s.numbers.resourceMisfits(ctx, req.TypeName, req.Config); len(d) > 0 {
		return &tfprotov6.ValidateResourceConfigResponse{Diagnostics: d}, nil
	}
	typ, ok := s.resourceType(ctx, req.TypeName)
	if !ok {
		return s.ProviderServer.ValidateResourceConfig(ctx, req)
	}
	// The lists are checked by ModifyPlan; the framework's validation of them does nothing
	// (no validators, no Required nested attributes) but walk them.
	r := *req
	var st listStash
	if err := s.stripAll(typ, &st, map[Source]**tfprotov6.DynamicValue{FromConfig: &r.Config}); err != nil {
		return &tfprotov6.ValidateResourceConfigResponse{Diagnostics: bypassError(req.TypeName, err)}, nil
	}
	return s.ProviderServer.ValidateResourceConfig(context.WithValue(ctx, listStashKey{}, &st), &r)
}

func (s *server) UpgradeResourceState(ctx context.Context, req *tfprotov6.UpgradeResourceStateRequest) (*tfprotov6.UpgradeResourceStateResponse, error) {
	typ, ok := s.resourceType(ctx, req.TypeName)
	// gpucluster_fabric has schema version 0 and no state upgraders, so for a version 0 JSON
	// state the framework (server_upgraderesourcestate.go) only unmarshals it with the schema
	// type, ignoring attributes the schema no longer has, and then runs
	// NullifyWriteOnlyAttributes over it: the quadratic walk, on the whole state. Doing the
	// unmarshal here gives the same result (the schema has no write-only attributes). Anything
	// else (another version, a flatmap state) goes to the framework.
	if !ok || req.Version != 0 || req.RawState == nil || req.RawState.JSON == nil {
		return s.ProviderServer.UpgradeResourceState(ctx, req)
	}
	v, err := req.RawState.UnmarshalWithOpts(typ, tfprotov6.UnmarshalOpts{
		ValueFromJSONOpts: tftypes.ValueFromJSONOpts{IgnoreUndefinedAttributes: true},
	})
	if err != nil {
		//nolint:nilerr // the framework's own message, returned as a diagnostic as the framework does
		return &tfprotov6.UpgradeResourceStateResponse{Diagnostics: []*tfprotov6.Diagnostic{{
			Severity: tfprotov6.DiagnosticSeverityError,
			Summary:  "Unable to Read Previously Saved State for UpgradeResourceState",
			Detail: "There was an error reading the saved resource state using the current resource schema. If you " +
				"manually modified the resource state, you will need to manually modify it to match the current resource schema. " +
				"Otherwise, please report this to the provider developer:\n\n" + err.Error(),
		}}}, nil
	}
	dv, err := tfprotov6.NewDynamicValue(typ, v)
	if err != nil {
		return &tfprotov6.UpgradeResourceStateResponse{Diagnostics: bypassError(req.TypeName, err)}, nil //nolint:nilerr // protocol errors go to Terraform as diagnostics, as the framework does
	}
	return &tfprotov6.UpgradeResourceStateResponse{UpgradedState: &dv}, nil
}

func (s *server) ReadResource(ctx context.Context, req *tfprotov6.ReadResourceRequest) (*tfprotov6.ReadResourceResponse, error) {
	typ, ok := s.resourceType(ctx, req.TypeName)
	if !ok {
		return s.ProviderServer.ReadResource(ctx, req)
	}
	r := *req
	var st listStash
	if err := s.stripAll(typ, &st, map[Source]**tfprotov6.DynamicValue{FromCurrent: &r.CurrentState}); err != nil {
		return &tfprotov6.ReadResourceResponse{Diagnostics: bypassError(req.TypeName, err)}, nil
	}
	resp, err := s.ProviderServer.ReadResource(context.WithValue(ctx, listStashKey{}, &st), &r)
	if err != nil || resp == nil {
		return resp, err
	}
	// The lists are inputs: a refresh keeps them as they were.
	if resp.NewState, err = restore(typ, resp.NewState, st.lists[FromCurrent], nil); err != nil {
		resp.Diagnostics = append(resp.Diagnostics, bypassError(req.TypeName, err)...)
	}
	return resp, nil
}

func (s *server) PlanResourceChange(ctx context.Context, req *tfprotov6.PlanResourceChangeRequest) (*tfprotov6.PlanResourceChangeResponse, error) {
	// Checked again: a number that came through a reference was unknown at validation.
	if d := s.numbers.resourceMisfits(ctx, req.TypeName, req.Config); len(d) > 0 {
		return &tfprotov6.PlanResourceChangeResponse{PlannedState: req.ProposedNewState, Diagnostics: d}, nil
	}
	typ, ok := s.resourceType(ctx, req.TypeName)
	if !ok {
		return s.ProviderServer.PlanResourceChange(ctx, req)
	}
	r := *req
	var st listStash
	if err := s.stripAll(typ, &st, map[Source]**tfprotov6.DynamicValue{
		FromConfig: &r.Config, FromPrior: &r.PriorState, FromProposed: &r.ProposedNewState,
	}); err != nil {
		return &tfprotov6.PlanResourceChangeResponse{Diagnostics: bypassError(req.TypeName, err)}, nil
	}
	resp, err := s.ProviderServer.PlanResourceChange(context.WithValue(ctx, listStashKey{}, &st), &r)
	if err != nil || resp == nil {
		return resp, err
	}
	// The lists are Optional and not Computed, so Terraform requires the planned value to be the
	// proposed one (which is the config's).
	if resp.PlannedState, err = restore(typ, resp.PlannedState, st.lists[FromProposed], nil); err != nil {
		resp.Diagnostics = append(resp.Diagnostics, bypassError(req.TypeName, err)...)
	}
	return resp, nil
}

func (s *server) ApplyResourceChange(ctx context.Context, req *tfprotov6.ApplyResourceChangeRequest) (*tfprotov6.ApplyResourceChangeResponse, error) {
	typ, ok := s.resourceType(ctx, req.TypeName)
	if !ok {
		return s.ProviderServer.ApplyResourceChange(ctx, req)
	}
	r := *req
	var st listStash
	if err := s.stripAll(typ, &st, map[Source]**tfprotov6.DynamicValue{
		FromConfig: &r.Config, FromPrior: &r.PriorState, FromPlanned: &r.PlannedState,
	}); err != nil {
		return &tfprotov6.ApplyResourceChangeResponse{Diagnostics: bypassError(req.TypeName, err)}, nil
	}
	resp, err := s.ProviderServer.ApplyResourceChange(context.WithValue(ctx, listStashKey{}, &st), &r)
	if err != nil || resp == nil {
		return resp, err
	}
	// Create and Update write the planned values back (a destroy returns null, left as is). A
	// failed Update returns the prior state, which the framework put in the response
	// (server_updateresource.go: "Require explicit provider updates"): that gets the prior lists.
	lists := st.lists[FromPlanned]
	if hasErrorDiag(resp.Diagnostics) && sameValue(typ, resp.NewState, r.PriorState) {
		lists = st.lists[FromPrior]
	}
	if resp.NewState, err = restore(typ, resp.NewState, lists, nil); err != nil {
		resp.Diagnostics = append(resp.Diagnostics, bypassError(req.TypeName, err)...)
	}
	return resp, nil
}

func (s *server) ValidateDataResourceConfig(ctx context.Context, req *tfprotov6.ValidateDataResourceConfigRequest) (*tfprotov6.ValidateDataResourceConfigResponse, error) {
	if d := s.numbers.dataSourceMisfits(ctx, req.TypeName, req.Config); len(d) > 0 {
		return &tfprotov6.ValidateDataResourceConfigResponse{Diagnostics: d}, nil
	}
	typ, ok := s.dataSourceType(ctx, req.TypeName)
	if !ok {
		return s.ProviderServer.ValidateDataResourceConfig(ctx, req)
	}
	r := *req
	// Validation has no use for an `as_built` floor: it is nulled undecoded (msgpack.go).
	if at, ok := typ.AttributeTypes[s.cfg.Floor]; ok && at.Is(tftypes.DynamicPseudoType) && r.Config != nil && r.Config.MsgPack != nil {
		b, _, err := nullAttr(r.Config.MsgPack, s.cfg.Floor)
		if err != nil {
			return &tfprotov6.ValidateDataResourceConfigResponse{Diagnostics: bypassError(req.TypeName, err)}, nil
		}
		r.Config = &tfprotov6.DynamicValue{MsgPack: b}
	}
	var st listStash
	if err := s.stripAll(typ, &st, map[Source]**tfprotov6.DynamicValue{FromConfig: &r.Config}); err != nil {
		return &tfprotov6.ValidateDataResourceConfigResponse{Diagnostics: bypassError(req.TypeName, err)}, nil
	}
	return s.ProviderServer.ValidateDataResourceConfig(context.WithValue(ctx, listStashKey{}, &st), &r)
}

func (s *server) ReadDataSource(ctx context.Context, req *tfprotov6.ReadDataSourceRequest) (*tfprotov6.ReadDataSourceResponse, error) {
	if d := s.numbers.dataSourceMisfits(ctx, req.TypeName, req.Config); len(d) > 0 {
		return &tfprotov6.ReadDataSourceResponse{Diagnostics: d}, nil
	}
	typ, ok := s.dataSourceType(ctx, req.TypeName)
	if !ok {
		return s.ProviderServer.ReadDataSource(ctx, req)
	}
	if !s.cfg.DataSources[req.TypeName] {
		return s.readOutputs(ctx, typ, req)
	}
	r := *req
	var st listStash
	if err := s.stripAll(typ, &st, map[Source]**tfprotov6.DynamicValue{FromConfig: &r.Config}); err != nil {
		return &tfprotov6.ReadDataSourceResponse{Diagnostics: bypassError(req.TypeName, err)}, nil
	}
	ctx = context.WithValue(ctx, listStashKey{}, &st)
	var outs outputStash
	if s.cfg.Outputs[req.TypeName] { // a data source that reads a fabric and has big outputs
		ctx = context.WithValue(ctx, outputStashKey{}, &outs)
	}
	resp, err := s.ProviderServer.ReadDataSource(ctx, &r)
	if err != nil || resp == nil {
		return resp, err
	}
	// A data source's state repeats its config's input attributes, except an `as_built` floor,
	// which stays null there (the provider's as_built_input.go says why); gpucluster_discovered_fabric's
	// as_built is an output and goes back with the outputs.
	var put map[string]tftypes.Value
	if st.lists[FromConfig] != nil || outs.outputs != nil {
		put = make(map[string]tftypes.Value, len(st.lists[FromConfig])+len(outs.outputs))
	}
	for k, v := range st.lists[FromConfig] {
		if k != s.cfg.Floor {
			put[k] = v
		}
	}
	var raw map[string][]byte
	if !hasErrorDiag(resp.Diagnostics) {
		for k, v := range outs.outputs {
			put[k] = v
		}
		raw = outs.raw
	}
	if resp.State, err = restore(typ, resp.State, put, raw); err != nil {
		resp.Diagnostics = append(resp.Diagnostics, bypassError(req.TypeName, err)...)
	}
	return resp, nil
}

// readOutputs serves a data source of bypassOutputs: the framework gets the state without the
// stashed outputs, and they go into the response here, encoded once.
func (s *server) readOutputs(ctx context.Context, typ tftypes.Object, req *tfprotov6.ReadDataSourceRequest) (*tfprotov6.ReadDataSourceResponse, error) {
	var st outputStash
	resp, err := s.ProviderServer.ReadDataSource(context.WithValue(ctx, outputStashKey{}, &st), req)
	if err != nil || resp == nil || hasErrorDiag(resp.Diagnostics) {
		return resp, err
	}
	if resp.State, err = restore(typ, resp.State, st.outputs, st.raw); err != nil {
		resp.Diagnostics = append(resp.Diagnostics, bypassError(req.TypeName, err)...)
	}
	return resp, nil
}

func hasErrorDiag(ds []*tfprotov6.Diagnostic) bool {
	for _, d := range ds {
		if d != nil && d.Severity == tfprotov6.DiagnosticSeverityError {
			return true
		}
	}
	return false
}

// sameValue reports whether two (stripped, so small) values are equal.
func sameValue(typ tftypes.Object, a, b *tfprotov6.DynamicValue) bool {
	if a == nil || b == nil {
		return false
	}
	av, err := a.Unmarshal(typ)
	if err != nil {
		return false
	}
	bv, err := b.Unmarshal(typ)
	if err != nil {
		return false
	}
	return av.Equal(bv)
}
