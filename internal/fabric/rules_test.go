package fabric

import (
	"strings"
	"testing"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
)

// TestRules runs every attribute rule on values it must accept ("" back) and on values it must
// refuse, whose message must name the reason (want).
func TestRules(t *testing.T) {
	cases := []struct {
		rule string
		got  string
		want string // "" = accepted; otherwise a fragment of the message
	}{
		{"name", CheckName("leaf01"), ""},
		{"name", CheckName("r-01.a_b"), ""},
		{"name", CheckName(""), "empty"},
		{"name", CheckName("-leaf"), "starts with '-'"},
		{"name", CheckName("leaf 01"), "a space at position 5"},
		{"name", CheckName("sto:rage"), "':' at position 4, which separates"},
		{"name", CheckName(strings.Repeat("a", 64)), "64 characters"},
		{"hca name", CheckHCAName("gpu001/mlx5_0"), ""},
		{"hca name", CheckHCAName("gpu001"), "no '/'"},
		{"hca name", CheckHCAName("gpu001/mlx5:0"), "device part"},
		{"partition name", CheckPartitionName("storage"), ""},
		{"partition name", CheckPartitionName("_x.y-z9"), ""},
		{"partition name", CheckPartitionName("sto:rage"), "':' at position 4, which separates a cable end's device from its port and, in partitions.conf, a partition's header from its members"},
		{"partition name", CheckPartitionName("a,b"), "separates flags and members"},
		{"partition name", CheckPartitionName("a#b"), "starts a comment"},
		{"partition name", CheckPartitionName("9lives"), "reads as a P_Key"},
		{"partition name", CheckPartitionName("default"), "default partition"},
		{"partition name", CheckPartitionName(strings.Repeat("p", 32)), "32 characters"},
		{"guid", CheckGUID("0x0002c90300a1b2c3"), ""},
		{"guid", CheckGUID("0X0002C90300A1B2C3"), ""},
		{"guid", CheckGUID("0x0002c90300a1b"), "has 13 hex digits, not 16"},
		{"guid", CheckGUID("0x0002c90300a1b2c3ff"), "has 18 hex digits"},
		{"guid", CheckGUID("0002c90300a1b2c3"), "does not start with 0x"},
		{"guid", CheckGUID("0x0002c90300a1b2cg"), "\"g\", which is not a hex digit"},
		{"guid", CheckGUID("0x0000000000000000"), "zero"},
		{"member guid", CheckMemberGUID("ALL_CAS"), ""},
		{"member guid", CheckMemberGUID("all"), "keywords ALL, ALL_CAS"},
		{"pkey", CheckPKey("0x0001"), ""},
		{"pkey", CheckPKey("0x7ffe"), ""},
		{"pkey", CheckPKey("0x0000"), "invalid P_Key"},
		{"pkey", CheckPKey("0x7fff"), "default partition"},
		{"pkey", CheckPKey("0x8001"), "membership bit (0x8000) set; write the 15-bit key \"0x0001\""},
		{"pkey", CheckPKey("0x8000"), "reserved"},
		{"pkey", CheckPKey("abc"), "does not start with 0x"},
		{"pkey", CheckPKey("0xabcg"), "not a hex digit"},
		{"pkey", CheckPKey("0x1"), "1 hex digits, not 4"},
		{"membership", CheckMembership("full"), ""},
		{"membership", CheckMembership("limited"), ""},
		{"membership", CheckMembership("both"), "\"full\""},
		{"mtu", CheckMTU(256), ""},
		{"mtu", CheckMTU(4096), ""},
		{"mtu", CheckMTU(9000), "256, 512, 1024, 2048 or 4096"},
		{"mtu", CheckMTU(4095), "not an InfiniBand MTU"},
		{"sl", CheckSL(0), ""},
		{"sl", CheckSL(15), ""},
		{"sl", CheckSL(16), "0-15"},
		{"sl", CheckSL(-1), "0-15"},
		{"role", CheckRole("core"), ""},
		{"role", CheckRole("leafy"), "\"leaf\", \"spine\" or \"core\""},
		{"row", CheckRowPosition("row", 0), ""},
		{"row", CheckRowPosition("row", -1), "row -1 is out of range: use 0-999"},
		{"units", CheckUnits(42), ""},
		{"units", CheckUnits(0), "1-60"},
		{"power", CheckPowerKW(45), ""},
		{"power", CheckPowerKW(-45), "0.1-1000 kW"},
		{"position_u", CheckPositionU(1), ""},
		{"position_u", CheckPositionU(0), "count from 1"},
		{"length", CheckLengthM(0.5), ""},
		{"length", CheckLengthM(-2), "at least 0.1"},
		{"port", CheckPort(64, 64, "QM9700"), ""},
		{"port", CheckPort(0, 64, "QM9700"), "count from 1"},
		{"port", CheckPort(65, 64, "QM9700"), "a QM9700 has ports 1-64"},
		{"rail", CheckRail(7), ""},
		{"rail", CheckRail(64), "0-63"},
		{"compute_hcas", CheckComputeHCAs(8), ""},
		{"compute_hcas", CheckComputeHCAs(0), "1-64"},
		{"kind", CheckCableKind("fiber-mm"), ""},
		{"kind", CheckCableKind("copper"), "use one of dac, acc, aoc, fiber-mm, fiber-sm"},
		{"rate", CheckRate(400), ""},
		{"rate", CheckRate(401), "not an InfiniBand path rate"},
		{"ends", CheckCableEnds(End{"leaf01", 1}, End{"spine01", 1}), ""},
		{"ends", CheckCableEnds(End{"leaf01", 1}, End{"leaf01", 2}), "loopback"},
		{"ends", CheckCableEnds(End{"leaf01", 1}, End{"leaf01", 1}), "two different ports"},
		{"catalog port", CheckCatalogPort(catalog.Default(), 64), ""},
		{"catalog port", CheckCatalogPort(catalog.Default(), 65), "port 65 exists on no switch model in the catalog: the largest, QM9700, has ports 1-64"},
		{"catalog port", CheckCatalogPort(&catalog.Catalog{}, 65), ""}, // no switch: nothing to bound it
	}
	for _, c := range cases {
		switch {
		case c.want == "" && c.got != "":
			t.Errorf("%s: refused a right value: %s", c.rule, c.got)
		case c.want != "" && !strings.Contains(c.got, c.want):
			t.Errorf("%s: message %q does not say %q", c.rule, c.got, c.want)
		}
	}
}

func TestMTUCodeMatchesIBTA(t *testing.T) {
	for code, bytes := range map[int]int{1: 256, 2: 512, 3: 1024, 4: 2048, 5: 4096} {
		if got, ok := MTUCode(bytes); !ok || got != code {
			t.Errorf("MTUCode(%d) = %d, %v; the IBTA code is %d", bytes, got, ok, code)
		}
	}
}
