package plan

import (
	"errors"
	"fmt"
	"strings"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/opensm"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/topogen"
)

// Root attributes of a fabric's inputs that problems are located at.
const (
	AttrDesign        = "design"
	AttrAbsentCables  = "absent_cables"
	AttrPolicy        = "policy"
	AttrPolicyFiles   = "policy_files"
	AttrWorkload      = "workload"
	AttrSubnetManager = "subnet_manager"
	AttrFailedCables  = "failed_cables"
	AttrAsBuilt       = "as_built"     // of the design: the floor it is fitted to
	AttrPriorDesign   = "prior_design" // of gpucluster_bom: the design as it is cabled now
)

// designAttrOf names the design argument behind an attribute of a generated element, where one
// argument sets it for every element; other problems go to the element's Origin (the size).
var designAttrOf = map[string]string{
	"switches.model": "switch_model", "nodes.model": "node_model", "cables.kind": "cable_kind",
	"racks.power_kw": "rack_power_kw", "racks.units": "rack_units", "switches.guid": "switch_guid_base",
	"hcas.port_guid": "hca_guid_base",
	// generated names are a prefix and a number: a name the fabric refuses comes from its prefix
	"racks.name": "prefixes", "switches.name": "prefixes", "nodes.name": "prefixes", "hcas.name": "prefixes",
}

// LocOf is the attribute path of a fabric.Path: the element of an inventory map by key, or, for
// an element generated from the design (held by the attribute designAttr), the design argument
// that produced it (there the user can fix it; the element itself is named in the detail).
func LocOf(p fabric.Path, designAttr string) Loc {
	if p.Design != "" {
		if len(p.Attrs) > 0 {
			if a, ok := designAttrOf[p.Map+"."+p.Attrs[0].Name]; ok {
				return Attr(designAttr, a)
			}
		}
		return Attr(designAttr, p.Design)
	}
	if p.Map == "" {
		return Loc{}
	}
	out := Attr(p.Map).Key(p.Key)
	for _, s := range p.Attrs {
		if s.Name == "" {
			out = out.Index(s.Index)
		} else {
			out = out.Attr(s.Name)
		}
	}
	return out
}

// fabricProblems turns the graph builder's problems into Problems on their attributes.
func fabricProblems(in []fabric.Problem, designAttr string) Problems {
	out := make(Problems, 0, len(in))
	for _, p := range in {
		sev := Error
		if p.Severity == fabric.Warning {
			sev = Warning
		}
		detail := p.Message
		if p.Path.Design != "" {
			detail += "\n\n(in the generated " + p.Path.Element() + ")"
		}
		out.add(sev, LocOf(p.Path, designAttr), "Fabric: "+p.Rule, detail)
	}
	return out
}

// designProblem reports a generator refusal on the argument it names, under the attribute that
// holds the design ("design", or "prior_design" of gpucluster_bom), or at the root where the
// arguments are the caller's own (attribute "": gpucluster_topology, whose message names the
// argument too, as a root attribute's path is its name alone).
func designProblem(err error, attribute string) Problem {
	summary := "Cannot build the " + attribute
	if attribute == "" {
		summary = "Cannot build this topology"
	}
	var te *topogen.Error
	if !errors.As(err, &te) {
		at := Loc{}
		if attribute != "" {
			at = Attr(attribute)
		}
		return Problem{Severity: Error, At: at, Summary: summary, Detail: err.Error()}
	}
	detail := te.Reason + "."
	if attribute == "" {
		detail = te.Attribute + ": " + detail
	}
	if te.Nearest != "" {
		detail += fmt.Sprintf("\n\nNearest buildable: %s.", te.Nearest)
	}
	// The argument may be nested ("prefixes.leaf"): each name is a step.
	steps := strings.Split(te.Attribute, ".")
	at := Attr(steps[0], steps[1:]...)
	if attribute != "" {
		at = Attr(attribute, steps...)
	}
	return Problem{Severity: Error, At: at, Summary: summary, Detail: detail}
}

// openSMLoc maps the location of an opensm.FieldError to the attribute that causes it. An
// inventory element is located by its place in spec (the graph's Spec), which gives its key in
// the fabric's map, or the design argument that generated it; a setting is an attribute of
// subnet_manager (an option a key of its options map).
func openSMLoc(at opensm.Loc, spec *fabric.Spec) Loc {
	if at.Map != "" {
		if spec == nil || !specHas(spec, at.Map, at.Index) {
			return Attr(at.Map)
		}
		fp := spec.PathOf(at.Map, at.Index)
		for _, st := range at.Steps {
			if st.Name == "" {
				fp = fp.Index(st.Index)
			} else {
				fp = fp.Attr(st.Name)
			}
		}
		return LocOf(fp, AttrDesign)
	}
	if len(at.Steps) == 0 || at.Steps[0].Name == "" {
		return Attr(AttrSubnetManager)
	}
	name := at.Steps[0].Name
	switch name {
	case "compute_nodes", "node_names":
		return Attr(fabric.MapHCAs) // derived from the HCAs' port GUIDs (and the switches' GUIDs)
	}
	p := Attr(AttrSubnetManager, name)
	if len(at.Steps) > 1 {
		switch next := at.Steps[1]; {
		case name == "options" && next.Name != "":
			return p.Key(next.Name)
		case next.Name == "":
			return p.Index(next.Index)
		}
	}
	return p
}

// specHas reports whether spec has element i of the inventory map m.
func specHas(spec *fabric.Spec, m string, i int) bool {
	n := map[string]int{
		fabric.MapRacks: len(spec.Racks), fabric.MapSwitches: len(spec.Switches), fabric.MapNodes: len(spec.Nodes),
		fabric.MapHCAs: len(spec.HCAs), fabric.MapCables: len(spec.Cables), fabric.MapPartitions: len(spec.Partitions),
	}[m]
	return i >= 0 && i < n
}
