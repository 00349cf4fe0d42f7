package plan

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/analysis"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/bom"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/opensm"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/partition"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/policy"
)

// Request is how a built fabric is to be judged and rendered: the settings of the fabric beside
// its inventory.
type Request struct {
	// Policy is the `policy` attribute with the fabric's transport and PFC; its GPUs are filled
	// here from the node models (a node that shares an HCA between GPUs counts its GPUs).
	Policy policy.Policy
	// RuleFiles are the HCL files of custom rules (`policy_files`), in order.
	RuleFiles []string
	// Workload asks for the all-reduce estimate; nil for none. Its NodeGPUs are filled here.
	Workload *analysis.Workload
	// OpenSM holds the subnet manager's settings; nil while they are not known (a plan with
	// unknown values): the effective bisection then waits for apply and no file is rendered.
	OpenSM *OpenSMSettings
	// Managed says the files are pushed (`subnet_manager` is set): a fabric that cannot be
	// rendered is then an error on the attribute at fault; otherwise one warning says why the
	// files are missing.
	Managed bool
	// Now dates the failed cables' ages; zero: the time of the run.
	Now time.Time
	// Tenants is `policy.partitions`: how the declared partitions may share members, whatever
	// target applies them.
	Tenants partition.Tenants
}

// Outcome is a fabric judged and rendered: what a plan shows.
type Outcome struct {
	*Fabric
	Analysis analysis.Result
	// Degraded is the analysis of the fabric as it runs (Fabric.Running), nil when no cable
	// failed. The policy gates the fabric as designed (Analysis); this is judged against
	// policy.degraded.
	Degraded *analysis.Result
	// CutOff is what the running fabric lost from the design's main piece: the endpoints cut off
	// by their own failed cables and their nodes to drain (policy.CutOff); zero when no cable
	// failed.
	CutOff     policy.Cut
	Violations []policy.Violation // policy.Evaluate's, then policy.JudgeDegraded's; errors fail the plan
	// UnreadPolicyFiles counts the policy files that could not be read or parsed: the
	// violations are those of the rest, so the verdict is not a whole one.
	UnreadPolicyFiles int
	BOM               bom.BOM
	OpenSM            *Rendered // nil when the files are not rendered (unknown settings, or they cannot be)
	// Partitions are the fabric's partitions resolved to port GUIDs (Default excluded), and
	// PartitionsResolved says they could be: also when the OpenSM files cannot be rendered for
	// reasons of OpenSM's own (an SL without QoS), which do not concern a target such as UFM.
	Partitions         []partition.Partition
	PartitionsResolved bool
	Problems           Problems // the policy's verdict and the rendering's problems, on their attributes
}

// Run analyses, judges, prices and renders a built fabric. It never fails: what cannot be done
// is said in the Outcome's Problems. The OpenSM configuration is derived once and serves both
// the route model of the effective bisection and the files.
func Run(cat *catalog.Catalog, f *Fabric, req Request) *Outcome {
	out := &Outcome{Fabric: f}
	g := f.Graph
	nodeGPUs := analysis.NodeGPUs(g.Spec, cat)
	w := req.Workload
	if w != nil {
		wc := *w
		w = &wc
		w.NodeGPUs = nodeGPUs
		if w.Parameters == 0 {
			out.Problems.add(Error, Attr(AttrWorkload, "parameters"), "Missing workload parameters",
				"workload.parameters is required to estimate the all-reduce time, e.g. parameters = 70e9.")
			return out
		}
		var we *analysis.WorkloadError
		if err := analysis.CheckWorkload(g, w); errors.As(err, &we) {
			out.Problems.add(Error, Attr(AttrWorkload, we.Attribute), "Workload larger than the fabric", we.Reason)
			return out
		}
	}
	out.Analysis = analysis.Analyze(g, w)

	var osm *configured
	if req.OpenSM == nil {
		out.Analysis.EffectivePending, out.Analysis.EffectiveWhyNot = true, "the subnet_manager's routing settings are not known until apply"
	} else {
		osm = configure(f, *req.OpenSM)
		effective(f, osm, &out.Analysis)
	}

	p := req.Policy
	p.GPUs = analysis.FabricGPUs(g, nodeGPUs)
	// A bad policy file fails the plan on its own path; the preset, the limits and the rules of
	// the good files still judge the fabric, so that the plan shows every violation at once.
	rules, ferrs := policy.LoadRules(req.RuleFiles)
	judge := !out.Problems.HasErrors()
	for _, fe := range ferrs {
		out.Problems.add(Error, Attr(AttrPolicyFiles).Index(fe.Index), "Invalid policy file", fe.Err.Error())
	}
	out.UnreadPolicyFiles = len(ferrs)
	if judge {
		out.Violations = policy.Evaluate(g, out.Analysis, p, rules)
		out.Problems = append(out.Problems, violationProblems(out.Violations)...)
	}
	out.Problems = append(out.Problems, tenantProblems(f.Spec, req.Tenants)...)
	if f.Running != nil {
		out.degrade(cat, osm, req)
	}
	out.BOM = Price(cat, f)
	out.BOM.BeyondFloor = BeyondFloor(cat, f, out.BOM, nil)
	if osm != nil {
		var ps Problems
		out.OpenSM, ps = osm.render(req.Managed)
		out.Problems = append(out.Problems, ps...)
		if osm.errs == nil {
			out.Partitions, out.PartitionsResolved = osm.cfg.Partitions, true
		}
	}
	return out
}

// tenantProblems reports partition.CheckTenants' refusals: a member's on the member's attribute
// (its partition located by its key), a storage HCA the fabric does not have on its entry of
// policy.partitions.storage_hcas.
func tenantProblems(spec *fabric.Spec, t partition.Tenants) Problems {
	var ps Problems
	for _, p := range partition.CheckTenants(spec, t) {
		at := Attr(AttrPolicy, "partitions", "storage_hcas").Index(p.StorageHCA)
		if p.Partition >= 0 {
			at = LocOf(spec.PathOf(fabric.MapPartitions, p.Partition, "members").Index(p.Member).Attr(p.Attr), AttrDesign)
		}
		ps.add(Error, at, "Partition policy: "+p.Rule, p.Message)
	}
	return ps
}

// violationProblems reports each violation: errors on `policy` (an empty fabric on the fabric as
// a whole: nothing of the policy is at fault), warnings as advice, rules whose inputs are not
// known yet as deferred to apply.
func violationProblems(vs []policy.Violation) Problems {
	var ps Problems
	for _, v := range vs {
		switch v.Severity {
		case policy.Error:
			if v.Rule == policy.RuleEmptyFabric {
				ps.add(Error, Loc{}, "Empty fabric", v.Message)
				break
			}
			ps.add(Error, Attr(AttrPolicy), "Policy violation: "+v.Rule, v.Message)
		case policy.Warning:
			ps.add(Warning, Attr(AttrPolicy), "Policy advice: "+v.Rule, v.Message)
		default:
			ps.add(Warning, Attr(AttrPolicyFiles), "Policy rule deferred to apply: "+v.Rule, v.Message)
		}
	}
	return ps
}

// Lines are the violations as `analysis.violations` lists them: "error: <message>". A failed
// cable's warning is left out: it gives the cable's age, which changes every day, and a state
// that changes every day is a plan that is never "No changes"; the warning is shown by every
// plan, and analysis.degraded holds the numbers.
func Lines(vs []policy.Violation) []string {
	out := make([]string, 0, len(vs))
	for _, v := range vs {
		if v.Rule == policy.RuleDegraded && v.Severity == policy.Warning {
			continue
		}
		out = append(out, string(v.Severity)+": "+v.Message)
	}
	return out
}

// degrade analyses the fabric as it runs (the graph less its failed cables) and judges it against
// policy.degraded: within the thresholds each failed cable is a warning that says where it is
// (bom.CageMates.Locate: both ends, the part, what goes down with it); beyond them, an error.
func (out *Outcome) degrade(cat *catalog.Catalog, osm *configured, req Request) {
	f := out.Fabric
	d := analysis.Analyze(f.Running, nil)
	if osm != nil {
		effectiveOn(f.Running, osm, &d)
	}
	out.Degraded = &d
	out.CutOff = policy.CutOff(f.Graph, f.Running)
	mates := bom.NewCageMates(bom.Cabling(f.Graph, cat, bom.Options{}))
	failed := make([]policy.FailedCable, len(f.Failed))
	for i, fc := range f.Failed {
		failed[i] = policy.FailedCable{Cable: fc.Cable, Reason: fc.Reason, Since: fc.Since}
		if line, _, ok := mates.Locate(fc.Label); ok {
			failed[i].Where = line
		}
	}
	vs := policy.JudgeDegraded(policy.DegradedInput{
		Designed: out.Analysis, Degraded: d, DesignedGraph: f.Graph, DegradedGraph: f.Running,
		Failed: failed, Policy: req.Policy.Degraded, Now: req.Now,
	})
	out.Violations = append(out.Violations, vs...)
	entry := map[string]int{} // a per-cable warning's witness is its entry as written
	byLabel := map[string]int{}
	for i := len(f.Failed) - 1; i >= 0; i-- {
		entry[f.Failed[i].Cable] = i
		byLabel[f.Failed[i].Label] = i
	}
	for _, d := range out.CutOff.Drain { // a node to drain: on the entry of its first cable
		for _, l := range d.Cables {
			if i, ok := byLabel[l]; ok {
				if _, taken := entry[d.Node]; !taken {
					entry[d.Node] = i
				}
			}
		}
	}
	for _, v := range vs {
		at := Attr(AttrFailedCables)
		if i, ok := entry[v.Witness]; ok && v.Severity != policy.Error {
			at = at.Index(i)
		}
		if v.Severity == policy.Error {
			out.Problems.add(Error, at, "Degraded beyond policy: "+degradedWhat(v.Rule), v.Message)
		} else {
			out.Problems.add(Warning, at, "Fabric degraded: "+degradedWhat(v.Rule), v.Message)
		}
	}
}

// degradedWhat is what a degraded-fabric diagnostic's title names after "Fabric degraded: " or
// "Degraded beyond policy: ": the rule without the "degraded" its title already says
// ("degraded-bisection" reads "bisection"), and for the per-cable rule (named "degraded") what it
// is about, a failed cable. The message itself still starts with the rule's full name.
func degradedWhat(rule string) string {
	if rule == policy.RuleDegraded {
		return "failed cable"
	}
	return strings.TrimPrefix(rule, policy.RuleDegraded+"-")
}

// effective fills r.Effective: the bandwidth of random bisection patterns under the routes
// OpenSM will compute from the configuration the files are rendered from.
func effective(f *Fabric, c *configured, r *analysis.Result) { effectiveOn(f.Graph, c, r) }

// effectiveOn is effective on g, the fabric's graph or the fabric as it runs: the files are the
// same, and OpenSM routes what it finds.
func effectiveOn(g *fabric.Graph, c *configured, r *analysis.Result) {
	routing, err := opensm.ModelRouting(g, c.cfg, len(c.settings.Graph.Roots) == 0)
	if err != nil {
		r.EffectiveWhyNot = err.Error()
		return
	}
	e, err := analysis.EffectiveBisection(g, routing)
	switch {
	case err != nil:
		r.EffectiveWhyNot = err.Error()
	case e == nil && r.Endpoints < 2:
		r.EffectiveWhyNot = "the fabric has fewer than two endpoints"
	case e == nil:
		r.EffectiveWhyNot = fmt.Sprintf("the routes of routing_engine %q are not modelled (ftree, updn and minhop are)", c.cfg.RoutingEngine)
	}
	r.Effective = e
}

// Problem titles of the rendering.
const (
	summaryInvalidOpenSM = "Invalid OpenSM configuration"
	summaryNotRendered   = "OpenSM files not rendered"
)

// notRendered is the one warning of a fabric whose files are not pushed and cannot be rendered.
func notRendered(msgs []string) Problem {
	total := len(msgs)
	if total > 5 {
		msgs = append(msgs[:5:5], fmt.Sprintf("and %d more", total-5))
	}
	return Problem{Severity: Warning, Summary: summaryNotRendered, Detail: "`opensm` is null because the fabric cannot be " +
		"rendered into OpenSM files (nothing is pushed without subnet_manager): " + strings.Join(msgs, "; ")}
}
