package fabric

import (
	"strings"
	"testing"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
)

// TestBuildAttributeRules: every attribute rule runs on plain Spec elements (what a plain object
// or a generated item becomes), as an error on the element's attribute, and the checks across
// elements (GUIDs, P_Keys, loopbacks) are errors too, whatever manages the subnet.
func TestBuildAttributeRules(t *testing.T) {
	part := func(s *Spec, ps ...Partition) { s.Partitions = append(s.Partitions, ps...) }
	member := []Member{{HCA: "gpu001/mlx5_0", Membership: "full"}}
	cases := []struct {
		name   string
		mutate func(*Spec)
		path   string
		want   string
	}{
		{"role", func(s *Spec) { s.Switches[0].Role = "leafy" }, `switches["leaf01"].role`, `role "leafy" is not a switch role: use "leaf", "spine" or "core"`},
		{"length", func(s *Spec) { s.Cables[0].LengthM = -2 }, `cables["leaf01:1 <-> gpu001/mlx5_0:1"].length_m`, "length_m -2 is not a cable length"},
		{"power", func(s *Spec) { s.Racks[0].PowerKW = -45 }, `racks["r01"].power_kw`, "power_kw -45 is out of range: a rack's power budget is 0.1-1000 kW"},
		{"units", func(s *Spec) { s.Racks[1].Units = -1 }, `racks["r02"].units`, "units -1 is out of range: a rack has 1-60"},
		{"row", func(s *Spec) { s.Racks[0].Row = -1 }, `racks["r01"].row`, "row -1 is out of range: use 0-999"},
		{"position", func(s *Spec) { s.Racks[0].Position = 1000 }, `racks["r01"].position`, "position 1000 is out of range"},
		{"position_u", func(s *Spec) { s.Switches[2].PositionU = -3 }, `switches["spine01"].position_u`, "position_u -3 is out of range"},
		{"rail", func(s *Spec) { s.HCAs[0].Rail = 64 }, `hcas["gpu001/mlx5_0"].rail`, "rail 64 is out of range"},
		{"compute_hcas", func(s *Spec) { s.Nodes[0].ComputeHCAs = 65 }, `nodes["gpu001"].compute_hcas`, "compute_hcas 65 is out of range"},
		{"switch name", func(s *Spec) { s.Racks = nil; s.Switches[2].Name = "spine 01" }, `switches["spine 01"].name`, "a space at position 6"},
		{"rack name", func(s *Spec) { s.Racks = append(s.Racks, Rack{Name: "r:9"}) }, `racks["r:9"].name`, "':' at position 2"},
		{"guid 13 digits", func(s *Spec) { s.Switches[0].GUID = "0x0000000000a01" }, `switches["leaf01"].guid`, `has 13 hex digits, not 16; write 0x and 16 hex digits`},
		{"guid no 0x", func(s *Spec) { s.HCAs[3].PortGUID = "00000000b0000003" }, `hcas["gpu001/mlx5_3"].port_guid`, "does not start with 0x"},
		{"guid twice", func(s *Spec) { s.Switches[1].GUID = s.Switches[0].GUID }, `switches["leaf02"].guid`, "is already the GUID of switch leaf01"},
		{"hca guid = switch guid", func(s *Spec) { s.HCAs[9].PortGUID = "0x0000000000A00003" }, `hcas["gpu002/mlx5_1"].port_guid`, "is already the GUID of switch spine01"},
		{"loopback", func(s *Spec) { s.Cables = append(s.Cables, Cable{A: End{"spine01", 63}, B: End{"spine01", 64}}) }, `cables["spine01:63 <-> spine01:64"].b.device`, "loopback"},
		{"pkey 0x0000", func(s *Spec) { part(s, Partition{Name: "p", PKey: "0x0000", Members: member}) }, `partitions["p"].pkey`, "invalid P_Key"},
		{"pkey 0x7fff", func(s *Spec) { part(s, Partition{Name: "p", PKey: "0x7fff", Members: member}) }, `partitions["p"].pkey`, "default partition"},
		{"pkey 0x8001", func(s *Spec) { part(s, Partition{Name: "p", PKey: "0x8001", Members: member}) }, `partitions["p"].pkey`, `write the 15-bit key "0x0001"`},
		{"pkey abc", func(s *Spec) { part(s, Partition{Name: "p", PKey: "abc", Members: member}) }, `partitions["p"].pkey`, `"abc" does not start with 0x`},
		{"pkey twice", func(s *Spec) {
			part(s, Partition{Name: "p", PKey: "0x0002", Members: member}, Partition{Name: "q", PKey: "0x0002", Members: member})
		}, `partitions["q"].pkey`, `already the key of partitions["p"]`},
		{"partition name twice", func(s *Spec) {
			part(s, Partition{Name: "p", PKey: "0x0002", Members: member}, Partition{Ref: Ref{Key: "k2"}, Name: "p", PKey: "0x0003", Members: member})
		}, `partitions["k2"].name`, `already used by partitions["p"]`},
		{"partition name colon", func(s *Spec) { part(s, Partition{Name: "sto:rage", PKey: "0x0002", Members: member}) }, `partitions["sto:rage"].name`, "':' at position 4, which separates"},
		{"membership", func(s *Spec) {
			part(s, Partition{Name: "p", PKey: "0x0002", Members: []Member{{HCA: "gpu001/mlx5_0", Membership: "both"}}})
		}, `partitions["p"].members[0].membership`, `membership "both" must be "full"`},
		{"member guid", func(s *Spec) {
			part(s, Partition{Name: "p", PKey: "0x0002", Members: []Member{{GUID: "0x12", Membership: "full"}}})
		}, `partitions["p"].members[0].guid`, "has 2 hex digits, not 16"},
		{"member names nothing", func(s *Spec) {
			part(s, Partition{Name: "p", PKey: "0x0002", Members: []Member{{Membership: "full"}}})
		}, `partitions["p"].members[0]`, "names no port"},
		{"mtu", func(s *Spec) { part(s, Partition{Name: "p", PKey: "0x0002", IPoIB: true, MTU: 9000, Members: member}) }, `partitions["p"].mtu`, "use 256, 512, 1024, 2048 or 4096"},
		{"sl", func(s *Spec) { part(s, Partition{Name: "p", PKey: "0x0002", SL: 16, Members: member}) }, `partitions["p"].sl`, "SL 16 is out of range"},
		{"rate", func(s *Spec) {
			part(s, Partition{Name: "p", PKey: "0x0002", IPoIB: true, RateGbps: 401, Members: member})
		}, `partitions["p"].rate`, "rate 401 Gb/s is not an InfiniBand path rate"},
		{"hca name", func(s *Spec) { s.HCAs[0].Name = "gpu001-mlx5_0" }, `hcas["gpu001-mlx5_0"].name`, `"gpu001-mlx5_0" has no '/'`},
		{"kind", func(s *Spec) { s.Cables[0].Kind = "copper" }, `cables["leaf01:1 <-> gpu001/mlx5_0:1"].kind`, `no cable of kind "copper": use one of dac, acc`},
		{"generated", func(s *Spec) { s.Racks[0].Origin = "rack_power_kw"; s.Racks[0].PowerKW = -45 }, `design.rack_power_kw (racks["r01"].power_kw)`, "power_kw -45"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := smallCluster()
			tc.mutate(s)
			_, ps := Build(s, catalog.Default())
			for _, p := range ps {
				if p.Path.String() == tc.path && strings.Contains(p.Message, tc.want) {
					if p.Severity != Error {
						t.Errorf("%s is a warning; it must be an error", p)
					}
					return
				}
			}
			t.Errorf("no error at %s saying %q; got %v", tc.path, tc.want, ps)
		})
	}
	t.Run("right values pass", func(t *testing.T) {
		s := smallCluster()
		part(s, Partition{Name: "storage", PKey: "0x7ffe", IPoIB: true, MTU: 256, SL: 15, Members: []Member{
			{HCA: "gpu001/mlx5_0", Membership: "full"}, {GUID: "ALL_CAS", Membership: "limited"}, {GUID: "0x0002c90300a1b2c3", Membership: "full"}}})
		mustClean(t, s)
	})
}

// TestUnknownModelReportedOnce: a node of an unknown model is one error, not one more for each of
// its HCAs' cables and partition memberships.
func TestUnknownModelReportedOnce(t *testing.T) {
	s := smallCluster()
	s.Nodes[0].Model = "DGX-H1000"
	s.Partitions = []Partition{{Name: "p", PKey: "0x0001", Members: []Member{{HCA: "gpu001/mlx5_0", Membership: "full"}}}}
	_, ps := Build(s, catalog.Default())
	var errs []Problem
	for _, p := range ps {
		if p.Severity == Error {
			errs = append(errs, p)
		}
	}
	if len(errs) != 1 || errs[0].Rule != RuleUnknownModel || errs[0].Path.String() != `nodes["gpu001"].model` {
		t.Fatalf("want one unknown-model error on nodes[\"gpu001\"].model, got %d: %v", len(errs), errs)
	}
	s = smallCluster()
	s.Switches[1].Model = "QM8700"
	_, ps = Build(s, catalog.Default())
	n := 0
	for _, p := range ps {
		if p.Severity == Error {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("an unknown switch model gave %d errors, want 1: %v", n, ps)
	}
}

func TestExplicitUnset(t *testing.T) {
	for attr, want := range map[string]string{
		"units": "units 0 is out of range", "power_kw": "power_kw 0 is out of range", "position_u": "position_u 0",
		"length_m": "length_m 0 is not a cable length", "mtu": "MTU 0 is not an InfiniBand MTU",
		"compute_hcas": "compute_hcas 0", "rail": "rail -1 is out of range", "row": "", "sl": "",
	} {
		if got := ExplicitUnset(attr); (want == "") != (got == "") || !strings.Contains(got, want) {
			t.Errorf("ExplicitUnset(%q) = %q, want %q", attr, got, want)
		}
	}
}

// TestAttributeRuleNames: each refusal names its rule, which diagnostics show as their summary.
func TestAttributeRuleNames(t *testing.T) {
	s := smallCluster()
	s.Switches[0].Role = "leafy"
	s.Racks[0].PowerKW = -45
	s.HCAs[9].PortGUID = s.Switches[2].GUID
	s.Cables = append(s.Cables, Cable{A: End{"spine01", 63}, B: End{"spine01", 64}})
	s.Partitions = []Partition{
		{Name: "p", PKey: "0x0002", Members: []Member{{HCA: "gpu001/mlx5_0", Membership: "full"}}},
		{Name: "q", PKey: "0x0002", Members: []Member{{HCA: "gpu001/mlx5_0", Membership: "half"}}},
	}
	_, ps := Build(s, catalog.Default())
	got := map[string]bool{}
	for _, p := range ps {
		got[p.Rule] = true
	}
	for _, r := range []string{"invalid-role", "invalid-power-kw", RuleDuplicateGUID, RuleLoopback, RuleDuplicatePKey, "invalid-membership"} {
		if !got[r] {
			t.Errorf("no %s problem in %v", r, ps)
		}
	}
}
