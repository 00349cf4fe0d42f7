package hca

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/testrig"
)

func TestDatabaseLoads(t *testing.T) {
	if _, err := loadDB(); err != nil {
		t.Fatal(err)
	}
	names := Names()
	if len(names) < 300 {
		t.Fatalf("only %d parameter names; the extract looks truncated", len(names))
	}
	for _, def := range Defs() {
		if (def.Type == TypeEnum || def.Type == TypeBool) && len(def.Enum) == 0 {
			t.Errorf("%s: %s without values", def.Base, def.Type)
		}
		if def.Bits <= 0 {
			t.Errorf("%s: width %d", def.Base, def.Bits)
		}
	}
	// Names the reference outputs show on real ConnectX-7 cards, and the
	// ones GPU-fabric tuning sets (SR-IOV, ATS, relaxed ordering, MAX_ACC_OUT_READ for GPUDirect
	// RDMA), as mstflint's mlxconfig_host.db defines them, must all resolve.
	for _, n := range []string{
		"LINK_TYPE_P1", "LINK_TYPE_P2", "SRIOV_EN", "NUM_OF_VFS", "NUM_OF_PF", "NUM_PF_MSIX",
		"ADVANCED_PCI_SETTINGS", "MAX_ACC_OUT_READ", "PCI_WR_ORDERING", "ATS_ENABLED",
		"KEEP_IB_LINK_UP_P1", "KEEP_ETH_LINK_UP_P2", "KEEP_LINK_UP_ON_BOOT_P1", "KEEP_LINK_UP_ON_STANDBY_P2",
		"ROCE_CC_PRIO_MASK_P1", "ROCE_CC_ALGORITHM_P2", "ROCE_CONTROL", "ROCE_ADAPTIVE_ROUTING_EN",
		"PCI_ATOMIC_MODE", "CQE_COMPRESSION", "UCTX_EN", "IB_ROUTING_MODE_P1", "SRIOV_IB_ROUTING_MODE_P2",
		"MODULE_SPLIT_M0", "MEMIC_BAR_SIZE", "MEMIC_SIZE_LIMIT", "MEMIC_ATOMIC", "MEMIC_ATOMIC_ENDIANESS",
		"HOST_CHAINING_MODE", "HOST_CHAINING_DESCRIPTORS", "DPA_AUTHENTICATION", "PF_BAR2_SIZE",
		"SAFE_MODE_THRESHOLD", "SAFE_MODE_ENABLE", "EXP_ROM_UEFI_x86_ENABLE",
		"HOST_CHAINING_DESCRIPTORS[7]",
	} {
		if _, err := Lookup(n); err != nil {
			t.Errorf("Lookup(%s): %v", n, err)
		}
	}
}

func TestLookupScopes(t *testing.T) {
	s, err := Lookup("LINK_TYPE_P2")
	if err != nil {
		t.Fatal(err)
	}
	if s.Base != "LINK_TYPE" || s.Port != 2 || s.Scope != ScopePort || s.TLV != "nv_vpi_link_type" {
		t.Errorf("LINK_TYPE_P2 = %+v", s)
	}
	if s, err := Lookup("MODULE_SPLIT_M1"); err != nil || s.Module != 1 || !s.IsArray() || s.ArrayLen != 16 {
		t.Errorf("MODULE_SPLIT_M1 = %+v, %v", s, err)
	}
	if s, err := Lookup("SRIOV_EN"); err != nil || s.Port != 0 || s.Module != -1 || s.Type != TypeBool {
		t.Errorf("SRIOV_EN = %+v, %v", s, err)
	}
	for _, bad := range []string{"LINK_TYPE", "LINK_TYPE_P0", "LINK_TYPE_P3", "LINK_TYPE_P01", "SRIOV_EN_P1",
		"MODULE_SPLIT", "MODULE_SPLIT_M2", "HOST_CHAINING_DESCRIPTORS[8]", "SRIOV_EN[0]", "link_type_p1", ""} {
		if _, err := Lookup(bad); err == nil {
			t.Errorf("Lookup(%q) succeeded", bad)
		}
	}
}

func TestValidateExplainsUnknownNames(t *testing.T) {
	cases := []struct {
		name, want string
	}{
		{"LINK_TYPE", "LINK_TYPE_P1, LINK_TYPE_P2"},                   // per-port without suffix
		{"link_type_p1", "did you mean LINK_TYPE_P1?"},                // case
		{"LINK_TYP_P1", "LINK_TYPE_P1"},                               // typo
		{"SRIOV_ENABLE", "SRIOV_EN"},                                  // near name
		{"KEEP_IB_LINK_UP", "KEEP_IB_LINK_UP_P1, KEEP_IB_LINK_UP_P2"}, // per-port
		{"SRIOV_EN_P1", "SRIOV_EN"},                                   // global with a suffix
		{"HOST_CHAINING_DESCRIPTORS[9]", "[0] to [7]"},                // index out of range
		{"MODULE_SPLIT", "MODULE_SPLIT_M0, MODULE_SPLIT_M1"},          // per-module
	}
	for _, c := range cases {
		errs := Validate(map[string]string{c.name: "1"})
		if len(errs) != 1 {
			t.Errorf("%s: %d errors, want 1: %v", c.name, len(errs), errs)
			continue
		}
		var pe *ParamError
		if !errors.As(errs[0], &pe) || pe.Kind != UnknownParam {
			t.Errorf("%s: error %T %v, want an UnknownParam ParamError", c.name, errs[0], errs[0])
			continue
		}
		if !strings.Contains(errs[0].Error(), c.want) {
			t.Errorf("%s: %q does not mention %q", c.name, errs[0], c.want)
		}
	}
}

func TestValidateValues(t *testing.T) {
	good := map[string]string{
		"LINK_TYPE_P1":                 "IB",
		"LINK_TYPE_P2":                 "eth",
		"SRIOV_EN":                     "True",
		"ATS_ENABLED":                  "0",
		"KEEP_IB_LINK_UP_P1":           "false",
		"ADVANCED_PCI_SETTINGS":        "1",
		"NUM_OF_VFS":                   "127",
		"MAX_ACC_OUT_READ":             "0x20",
		"PCI_WR_ORDERING":              "FORCE_RELAX",
		"MEMIC_SIZE_LIMIT":             "_256KB(1)",
		"RPG_MIN_DEC_FAC_P1":           "50",
		"MODULE_MAX_POWER_OVERRIDE_M0": "ff",
		"HOST_CHAINING_DESCRIPTORS[3]": "8",
	}
	if errs := Validate(good); errs != nil {
		t.Fatalf("valid settings rejected: %v", errs)
	}
	bad := []struct {
		name, value, want string
	}{
		{"LINK_TYPE_P1", "INFINIBAND", "IB (1), ETH (2)"},
		{"LINK_TYPE_P1", "3", "IB (1), ETH (2)"},
		{"LINK_TYPE_P1", "ETH(1)", "disagree"},
		{"SRIOV_EN", "yes", "False (0), True (1)"},
		{"SRIOV_EN", "2", "False (0), True (1)"},
		{"NUM_OF_VFS", "65536", "from 0 to 65535 (the device may allow less)"},
		{"NUM_OF_VFS", "-1", "not a number"},
		{"NUM_OF_VFS", "many", "not a number"},
		{"RPG_MIN_DEC_FAC_P1", "0", "from 1 to 100"},
		{"RPG_MIN_DEC_FAC_P2", "101", "from 1 to 100"},
		{"MODULE_SPLIT_M0", "1", "array of 16 elements"},
		{"MODULE_MAX_POWER_OVERRIDE_M0", "100", "0x0 to 0xff"},
	}
	for _, c := range bad {
		errs := Validate(map[string]string{c.name: c.value})
		if len(errs) != 1 {
			t.Errorf("%s=%s: %v, want one error", c.name, c.value, errs)
			continue
		}
		var pe *ParamError
		if !errors.As(errs[0], &pe) || pe.Kind != InvalidValue || pe.Param != c.name || pe.Value != c.value {
			t.Errorf("%s=%s: %#v", c.name, c.value, errs[0])
		}
		if !strings.Contains(errs[0].Error(), c.want) {
			t.Errorf("%s=%s: %q does not mention %q", c.name, c.value, errs[0], c.want)
		}
	}
	// Several errors come back in name order, one each.
	errs := Validate(map[string]string{"ZZZ": "1", "LINK_TYPE_P1": "X", "SRIOV_EN": "1"})
	if len(errs) != 2 || !strings.Contains(errs[0].Error(), "LINK_TYPE_P1") || !strings.Contains(errs[1].Error(), "ZZZ") {
		t.Errorf("Validate order: %v", errs)
	}
}

func TestNormalizeSameValue(t *testing.T) {
	for _, v := range []string{"IB", "ib", "Ib", "IB(1)", "ib(1)", "1", "0x1", "01", " IB "} {
		got, err := Normalize("LINK_TYPE_P1", v)
		if err != nil || got != "IB(1)" {
			t.Errorf("Normalize(LINK_TYPE_P1, %q) = %q, %v; want IB(1)", v, got, err)
		}
	}
	for _, v := range []string{"True", "true", "TRUE", "1", "True(1)"} {
		if got, err := Normalize("SRIOV_EN", v); err != nil || got != "True(1)" {
			t.Errorf("Normalize(SRIOV_EN, %q) = %q, %v", v, got, err)
		}
	}
	for _, v := range []string{"16", "0x10", "020", "0x10(16)"} {
		if got, err := Normalize("NUM_OF_VFS", v); err != nil || got != "16" {
			t.Errorf("Normalize(NUM_OF_VFS, %q) = %q, %v", v, got, err)
		}
	}
	if !Equal("LINK_TYPE_P1", "IB", "1") || !Equal("LINK_TYPE_P1", "ib", "IB(1)") || Equal("LINK_TYPE_P1", "IB", "ETH") {
		t.Error("Equal on LINK_TYPE_P1")
	}
	// A parameter the database lacks still compares by meaning.
	if !Equal("SOME_NEW_PARAM", "ENABLED(1)", "1") || !Equal("SOME_NEW_PARAM", "enabled", "ENABLED(1)") ||
		Equal("SOME_NEW_PARAM", "ENABLED(1)", "0") {
		t.Error("Equal on an unknown parameter")
	}
	// Query output normalizes to itself.
	for _, raw := range []string{"_256KB(1)", "DEVICE_DEFAULT(0)", "MEMIC_ATOMIC_ENABLE(2)", "False(0)"} {
		name := map[string]string{"_256KB(1)": "MEMIC_SIZE_LIMIT", "DEVICE_DEFAULT(0)": "MEMIC_ATOMIC_ENDIANESS",
			"MEMIC_ATOMIC_ENABLE(2)": "MEMIC_ATOMIC", "False(0)": "PROG_PARSE_GRAPH"}[raw]
		if got, err := Normalize(name, raw); err != nil || got != raw {
			t.Errorf("Normalize(%s, %s) = %q, %v", name, raw, got, err)
		}
	}
}

// TestGeneratedExtractIsCurrent regenerates params.txt from mstflint's database with sqlite3
// (both installed by scripts/install-deps.sh) and checks it matches the committed file, so that
// the go:generate directive keeps working.
func TestGeneratedExtractIsCurrent(t *testing.T) {
	testrig.RequirePeers(t)
	if !strings.HasPrefix(paramsTxt, "# Code generated by internal/gen/genparams.sh") {
		t.Fatal("params.txt lacks its generated-code header")
	}
	db := "/usr/share/mstflint/mlxconfig_dbs/mlxconfig_host.db"
	if _, err := exec.LookPath("sqlite3"); err != nil {
		t.Fatal("sqlite3 is not installed: apt-get install sqlite3 (make deps does)")
	}
	if _, err := os.Stat(db); err != nil {
		t.Fatal("mstflint's database is missing: apt-get install mstflint (make deps does)")
	}
	out := filepath.Join(t.TempDir(), "params.txt")
	cmd := exec.Command("sh", "internal/gen/genparams.sh", out)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("genparams.sh: %v\n%s", err, b)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != paramsTxt {
		t.Error("params.txt differs from a fresh extract: run go generate ./internal/hca")
	}
}

// TestCommand: arguments are quoted by remote.Command, and NAME=VALUE pairs stay as mlxconfig's
// documentation writes them.
func TestCommand(t *testing.T) {
	if got := command("mlxconfig", "-d", "/dev/mst/mt4129_pciconf0", "-y", "set", "LINK_TYPE_P1=IB", "x;rm -rf /"); got != "mlxconfig -d /dev/mst/mt4129_pciconf0 -y set LINK_TYPE_P1=IB 'x;rm -rf /'" {
		t.Errorf("command = %s", got)
	}
	if got := command("mlxconfig", "-d", "a b", "query"); got != "mlxconfig -d 'a b' query" {
		t.Errorf("command = %s", got)
	}
}

// TestCheckSettings: an unknown name listed as unchecked passes, one not listed is refused with
// the way out, and a bad value of a known name is refused whatever unchecked says.
func TestCheckSettings(t *testing.T) {
	got := CheckSettings(map[string]string{
		"NEW_FW_KNOB": "1", "OTHER_KNOB": "1", "LINK_TYPE_P1": "bogus", "SRIOV_EN": "True",
	}, map[string]bool{"NEW_FW_KNOB": true, "LINK_TYPE_P1": true})
	byParam := map[string]string{}
	for _, p := range got {
		byParam[p.Param] = p.Detail
	}
	if len(got) != 2 || byParam["NEW_FW_KNOB"] != "" {
		t.Fatalf("problems: %+v", got)
	}
	if d := byParam["OTHER_KNOB"]; !strings.Contains(d, `unknown mlxconfig parameter "OTHER_KNOB"`) || !strings.HasSuffix(d, "list it in unchecked_parameters.") {
		t.Errorf("unknown name: %q", d)
	}
	if d := byParam["LINK_TYPE_P1"]; !strings.Contains(d, `invalid value "bogus" for LINK_TYPE_P1`) || strings.Contains(d, "unchecked_parameters") {
		t.Errorf("bad value: %q", d)
	}
}
