package provider

import (
	"context"
	"testing"

	"github.com/gpucluster/terraform-provider-gpucluster/provider/tfwire"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// bypassFixture is the fabric's schema type and a small fabric value of it: one leaf, one node
// with one HCA, one cable, everything else null.
func bypassFixture(t *testing.T) (tfprotov6.ProviderServer, tftypes.Object, tftypes.Value) {
	t.Helper()
	fw := providerserver.NewProtocol6(New("test")())()
	resp, err := fw.GetProviderSchema(t.Context(), &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	typ := as[tftypes.Object](t, resp.ResourceSchemas["gpucluster_fabric"].ValueType())
	attrs := map[string]tftypes.Value{}
	for name, at := range typ.AttributeTypes {
		attrs[name] = tftypes.NewValue(at, nil)
	}
	mapOf := func(name string, elems map[string]map[string]tftypes.Value) tftypes.Value {
		mt := as[tftypes.Map](t, typ.AttributeTypes[name])
		ot := as[tftypes.Object](t, mt.ElementType)
		vals := map[string]tftypes.Value{}
		for key, e := range elems {
			full := map[string]tftypes.Value{}
			for k, kt := range ot.AttributeTypes {
				if v, ok := e[k]; ok {
					full[k] = v
				} else {
					full[k] = tftypes.NewValue(kt, nil)
				}
			}
			vals[key] = tftypes.NewValue(ot, full)
		}
		return tftypes.NewValue(mt, vals)
	}
	str := func(s string) tftypes.Value { return tftypes.NewValue(tftypes.String, s) }
	num := func(n int) tftypes.Value { return tftypes.NewValue(tftypes.Number, n) }
	endType := as[tftypes.Object](t, as[tftypes.Object](t, as[tftypes.Map](t, typ.AttributeTypes["cables"]).ElementType).AttributeTypes["a"])
	end := func(dev string, port int) tftypes.Value {
		return tftypes.NewValue(endType, map[string]tftypes.Value{"device": str(dev), "port": num(port)})
	}
	attrs["name"] = str("compute")
	// Names from the keys, and from `name`.
	attrs["switches"] = mapOf("switches", map[string]map[string]tftypes.Value{"leaf01": {}})
	attrs["nodes"] = mapOf("nodes", map[string]map[string]tftypes.Value{"n": {"name": str("gpu001"), "compute_hcas": num(1)}})
	attrs["hcas"] = mapOf("hcas", map[string]map[string]tftypes.Value{"gpu001/mlx5_0": {"node": str("gpu001"), "device": str("mlx5_0")}})
	attrs["cables"] = mapOf("cables", map[string]map[string]tftypes.Value{"c1": {"a": end("leaf01", 1), "b": end("gpu001/mlx5_0", 1)}})
	// A map that depends on values not known yet.
	attrs["racks"] = tftypes.NewValue(typ.AttributeTypes["racks"], tftypes.UnknownValue)
	return fw, typ, tftypes.NewValue(typ, attrs)
}

// recordingServer stands in for the framework: it records what it was sent and what the
// resource would read from the stash, and plans the proposed state as it is.
type recordingServer struct {
	tfprotov6.ProviderServer
	got      tftypes.Value
	stashed  tftypes.Value // cables, as the resource reads them
	unknown  bool          // racks read as unknown
	typ      tftypes.Object
	readFail error
}

func (r *recordingServer) PlanResourceChange(ctx context.Context, req *tfprotov6.PlanResourceChangeRequest) (*tfprotov6.PlanResourceChangeResponse, error) {
	r.got, r.readFail = req.ProposedNewState.Unmarshal(r.typ)
	r.stashed, _ = tfwire.Stashed(ctx, tfwire.FromProposed, "cables")
	racks, _ := tfwire.Stashed(ctx, tfwire.FromProposed, "racks")
	r.unknown = !racks.IsKnown()
	return &tfprotov6.PlanResourceChangeResponse{PlannedState: req.ProposedNewState}, nil
}

func TestWrapStripRestore(t *testing.T) {
	fw, typ, v := bypassFixture(t)
	dv, err := tfprotov6.NewDynamicValue(typ, v)
	if err != nil {
		t.Fatal(err)
	}
	null, err := tfprotov6.NewDynamicValue(typ, tftypes.NewValue(typ, nil))
	if err != nil {
		t.Fatal(err)
	}
	rec := &recordingServer{ProviderServer: fw, typ: typ}
	resp, err := Wrap(rec).PlanResourceChange(t.Context(), &tfprotov6.PlanResourceChangeRequest{
		TypeName: "gpucluster_fabric", Config: &dv, ProposedNewState: &dv, PriorState: &null,
	})
	if err != nil || len(resp.Diagnostics) > 0 {
		t.Fatalf("err %v, diags %v", err, resp.Diagnostics)
	}
	if rec.readFail != nil {
		t.Fatal(rec.readFail)
	}

	// The inner server saw null lists, and the rest as it was.
	var got map[string]tftypes.Value
	if err := rec.got.As(&got); err != nil {
		t.Fatal(err)
	}
	for _, name := range fabricInputNames {
		if !got[name].IsNull() {
			t.Errorf("inner server got %s = %v, want null", name, got[name])
		}
	}
	if !got["name"].Equal(tftypes.NewValue(tftypes.String, "compute")) {
		t.Errorf("name = %v", got["name"])
	}
	// The resource reads the originals from the context, the unknown list as unknown.
	var cables map[string]tftypes.Value
	if err := rec.stashed.As(&cables); err != nil || len(cables) != 1 {
		t.Errorf("stashed cables = %v, want one", rec.stashed)
	}
	if !rec.unknown {
		t.Error("racks read from the stash are not unknown")
	}
	// The planned state has the proposed lists back, the unknown one included.
	planned, err := resp.PlannedState.Unmarshal(typ)
	if err != nil {
		t.Fatal(err)
	}
	if !planned.Equal(v) {
		t.Errorf("planned state differs from the proposed one:\n%v\n%v", planned, v)
	}
}

// TestWrapPlanFabric plans the small fabric through Wrap and the real framework: the fabric
// is analysed from the stashed lists and the planned lists are the proposed ones.
func TestWrapPlanFabric(t *testing.T) {
	fw, typ, v := bypassFixture(t)
	// Known racks: nothing unknown, so the plan analyses the fabric.
	var attrs map[string]tftypes.Value
	if err := v.As(&attrs); err != nil {
		t.Fatal(err)
	}
	attrs["racks"] = tftypes.NewValue(typ.AttributeTypes["racks"], nil)
	v = tftypes.NewValue(typ, attrs)

	ctx := t.Context()
	srv := Wrap(fw)
	sch, err := srv.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	pt := as[tftypes.Object](t, sch.Provider.ValueType())
	pattrs := map[string]tftypes.Value{}
	for name, at := range pt.AttributeTypes {
		pattrs[name] = tftypes.NewValue(at, nil)
	}
	pcfg, err := tfprotov6.NewDynamicValue(pt, tftypes.NewValue(pt, pattrs))
	if err != nil {
		t.Fatal(err)
	}
	if cr, err := srv.ConfigureProvider(ctx, &tfprotov6.ConfigureProviderRequest{Config: &pcfg}); err != nil || hasErrors(cr.Diagnostics) {
		t.Fatalf("configure: %v %v", err, diagText(cr.Diagnostics))
	}
	dv, _ := tfprotov6.NewDynamicValue(typ, v)
	null, _ := tfprotov6.NewDynamicValue(typ, tftypes.NewValue(typ, nil))
	resp, err := srv.PlanResourceChange(ctx, &tfprotov6.PlanResourceChangeRequest{
		TypeName: "gpucluster_fabric", Config: &dv, ProposedNewState: &dv, PriorState: &null,
	})
	if err != nil || hasErrors(resp.Diagnostics) {
		t.Fatalf("plan: %v %v", err, diagText(resp.Diagnostics))
	}
	planned, err := resp.PlannedState.Unmarshal(typ)
	if err != nil {
		t.Fatal(err)
	}
	var p map[string]tftypes.Value
	if err := planned.As(&p); err != nil {
		t.Fatal(err)
	}
	for _, name := range fabricInputNames {
		if !p[name].Equal(attrs[name]) {
			t.Errorf("planned %s = %v, want the proposed %v", name, p[name], attrs[name])
		}
	}
	var analysis map[string]tftypes.Value
	if !p["analysis"].IsKnown() {
		t.Fatal("analysis is unknown: the fabric was not read from the stash")
	}
	if err := p["analysis"].As(&analysis); err != nil {
		t.Fatal(err)
	}
	if want := tftypes.NewValue(tftypes.Number, 1); !analysis["endpoints"].Equal(want) {
		t.Errorf("analysis.endpoints = %v, want 1", analysis["endpoints"])
	}
}

func hasErrors(ds []*tfprotov6.Diagnostic) bool {
	for _, d := range ds {
		if d.Severity == tfprotov6.DiagnosticSeverityError {
			return true
		}
	}
	return false
}

func diagText(ds []*tfprotov6.Diagnostic) []string {
	var out []string
	for _, d := range ds {
		out = append(out, d.Summary+": "+d.Detail)
	}
	return out
}

// failingApply stands in for the framework's failed Update: it returns the prior state with an
// error, as server_updateresource.go does when the resource does not set the state.
type failingApply struct{ tfprotov6.ProviderServer }

func (failingApply) ApplyResourceChange(_ context.Context, req *tfprotov6.ApplyResourceChangeRequest) (*tfprotov6.ApplyResourceChangeResponse, error) {
	return &tfprotov6.ApplyResourceChangeResponse{NewState: req.PriorState, Diagnostics: []*tfprotov6.Diagnostic{{
		Severity: tfprotov6.DiagnosticSeverityError, Summary: "push failed",
	}}}, nil
}

func TestWrapFailedUpdateKeepsPriorLists(t *testing.T) {
	fw, typ, planned := bypassFixture(t)
	var attrs map[string]tftypes.Value
	if err := planned.As(&attrs); err != nil {
		t.Fatal(err)
	}
	attrs["racks"] = tftypes.NewValue(typ.AttributeTypes["racks"], nil)
	planned = tftypes.NewValue(typ, attrs)
	attrs["cables"] = tftypes.NewValue(typ.AttributeTypes["cables"], nil) // the prior fabric had no cables
	prior := tftypes.NewValue(typ, attrs)
	pdv, _ := tfprotov6.NewDynamicValue(typ, planned)
	odv, _ := tfprotov6.NewDynamicValue(typ, prior)
	resp, err := Wrap(failingApply{fw}).ApplyResourceChange(t.Context(), &tfprotov6.ApplyResourceChangeRequest{
		TypeName: "gpucluster_fabric", Config: &pdv, PlannedState: &pdv, PriorState: &odv,
	})
	if err != nil {
		t.Fatal(err)
	}
	got, err := resp.NewState.Unmarshal(typ)
	if err != nil {
		t.Fatal(err)
	}
	if !got.Equal(prior) {
		t.Errorf("new state after a failed update is not the prior state:\n%v", got)
	}
}
