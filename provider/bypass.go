package provider

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/plan"
)

// Why this file exists.
//
// terraform-plugin-framework v1.19.0 is quadratic in the number of values of a resource's
// plan and state: in internal/fwserver, MarkComputedNilsAsUnknown (server_planresourcechange.go)
// and NullifyWriteOnlyAttributes (write_only_nullification.go, run by Create, Read, Update,
// PlanResourceChange and UpgradeResourceState) reassign the ctx they capture with
// logging.FrameworkWithAttributePath for every value a tftypes.Transform visits, so the context
// chain grows by one per value and every trace log call walks it. A gpucluster_fabric fed with a
// 2,048-endpoint topology took 108 s to plan and a 16,384-endpoint one never finished (profile:
// 69 of 88 CPU seconds in context.value under FrameworkTrace). The framework may not be forked
// or patched, so Wrap keeps the fabric's inputs (the inventory maps racks, switches, nodes, hcas,
// cables, partitions: up to hundreds of thousands of elements; the `design`, whose hca_guids may
// hold one GUID per HCA; and absent_cables) away from it: it decodes the request values,
// replaces the inputs with null, stashes the originals in the request context, lets the
// framework serve the small remainder, and puts the inputs back into the response. The resource
// and the data sources read the inputs from the stash (stashedValue, through readFabricSpec in
// fabric_inputs.go) instead of their model.
//
// What the framework no longer does for the inputs: run schema validation, defaults and plan
// modifiers inside them, and mark computed nested values unknown. fabricInputAttributes declares
// none of these (every nested attribute is Optional, without validators, defaults or plan
// modifiers, and nothing in them is Computed; TestInputsCarryNoFrameworkBehaviour fails
// otherwise); the presence checks are done by the decoders (fabric_inventory.go) in ModifyPlan
// and the data sources' Read, every other check by fabric.Build.

// bypassTypes names the resources and data sources whose inputs Wrap strips. A type that reads
// a fabric (fabric_inputs.go) is listed here; a name without a schema is ignored.
var (
	bypassResources   = map[string]bool{"gpucluster_fabric": true}
	bypassDataSources = map[string]bool{
		"gpucluster_bom": true, "gpucluster_cable_validation": true, "gpucluster_discovered_fabric": true, "gpucluster_opensm_files": true,
		"gpucluster_scheduler_topology": true, "gpucluster_diagram": true, "gpucluster_port_counters": true,
		"gpucluster_topology": true, // its as_built floor
	}
)

// strippedInputNames are the inputs Wrap strips from the types it serves: the fabric's, and an
// `as_built` floor (gpucluster_bom, gpucluster_topology, gpucluster_fabric), a record of the
// whole floor that the data sources do not echo into their state (the discovered fabric's state
// holds it).
var strippedInputNames = append(append([]string(nil), fabricInputNames...), "as_built")

// bypassOutputs names the data sources whose big computed outputs Wrap puts into the response
// itself. gpucluster_topology builds its item maps as tftypes values already; handed to the
// framework, a 65,536-endpoint tree's 2 million values cost 57 s of the provider's 71 s in
// ReifyNullCollectionBlocks, SchemaSemanticEquality and the GC they cause
// (BenchmarkTopologyReadServer, CPU profile). The data source leaves those outputs empty in the
// state it gives the framework and stashes them (outputStash); Wrap puts them back.
//
// gpucluster_discovered_fabric's as_built (every device and cable of the floor) goes the same
// way; its fabric inputs are stripped as well (ReadDataSource does both).
var bypassOutputs = map[string]bool{"gpucluster_topology": true, "gpucluster_discovered_fabric": true}

// outputStash carries the outputs a data source left out of its state, by attribute name: as
// tftypes values, or already encoded as MessagePack (raw).
type outputStash struct {
	outputs map[string]tftypes.Value
	raw     map[string][]byte
}

type outputStashKey struct{}

// stashOutputs moves the outputs names of out into the request's output stash, leaving empty
// values of their types; without a stash (a request not through Wrap) out is left whole.
func stashOutputs(ctx context.Context, out map[string]tftypes.Value, names ...string) {
	st, ok := ctx.Value(outputStashKey{}).(*outputStash)
	if !ok {
		return
	}
	st.outputs = make(map[string]tftypes.Value, len(names))
	for _, n := range names {
		v, ok := out[n]
		if !ok {
			continue
		}
		st.outputs[n] = v
		switch v.Type().(type) {
		case tftypes.Map:
			out[n] = tftypes.NewValue(v.Type(), map[string]tftypes.Value{})
		default:
			out[n] = tftypes.NewValue(v.Type(), nil)
		}
	}
}

// withRawOutputs gives Wrap the outputs raw, encoded as MessagePack, to put into the response
// in place of the null values the data source left in its state. Without Wrap (tests serving the
// framework directly) they are decoded into state instead.
func withRawOutputs(ctx context.Context, state tftypes.Value, raw map[string][]byte) (tftypes.Value, error) {
	if st, ok := ctx.Value(outputStashKey{}).(*outputStash); ok {
		st.raw = raw
		return state, nil
	}
	typ, ok := state.Type().(tftypes.Object)
	if !ok {
		return tftypes.Value{}, fmt.Errorf("state of type %s is not an object", state.Type())
	}
	out := make(map[string]tftypes.Value, len(raw))
	for name, b := range raw {
		v, err := (&tfprotov6.DynamicValue{MsgPack: b}).Unmarshal(typ.AttributeTypes[name])
		if err != nil {
			return tftypes.Value{}, fmt.Errorf("%s: %w", name, err)
		}
		out[name] = v
	}
	return withOutputs(state, out)
}

// listSource says which value of a request an input is taken from.
type listSource int

const (
	fromConfig   listSource = iota
	fromPrior               // prior state (PlanResourceChange, ApplyResourceChange)
	fromProposed            // proposed new state (PlanResourceChange)
	fromPlanned             // planned state (ApplyResourceChange)
	fromCurrent             // current state (ReadResource)
	numListSources
)

// listStash holds the inputs Wrap took out of one request, by source and attribute name. A
// source that the request did not carry (or that was null) has a nil map.
type listStash struct {
	lists [numListSources]map[string]tftypes.Value
}

type listStashKey struct{}

// stashedValue returns the input name of the request value src as Wrap stashed it; false when
// the request did not go through Wrap (unit tests calling the methods directly) or the source
// was not stashed.
func stashedValue(ctx context.Context, src listSource, name string) (tftypes.Value, bool) {
	s, ok := ctx.Value(listStashKey{}).(*listStash)
	if !ok || s.lists[src] == nil {
		return tftypes.Value{}, false
	}
	v, ok := s.lists[src][name]
	return v, ok
}

// Wrap returns a protocol 6 server that serves everything through inner, except that the
// fabric inputs of gpucluster_fabric and of the data sources that read a fabric bypass
// the framework (see the top of this file), and that numbers which fit no attribute are refused
// in the user's terms before either sees them (numbers.go).
func Wrap(inner tfprotov6.ProviderServer) tfprotov6.ProviderServer {
	return wrapNumbers(&bypassServer{ProviderServer: inner})
}

type bypassServer struct {
	tfprotov6.ProviderServer

	once        sync.Once
	resources   map[string]tftypes.Object // schema types of the bypassed resources
	dataSources map[string]tftypes.Object // and data sources (inputs or outputs)
}

// types loads the schema types of the bypassed resources and data sources once. When the
// schema cannot be had, nothing is bypassed.
func (s *bypassServer) types(ctx context.Context) {
	s.once.Do(func() {
		s.resources, s.dataSources = map[string]tftypes.Object{}, map[string]tftypes.Object{}
		resp, err := s.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
		if err != nil || resp == nil {
			return
		}
		for name, sch := range resp.ResourceSchemas {
			if o, ok := sch.ValueType().(tftypes.Object); ok && bypassResources[name] {
				s.resources[name] = o
			}
		}
		for name, sch := range resp.DataSourceSchemas {
			if o, ok := sch.ValueType().(tftypes.Object); ok && (bypassDataSources[name] || bypassOutputs[name]) {
				s.dataSources[name] = o
			}
		}
	})
}

func (s *bypassServer) resourceType(ctx context.Context, name string) (tftypes.Object, bool) {
	if !bypassResources[name] {
		return tftypes.Object{}, false
	}
	s.types(ctx)
	t, ok := s.resources[name]
	return t, ok
}

func (s *bypassServer) dataSourceType(ctx context.Context, name string) (tftypes.Object, bool) {
	if !bypassDataSources[name] && !bypassOutputs[name] {
		return tftypes.Object{}, false
	}
	s.types(ctx)
	t, ok := s.dataSources[name]
	return t, ok
}

// strip decodes dv, replaces the fabric inputs with null values of their type and returns the
// re-encoded value with the inputs it took (nil when dv is nil, null or wholly unknown: then it
// is returned as is). Unknown inputs are stashed as they are.
func strip(typ tftypes.Object, dv *tfprotov6.DynamicValue) (*tfprotov6.DynamicValue, map[string]tftypes.Value, error) {
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
	for _, name := range strippedInputNames {
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
		b, err := appendMsgPack(nil, v, typ.AttributeTypes[name]) // msgpack_fast.go: the inputs are the big values
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
func stripAll(typ tftypes.Object, st *listStash, vals map[listSource]**tfprotov6.DynamicValue) error {
	for src, dv := range vals {
		out, lists, err := strip(typ, *dv)
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

func (s *bypassServer) ValidateResourceConfig(ctx context.Context, req *tfprotov6.ValidateResourceConfigRequest) (*tfprotov6.ValidateResourceConfigResponse, error) {
	typ, ok := s.resourceType(ctx, req.TypeName)
	if !ok {
		return s.ProviderServer.ValidateResourceConfig(ctx, req)
	}
	// The lists are checked by ModifyPlan; the framework's validation of them does nothing
	// (no validators, no Required nested attributes) but walk them.
	r := *req
	var st listStash
	if err := stripAll(typ, &st, map[listSource]**tfprotov6.DynamicValue{fromConfig: &r.Config}); err != nil {
		return &tfprotov6.ValidateResourceConfigResponse{Diagnostics: bypassError(req.TypeName, err)}, nil
	}
	return s.ProviderServer.ValidateResourceConfig(context.WithValue(ctx, listStashKey{}, &st), &r)
}

func (s *bypassServer) UpgradeResourceState(ctx context.Context, req *tfprotov6.UpgradeResourceStateRequest) (*tfprotov6.UpgradeResourceStateResponse, error) {
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

func (s *bypassServer) ReadResource(ctx context.Context, req *tfprotov6.ReadResourceRequest) (*tfprotov6.ReadResourceResponse, error) {
	typ, ok := s.resourceType(ctx, req.TypeName)
	if !ok {
		return s.ProviderServer.ReadResource(ctx, req)
	}
	r := *req
	var st listStash
	if err := stripAll(typ, &st, map[listSource]**tfprotov6.DynamicValue{fromCurrent: &r.CurrentState}); err != nil {
		return &tfprotov6.ReadResourceResponse{Diagnostics: bypassError(req.TypeName, err)}, nil
	}
	resp, err := s.ProviderServer.ReadResource(context.WithValue(ctx, listStashKey{}, &st), &r)
	if err != nil || resp == nil {
		return resp, err
	}
	// The lists are inputs: a refresh keeps them as they were.
	if resp.NewState, err = restore(typ, resp.NewState, st.lists[fromCurrent], nil); err != nil {
		resp.Diagnostics = append(resp.Diagnostics, bypassError(req.TypeName, err)...)
	}
	return resp, nil
}

func (s *bypassServer) PlanResourceChange(ctx context.Context, req *tfprotov6.PlanResourceChangeRequest) (*tfprotov6.PlanResourceChangeResponse, error) {
	typ, ok := s.resourceType(ctx, req.TypeName)
	if !ok {
		return s.ProviderServer.PlanResourceChange(ctx, req)
	}
	r := *req
	var st listStash
	if err := stripAll(typ, &st, map[listSource]**tfprotov6.DynamicValue{
		fromConfig: &r.Config, fromPrior: &r.PriorState, fromProposed: &r.ProposedNewState,
	}); err != nil {
		return &tfprotov6.PlanResourceChangeResponse{Diagnostics: bypassError(req.TypeName, err)}, nil
	}
	resp, err := s.ProviderServer.PlanResourceChange(context.WithValue(ctx, listStashKey{}, &st), &r)
	if err != nil || resp == nil {
		return resp, err
	}
	// The lists are Optional and not Computed, so Terraform requires the planned value to be the
	// proposed one (which is the config's).
	if resp.PlannedState, err = restore(typ, resp.PlannedState, st.lists[fromProposed], nil); err != nil {
		resp.Diagnostics = append(resp.Diagnostics, bypassError(req.TypeName, err)...)
	}
	return resp, nil
}

func (s *bypassServer) ApplyResourceChange(ctx context.Context, req *tfprotov6.ApplyResourceChangeRequest) (*tfprotov6.ApplyResourceChangeResponse, error) {
	typ, ok := s.resourceType(ctx, req.TypeName)
	if !ok {
		return s.ProviderServer.ApplyResourceChange(ctx, req)
	}
	r := *req
	var st listStash
	if err := stripAll(typ, &st, map[listSource]**tfprotov6.DynamicValue{
		fromConfig: &r.Config, fromPrior: &r.PriorState, fromPlanned: &r.PlannedState,
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
	lists := st.lists[fromPlanned]
	if hasErrorDiag(resp.Diagnostics) && sameValue(typ, resp.NewState, r.PriorState) {
		lists = st.lists[fromPrior]
	}
	if resp.NewState, err = restore(typ, resp.NewState, lists, nil); err != nil {
		resp.Diagnostics = append(resp.Diagnostics, bypassError(req.TypeName, err)...)
	}
	return resp, nil
}

func (s *bypassServer) ValidateDataResourceConfig(ctx context.Context, req *tfprotov6.ValidateDataResourceConfigRequest) (*tfprotov6.ValidateDataResourceConfigResponse, error) {
	typ, ok := s.dataSourceType(ctx, req.TypeName)
	if !ok {
		return s.ProviderServer.ValidateDataResourceConfig(ctx, req)
	}
	r := *req
	// Validation has no use for an `as_built` floor: it is nulled undecoded (msgpack_skip.go).
	if at, ok := typ.AttributeTypes[plan.AttrAsBuilt]; ok && at.Is(tftypes.DynamicPseudoType) && r.Config != nil && r.Config.MsgPack != nil {
		b, _, err := nullAsBuilt(r.Config.MsgPack)
		if err != nil {
			return &tfprotov6.ValidateDataResourceConfigResponse{Diagnostics: bypassError(req.TypeName, err)}, nil
		}
		r.Config = &tfprotov6.DynamicValue{MsgPack: b}
	}
	var st listStash
	if err := stripAll(typ, &st, map[listSource]**tfprotov6.DynamicValue{fromConfig: &r.Config}); err != nil {
		return &tfprotov6.ValidateDataResourceConfigResponse{Diagnostics: bypassError(req.TypeName, err)}, nil
	}
	return s.ProviderServer.ValidateDataResourceConfig(context.WithValue(ctx, listStashKey{}, &st), &r)
}

func (s *bypassServer) ReadDataSource(ctx context.Context, req *tfprotov6.ReadDataSourceRequest) (*tfprotov6.ReadDataSourceResponse, error) {
	typ, ok := s.dataSourceType(ctx, req.TypeName)
	if !ok {
		return s.ProviderServer.ReadDataSource(ctx, req)
	}
	if !bypassDataSources[req.TypeName] {
		return s.readOutputs(ctx, typ, req)
	}
	r := *req
	var st listStash
	if err := stripAll(typ, &st, map[listSource]**tfprotov6.DynamicValue{fromConfig: &r.Config}); err != nil {
		return &tfprotov6.ReadDataSourceResponse{Diagnostics: bypassError(req.TypeName, err)}, nil
	}
	ctx = context.WithValue(ctx, listStashKey{}, &st)
	var outs outputStash
	if bypassOutputs[req.TypeName] { // a data source that reads a fabric and has big outputs
		ctx = context.WithValue(ctx, outputStashKey{}, &outs)
	}
	resp, err := s.ProviderServer.ReadDataSource(ctx, &r)
	if err != nil || resp == nil {
		return resp, err
	}
	// A data source's state repeats its config's input attributes, except an `as_built` floor,
	// which stays null there (as_built_input.go says why); gpucluster_discovered_fabric's
	// as_built is an output and goes back with the outputs.
	var put map[string]tftypes.Value
	if st.lists[fromConfig] != nil || outs.outputs != nil {
		put = make(map[string]tftypes.Value, len(st.lists[fromConfig])+len(outs.outputs))
	}
	for k, v := range st.lists[fromConfig] {
		if k != plan.AttrAsBuilt {
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
func (s *bypassServer) readOutputs(ctx context.Context, typ tftypes.Object, req *tfprotov6.ReadDataSourceRequest) (*tfprotov6.ReadDataSourceResponse, error) {
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
