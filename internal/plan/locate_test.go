package plan

import (
	"fmt"
	"testing"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/opensm"
)

// TestLocOf: a problem is reported on the map element by key, or, for a generated element, on
// the design argument that sets the attribute (or sizes the design), under the attribute that
// holds the design.
func TestLocOf(t *testing.T) {
	cases := []struct {
		p          fabric.Path
		designAttr string
		want       string
	}{
		{fabric.At("switches", "leaf01", "guid"), "design", `switches["leaf01"].guid`},
		{fabric.At("partitions", "p", "members").Index(3).Attr("hca"), "design", `partitions["p"].members[3].hca`},
		{fabric.Path{Map: "switches", Key: "leaf01", Attrs: []fabric.Step{{Name: "model"}}, Design: "scalable_units"}, "design", "design.switch_model"},
		{fabric.Path{Map: "cables", Key: "leaf01:33", Attrs: []fabric.Step{{Name: "a"}, {Name: "port"}}, Design: "scalable_units"}, "design", "design.scalable_units"},
		{fabric.Path{Map: "switches", Key: "leaf01", Attrs: []fabric.Step{{Name: "model"}}, Design: "scalable_units"}, "prior_design", "prior_design.switch_model"},
		{fabric.Path{}, "design", ""},
	}
	for _, c := range cases {
		if got := LocOf(c.p, c.designAttr).String(); got != c.want {
			t.Errorf("LocOf(%s) = %s, want %s", c.p, got, c.want)
		}
	}
}

// TestOpenSMLoc: a rendering problem is located on the attribute that causes it: an inventory
// element by its key (or, generated, the design argument), a setting under subnet_manager.
func TestOpenSMLoc(t *testing.T) {
	spec := &fabric.Spec{}
	for i := 0; i < 4; i++ {
		spec.Switches = append(spec.Switches, fabric.Switch{Ref: fabric.Ref{Key: fmt.Sprintf("sw%d", i)}, Name: fmt.Sprintf("switch%d", i)})
	}
	for i := 0; i < 8; i++ {
		spec.HCAs = append(spec.HCAs, fabric.HCA{Name: fmt.Sprintf("gpu%03d/mlx5_0", i+1)}) // no key: the name stands in
	}
	spec.HCAs[7].Ref = fabric.Ref{Origin: "scalable_units"} // generated
	for i := 0; i < 3; i++ {
		spec.Partitions = append(spec.Partitions, fabric.Partition{Ref: fabric.Ref{Key: fmt.Sprintf("p%d", i)}, Name: fmt.Sprintf("part%d", i)})
	}
	n := func(name string) fabric.Step { return fabric.Step{Name: name} }
	ix := func(i int) fabric.Step { return fabric.Step{Index: i} }
	el := func(m string, i int, steps ...fabric.Step) opensm.Loc {
		return opensm.Loc{Map: m, Index: i, Steps: steps}
	}
	set := func(steps ...fabric.Step) opensm.Loc { return opensm.Loc{Index: -1, Steps: steps} }
	cases := []struct {
		at   opensm.Loc
		want string
	}{
		{set(n("lmc")), `subnet_manager.lmc`},
		{set(n("routing_engine")), `subnet_manager.routing_engine`},
		{set(n("options"), n("torus_config")), `subnet_manager.options["torus_config"]`},
		{set(n("roots"), ix(1)), `subnet_manager.roots[1]`},
		{set(n("roots")), `subnet_manager.roots`},
		{set(n("log_file")), `subnet_manager.log_file`},
		{el(fabric.MapSwitches, 3, n("guid")), `switches["sw3"].guid`},
		{el(fabric.MapHCAs, 6, n("port_guid")), `hcas["gpu007/mlx5_0"].port_guid`},
		{el(fabric.MapHCAs, 7, n("port_guid")), `design.hca_guid_base`},
		{el(fabric.MapHCAs, 9, n("port_guid")), `hcas`}, // beyond the Spec: the map as a whole
		{el(fabric.MapPartitions, -1), `partitions`},    // partitions.conf:N, no one element
		{el(fabric.MapPartitions, 2, n("pkey")), `partitions["p2"].pkey`},
		{el(fabric.MapPartitions, 2, n("members"), ix(5), n("guid")), `partitions["p2"].members[5].guid`},
		{set(n("compute_nodes"), ix(4)), `hcas`},
		{set(n("node_names"), ix(0)), `hcas`},
		{opensm.Loc{}, `subnet_manager`},
		{el(fabric.MapPartitions, 0, n("members"), ix(12), n("hca")), `partitions["p0"].members[12].hca`},
		{set(n("options"), n("qos")), `subnet_manager.options["qos"]`},
		{set(n("default_membership")), `subnet_manager.default_membership`},
		{set(n("config_dir")), `subnet_manager.config_dir`},
	}
	for _, c := range cases {
		if got := openSMLoc(c.at, spec).String(); got != c.want {
			t.Errorf("openSMLoc(%s) = %s, want %s", c.at, got, c.want)
		}
	}
	if got := openSMLoc(el(fabric.MapSwitches, 3, n("guid")), nil).String(); got != "switches" {
		t.Errorf("without a spec: %s", got)
	}
}
