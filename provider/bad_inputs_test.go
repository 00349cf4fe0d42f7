package provider

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

// The bad-input table, the standing guard of issue 13: every row is a configuration that
// `terraform plan` (the real binary) must refuse with an error, not a warning, on the attribute
// at fault, with a message that says what would be right. Rows come in pairs: the same attribute
// through its resource (the resource's validator) and through a plain object in
// gpucluster_fabric's maps (fabric.Build, or the decoder for values the fabric reads as unset),
// both from the one rule in internal/fabric/rules.go; design rows go through the generator.
//
// attr is how the error names the attribute. Terraform shows the source line of a top-level
// attribute, and of one element of a map (`leaf01 = {`), but looks no deeper; so a nested
// attribute is named in full at the start of the detail (`switches["leaf01"].guid: ...`), and a
// top-level one by its source line (`guid = ...`). want is the start of the message.
//
// `go test ./provider -run TestAccBadInputs -v` prints the table (input | via | attribute |
// message) for the closing note.

type badInput struct {
	input  string // what is wrong, for the table
	via    string // resource, plain, design, provider
	addr   string // the resource address the error is on ("provider" for the provider block)
	attr   string // top-level attribute name, or the full path that starts the detail
	want   string // the start of the message (after the path)
	config string
}

// badBase is a valid fabric of plain objects: one rack, two leaves cabled back to back (the
// smallest real fabric), one DGX H100 with two HCAs, one partition. Every attribute a row
// changes is on a line of its own.
const badBase = `
resource "gpucluster_fabric" "f" {
  name = "f"
  racks = {
    r01 = {
      row      = 1
      position = 1
      units    = 42
      power_kw = 40
    }
  }
  switches = {
    leaf01 = {
      model      = "QM9700"
      rack       = "r01"
      position_u = 40
      role       = "leaf"
      guid       = "0x0002c90300000001"
    }
    leaf02 = {
      rack       = "r01"
      position_u = 41
      guid       = "0x0002c90300000002"
    }
  }
  nodes = {
    gpu001 = {
      model        = "DGX-H100"
      rack         = "r01"
      position_u   = 2
      compute_hcas = 8
    }
  }
  hcas = {
    "gpu001/mlx5_0" = {
      node      = "gpu001"
      device    = "mlx5_0"
      port_guid = "0x0002c90300100001"
      rail      = 0
    }
    "gpu001/mlx5_1" = {
      node      = "gpu001"
      device    = "mlx5_1"
      port_guid = "0x0002c90300100002"
      rail      = 1
    }
  }
  cables = {
    c1 = {
      a        = { device = "leaf01", port = 1 }
      b        = { device = "gpu001/mlx5_0", port = 1 }
      kind     = "dac"
      length_m = 2
    }
    c2 = {
      a = { device = "leaf02", port = 1 }
      b = { device = "gpu001/mlx5_1", port = 1 }
    }
    c3 = {
      a = { device = "leaf01", port = 33 }
      b = { device = "leaf02", port = 33 }
    }
  }
  partitions = {
    compute = {
      pkey    = "0x0001"
      ipoib   = true
      mtu     = 4096
      rate    = 400
      sl      = 0
      members = [{ hca = "gpu001/mlx5_0", membership = "full" }]
    }
    # EXTRA PARTITION
  }
  # EXTRA
}
`

// plain is badBase with each old text replaced by its new text (old must occur once).
func plain(t *testing.T, pairs ...string) string {
	t.Helper()
	s := badBase
	for i := 0; i+1 < len(pairs); i += 2 {
		if strings.Count(s, pairs[i]) != 1 {
			t.Fatalf("badBase holds %q %d times, want once", pairs[i], strings.Count(s, pairs[i]))
		}
		s = strings.Replace(s, pairs[i], pairs[i+1], 1)
	}
	return s
}

func badInputs(t *testing.T) []badInput {
	const f = "gpucluster_fabric.f"
	rack := func(body string) string {
		return "resource \"gpucluster_rack\" \"r\" {\n" + body + "\n}\n"
	}
	sw := func(body string) string { return "resource \"gpucluster_switch\" \"s\" {\n" + body + "\n}\n" }
	const swOK = "  name = \"leaf01\"\n  rack = \"r01\"\n  position_u = 20\n  guid = \"0x0002c903000a0001\"\n"
	node := func(body string) string { return "resource \"gpucluster_node\" \"n\" {\n" + body + "\n}\n" }
	const nodeOK = "  name = \"gpu001\"\n  rack = \"r01\"\n  position_u = 2\n"
	hca := func(body string) string { return "resource \"gpucluster_hca\" \"h\" {\n" + body + "\n}\n" }
	const hcaOK = "  node = \"gpu001\"\n  device = \"mlx5_0\"\n  port_guid = \"0x0002c90300010000\"\n"
	cable := func(a, b, extra string) string {
		return "resource \"gpucluster_cable\" \"c\" {\n  a = " + a + "\n  b = " + b + "\n" + extra + "\n}\n"
	}
	const leaf, gpu = `{ device = "leaf01", port = 33 }`, `{ device = "gpu001/mlx5_0", port = 1 }`
	part := func(body string) string {
		return "resource \"gpucluster_partition\" \"p\" {\n" + body + "\n}\n"
	}
	const partOK = "  name = \"compute\"\n  members = [{ guid = \"ALL_CAS\" }]\n"
	storage := func(body string) string {
		return plain(t, "    # EXTRA PARTITION", "    storage = {\n"+body+"\n    }")
	}
	design := func(body string) string {
		return "resource \"gpucluster_fabric\" \"g\" {\n  name = \"g\"\n  design = {\n    kind = \"fat-tree\"\n    node_count = 4\n" + body + "\n  }\n}\n"
	}
	const g = "gpucluster_fabric.g"
	knownHosts := filepath.Join(t.TempDir(), "missing", "known_hosts")

	return []badInput{
		// ---- racks ----
		{"rack name with a space", "resource", "gpucluster_rack.r", "name", `"r 01" holds a space at position 2, which splits words in OpenSM's files and cable labels; use 1-63 letters, digits, '.', '_' or '-'`,
			rack("  name = \"r 01\"\n  row = 1\n  position = 1")},
		{"rack name with a space", "plain", f, `racks["r01"].name`, `"r 01" holds a space at position 2`,
			plain(t, "      row      = 1\n", "      name     = \"r 01\"\n      row      = 1\n")},
		{"row = -1", "resource", "gpucluster_rack.r", "row", `row -1 is out of range: use 0-999`, rack("  name = \"r01\"\n  row = -1\n  position = 1")},
		{"row = -1", "plain", f, `racks["r01"].row`, `row -1 is out of range: use 0-999`, plain(t, "row      = 1", "row      = -1")},
		{"position = 1000", "resource", "gpucluster_rack.r", "position", `position 1000 is out of range: use 0-999`, rack("  name = \"r01\"\n  row = 1\n  position = 1000")},
		{"position = 1000", "plain", f, `racks["r01"].position`, `position 1000 is out of range: use 0-999`, plain(t, "position = 1\n", "position = 1000\n")},
		{"units = 0", "resource", "gpucluster_rack.r", "units", `units 0 is out of range: a rack has 1-60 usable units`, rack("  name = \"r01\"\n  row = 1\n  position = 1\n  units = 0")},
		{"units = 0", "plain", f, `racks["r01"].units`, `units 0 is out of range: a rack has 1-60 usable units`, plain(t, "units    = 42", "units    = 0")},
		{"power_kw = -45", "resource", "gpucluster_rack.r", "power_kw", `power_kw -45 is out of range: a rack's power budget is 0.1-1000 kW`, rack("  name = \"r01\"\n  row = 1\n  position = 1\n  power_kw = -45")},
		{"power_kw = -45", "plain", f, `racks["r01"].power_kw`, `power_kw -45 is out of range: a rack's power budget is 0.1-1000 kW`, plain(t, "power_kw = 40", "power_kw = -45")},
		{"rack prefix with a space", "design", g, `design.prefixes`, `"hall A 01" holds a space at position 5, which splits words in OpenSM's files and cable labels`,
			design("    prefixes = { rack = \"hall A \" }")},
		{"rack_units = 61", "design", g, `design.rack_units`, `units 61 is out of range: a rack has 1-60 usable units`, design("    rack_units = 61")},
		{"node_model unknown", "design", g, `design.node_model`, `unknown node model "DGX-A100"`, design("    node_model = \"DGX-A100\"")},
		{`cable_kind = "copper"`, "design", g, `design.cable_kind`, `unknown cable kind "copper"; valid kinds: dac, acc, aoc, fiber-mm, fiber-sm`, design("    cable_kind = \"copper\"")},
		{"rack_power_kw = -45", "design", g, `design.rack_power_kw`, `rack_power_kw = -45 is out of range: it takes at least 0.001; leave it unset (null) for the default (42)`, design("    rack_power_kw = -45")},
		// Zero is not "unset" (issue 22 item 5): null is the default, 0 is refused.
		{"oversubscription = 0", "design", g, `design.oversubscription`, `oversubscription = 0 is out of range: it takes at least 1; leave it unset (null) for the default (1)`, design("    oversubscription = 0")},
		{"spines = 0", "design", g, `design.spines`, `spines = 0 is out of range: it takes at least 1; leave it unset (null) for the default (the fewest that hold the planned leaves)`, design("    spines = 0")},
		{`prefixes = { leaf = "gpu0", node = "gpu" }`, "design", g, `design.prefixes.leaf`, `prefixes.leaf = "gpu0" names leaf switch gpu001 and prefixes.node = "gpu" names node gpu001: two devices of one name`,
			design("    prefixes = { leaf = \"gpu0\", node = \"gpu\" }")},
		{`switch_guid_base = "0xffffffffffffffff"`, "design", g, `design.switch_guid_base`, `switch_guid_base 0xffffffffffffffff plus this design's largest switch GUID offset (0x100001) passes 0xffffffffffffffff, and GUIDs never wrap; the largest base that fits is 0xffffffffffeffffe`,
			design("    switch_guid_base = \"0xffffffffffffffff\"")},

		// ---- switches ----
		{"switch name with a space", "resource", "gpucluster_switch.s", "name", `"leaf 01" holds a space at position 5`,
			sw("  name = \"leaf 01\"\n  rack = \"r01\"\n  position_u = 20\n  guid = \"0x0002c903000a0001\"")},
		{"switch name with a space", "plain", f, `switches["leaf02"].name`, `"leaf 02" holds a space at position 5`,
			plain(t, "      rack       = \"r01\"\n      position_u = 41\n", "      name       = \"leaf 02\"\n      rack       = \"r01\"\n      position_u = 41\n")},
		{"unknown switch model", "resource", "gpucluster_switch.s", "model", `unknown switch model "QM8700"; the catalog has ` + builtinSwitches(), sw(swOK + "  model = \"QM8700\"")},
		{"unknown switch model", "plain", f, `switches["leaf01"].model`, `unknown switch model "QM8700"; the catalog has ` + builtinSwitches(), plain(t, "model      = \"QM9700\"", "model      = \"QM8700\"")},
		{"switch_model unknown", "design", g, `design.switch_model`, `unknown switch model "QM8700"`, design("    switch_model = \"QM8700\"")},
		{"position_u = 0", "resource", "gpucluster_switch.s", "position_u", `position_u 0 is out of range: rack units count from 1 (the bottom) to at most 60`,
			sw("  name = \"leaf01\"\n  rack = \"r01\"\n  position_u = 0\n  guid = \"0x0002c903000a0001\"")},
		{"position_u = 0", "plain", f, `switches["leaf01"].position_u`, `position_u 0 is out of range: rack units count from 1 (the bottom) to at most 60`, plain(t, "position_u = 40", "position_u = 0")},
		{`role = "leafy"`, "resource", "gpucluster_switch.s", "role", `role "leafy" is not a switch role: use "leaf", "spine" or "core", or leave it unset to have the fabric infer it`, sw(swOK + "  role = \"leafy\"")},
		{`role = "leafy"`, "plain", f, `switches["leaf01"].role`, `role "leafy" is not a switch role: use "leaf", "spine" or "core", or leave it unset to have the fabric infer it`, plain(t, `role       = "leaf"`, `role       = "leafy"`)},
		{"GUID of 13 hex digits", "resource", "gpucluster_switch.s", "guid", `GUID "0x0002c903000a0" has 13 hex digits, not 16; write 0x and 16 hex digits, e.g. "0x0002c90300a1b2c3"`,
			sw("  name = \"leaf01\"\n  rack = \"r01\"\n  position_u = 20\n  guid = \"0x0002c903000a0\"")},
		{"GUID of 13 hex digits", "plain", f, `switches["leaf01"].guid`, `GUID "0x0002c90300000" has 13 hex digits, not 16; write 0x and 16 hex digits, e.g. "0x0002c90300a1b2c3"`,
			plain(t, `"0x0002c90300000001"`, `"0x0002c90300000"`)},
		{"two switches, one GUID", "plain", f, `switches["leaf02"].guid`, `GUID 0x0002c90300000001 of switch leaf02 is already the GUID of switch leaf01; every GUID on a subnet is unique`,
			plain(t, `"0x0002c90300000002"`, `"0x0002c90300000001"`)},
		{"group with a space", "resource", "gpucluster_switch.s", "group", `"group one" holds a space at position 6`, sw(swOK + "  group = \"group one\"")},

		// ---- nodes ----
		{"node name with '!'", "resource", "gpucluster_node.n", "name", `"gpu_001!" holds '!' at position 8; use 1-63 letters, digits`, node("  name = \"gpu_001!\"\n  rack = \"r01\"\n  position_u = 2")},
		{"node name with '!'", "plain", f, `nodes["gpu001"].name`, `"gpu_001!" holds '!' at position 8; use 1-63 letters, digits`,
			plain(t, "      model        = \"DGX-H100\"\n", "      name         = \"gpu_001!\"\n      model        = \"DGX-H100\"\n")},
		{"unknown node model", "resource", "gpucluster_node.n", "model", `unknown node model "DGX-A100"; the catalog has ` + builtinNodes(), node(nodeOK + "  model = \"DGX-A100\"")},
		{"unknown node model (reported once)", "plain", f, `nodes["gpu001"].model`, `unknown node model "DGX-A100"; the catalog has ` + builtinNodes(), plain(t, `model        = "DGX-H100"`, `model        = "DGX-A100"`)},
		{"compute_hcas = 0", "resource", "gpucluster_node.n", "compute_hcas", `compute_hcas 0 is out of range: a node has 1-64 compute HCAs`, node(nodeOK + "  compute_hcas = 0")},
		{"compute_hcas = 0", "plain", f, `nodes["gpu001"].compute_hcas`, `compute_hcas 0 is out of range: a node has 1-64 compute HCAs`, plain(t, "compute_hcas = 8", "compute_hcas = 0")},
		{"position_u = 61", "resource", "gpucluster_node.n", "position_u", `position_u 61 is out of range`, node("  name = \"gpu001\"\n  rack = \"r01\"\n  position_u = 61")},
		{"position_u = 61", "plain", f, `nodes["gpu001"].position_u`, `position_u 61 is out of range`, plain(t, "position_u   = 2", "position_u   = 61")},
		{`ssh_host = "127.0.0.1:0"`, "resource", "gpucluster_node.n", "ssh_host", `ssh_host "127.0.0.1:0": port "0" is not a number from 1 to 65535; write the host alone for port 22`, node(nodeOK + "  ssh_host = \"127.0.0.1:0\"")},
		{"BMC endpoint port and port disagree", "resource", "gpucluster_node.n", `bmc.port`, `bmc.endpoint "10.0.0.5:9623" names port 9623 but bmc.port is 9624; give the port once: remove ":9623" from endpoint`,
			node(nodeOK + "  bmc = { endpoint = \"10.0.0.5:9623\", port = 9624 }")},
		{"IPMI user name of 18 bytes", "resource", "gpucluster_node.n", `bmc_users[0].name`, `user name "automation-user01x" is 18 bytes, but IPMI carries at most 16 (IPMI v2.0, Set User Name)`,
			node(nodeOK + "  bmc       = { endpoint = \"10.0.0.5\" }\n  bmc_users = [{ name = \"automation-user01x\", role = \"Operator\", password = \"x\" }]")},
		{"subnet_manager.known_hosts_file that does not exist", "plain", f, "subnet_manager", `known_hosts_file "` + knownHosts + `" does not exist; give the path of the OpenSSH known_hosts file`,
			plain(t, "  # EXTRA\n", fmt.Sprintf("  subnet_manager = {\n    hosts = [\"sm01.example\"]\n    ssh_user = \"root\"\n    ssh_private_key = \"unused\"\n    known_hosts_file = %q\n  }\n", knownHosts))},
		{"HCA ssh.known_hosts_file that does not exist", "resource", "gpucluster_hca.h", "ssh.known_hosts_file", `known_hosts_file "` + knownHosts + `" does not exist`,
			hca(hcaOK + fmt.Sprintf("  ssh = { known_hosts_file = %q }", knownHosts))},
		{"known_hosts_file that does not exist", "provider", "provider", "ssh.known_hosts_file", `known_hosts_file "` + knownHosts + `" does not exist; give the path of the OpenSSH known_hosts file`,
			fmt.Sprintf("provider \"gpucluster\" {\n  ssh = {\n    user = \"root\"\n    known_hosts_file = %q\n  }\n}\n", knownHosts) + node(nodeOK)},

		// ---- HCAs ----
		{"HCA GUID with a non-hex digit", "resource", "gpucluster_hca.h", "port_guid", `GUID "0x0002c9030001000g" holds "g", which is not a hex digit; write 0x and 16 hex digits`,
			hca("  node = \"gpu001\"\n  device = \"mlx5_0\"\n  port_guid = \"0x0002c9030001000g\"")},
		{"HCA GUID with a non-hex digit", "plain", f, `hcas["gpu001/mlx5_0"].port_guid`, `GUID "0x0002c9030010000g" holds "g", which is not a hex digit; write 0x and 16 hex digits`,
			plain(t, `"0x0002c90300100001"`, `"0x0002c9030010000g"`)},
		{"HCA GUID = a switch GUID", "plain", f, `hcas["gpu001/mlx5_1"].port_guid`, `GUID 0x0002c90300000002 of HCA gpu001/mlx5_1 is already the GUID of switch leaf02`,
			plain(t, `"0x0002c90300100002"`, `"0x0002c90300000002"`)},
		{"rail = 64", "resource", "gpucluster_hca.h", "rail", `rail 64 is out of range: rails are 0-63`, hca(hcaOK + "  rail = 64")},
		{"rail = -1", "plain", f, `hcas["gpu001/mlx5_0"].rail`, `rail -1 is out of range: rails are 0-63`, plain(t, "rail      = 0", "rail      = -1")},
		{"HCA name without '/'", "resource", "gpucluster_hca.h", "name", `"gpu001-mlx5_0" has no '/': an HCA is named "<node>/<device>"`, hca(hcaOK + "  name = \"gpu001-mlx5_0\"")},
		{"HCA device with a space", "resource", "gpucluster_hca.h", "device", `"mlx5 1" holds a space at position 5`, hca("  node = \"gpu001\"\n  device = \"mlx5 1\"\n  port_guid = \"0x0002c90300010000\"")},
		{"HCA device with a space", "plain", f, `hcas["gpu001/mlx5_1"].device`, `"mlx5 1" holds a space at position 5`, plain(t, `device    = "mlx5_1"`, `device    = "mlx5 1"`)},
		{"unknown HCA model", "resource", "gpucluster_hca.h", "model", `unknown HCA model "ConnectX-6"; the catalog has ` + builtinHCAs(), hca(hcaOK + "  model = \"ConnectX-6\"")},

		// ---- cables ----
		{"port = 0", "resource", "gpucluster_cable.c", `a.port`, `port 0 does not exist: ports count from 1`, cable(`{ device = "leaf01", port = 0 }`, gpu, "")},
		{"port = 0", "plain", f, `cables["c1"].a.port`, `port 0 does not exist: ports count from 1`, plain(t, `{ device = "leaf01", port = 1 }`, `{ device = "leaf01", port = 0 }`)},
		{"port = 65 on a 64-port switch", "resource", "gpucluster_cable.c", `a.port`, `port 65 exists on no switch model in the catalog: the largest, QM9700, has ports 1-64`, cable(`{ device = "leaf01", port = 65 }`, gpu, "")},
		{"port = 65 on a 64-port switch", "plain", f, `cables["c1"].a.port`, `port 65 does not exist: a QM9700 has ports 1-64`, plain(t, `{ device = "leaf01", port = 1 }`, `{ device = "leaf01", port = 65 }`)},
		{"port = 36.5", "resource", "gpucluster_cable.c", `a.port`, `port must be a whole number, got 36.5`, cable(`{ device = "leaf01", port = 36.5 }`, gpu, "")},
		{"port = 36.5", "plain", f, `cables["c1"].a.port`, `port must be a whole number, got 36.5`, plain(t, `{ device = "leaf01", port = 1 }`, `{ device = "leaf01", port = 36.5 }`)},
		{"cable from a switch back to itself", "resource", "gpucluster_cable.c", `b.device`, `both ends are on leaf01 (ports 33 and 34): a cable from a device back to itself is a loopback that joins nothing; cable b to another switch or to an HCA`,
			cable(leaf, `{ device = "leaf01", port = 34 }`, "")},
		{"cable from a switch back to itself", "plain", f, `cables["c3"].b.device`, `both ends are on leaf01 (ports 33 and 34): a cable from a device back to itself is a loopback`,
			plain(t, `{ device = "leaf02", port = 33 }`, `{ device = "leaf01", port = 34 }`)},
		{`kind = "copper"`, "resource", "gpucluster_cable.c", "kind", `no cable of kind "copper": use one of dac, acc, aoc, fiber-mm, fiber-sm, or leave kind unset`, cable(leaf, gpu, `  kind = "copper"`)},
		{`kind = "copper"`, "plain", f, `cables["c1"].kind`, `no cable of kind "copper": use one of dac, acc, aoc, fiber-mm, fiber-sm, or leave kind unset`, plain(t, `kind     = "dac"`, `kind     = "copper"`)},
		{"length_m = -2", "resource", "gpucluster_cable.c", "length_m", `length_m -2 is not a cable length: give the run in metres, at least 0.1`, cable(leaf, gpu, `  length_m = -2`)},
		{"length_m = -2", "plain", f, `cables["c1"].length_m`, `length_m -2 is not a cable length: give the run in metres, at least 0.1`, plain(t, "length_m = 2", "length_m = -2")},
		{"length_m = 0", "plain", f, `cables["c1"].length_m`, `length_m 0 is not a cable length`, plain(t, "length_m = 2", "length_m = 0")},
		{"cable to a device not in the fabric", "plain", f, `cables["c2"].b.device`, `cable end b names "gpu009/mlx5_1", which is neither a switch nor an HCA of this fabric`,
			plain(t, `{ device = "gpu001/mlx5_1", port = 1 }`, `{ device = "gpu009/mlx5_1", port = 1 }`)},

		// ---- partitions ----
		{`name = "sto:rage"`, "resource", "gpucluster_partition.p", "name", `"sto:rage" holds ':' at position 4, which separates a cable end's device from its port and, in partitions.conf, a partition's header from its members`,
			part("  name = \"sto:rage\"\n  pkey = \"0x0001\"\n  members = [{ guid = \"ALL_CAS\" }]")},
		{`name = "sto:rage"`, "plain", f, `partitions["storage"].name`, `"sto:rage" holds ':' at position 4, which separates`,
			storage("      name = \"sto:rage\"\n      pkey = \"0x0002\"\n      members = [{ guid = \"ALL_CAS\" }]")},
		{`pkey = "0x0000"`, "resource", "gpucluster_partition.p", "pkey", `pkey 0x0000 is the invalid P_Key, which no port may hold; use 0x and 4 hex digits from "0x0001" to "0x7ffe"`, part(partOK + "  pkey = \"0x0000\"")},
		{`pkey = "0x0000"`, "plain", f, `partitions["compute"].pkey`, `pkey 0x0000 is the invalid P_Key, which no port may hold; use 0x and 4 hex digits from "0x0001" to "0x7ffe"`, plain(t, `pkey    = "0x0001"`, `pkey    = "0x0000"`)},
		{`pkey = "0x7fff"`, "resource", "gpucluster_partition.p", "pkey", `pkey 0x7fff is OpenSM's default partition, which always exists and is not declared`, part(partOK + "  pkey = \"0x7fff\"")},
		{`pkey = "0x7fff"`, "plain", f, `partitions["compute"].pkey`, `pkey 0x7fff is OpenSM's default partition, which always exists and is not declared`, plain(t, `pkey    = "0x0001"`, `pkey    = "0x7fff"`)},
		{`pkey = "0x8001"`, "resource", "gpucluster_partition.p", "pkey", `pkey 0x8001 has the membership bit (0x8000) set; write the 15-bit key "0x0001" and set each member's membership instead`, part(partOK + "  pkey = \"0x8001\"")},
		{`pkey = "0x8001"`, "plain", f, `partitions["compute"].pkey`, `pkey 0x8001 has the membership bit (0x8000) set; write the 15-bit key "0x0001"`, plain(t, `pkey    = "0x0001"`, `pkey    = "0x8001"`)},
		{`pkey = "abc"`, "resource", "gpucluster_partition.p", "pkey", `pkey "abc" does not start with 0x; use 0x and 4 hex digits from "0x0001" to "0x7ffe"`, part(partOK + "  pkey = \"abc\"")},
		{`pkey = "abc"`, "plain", f, `partitions["compute"].pkey`, `pkey "abc" does not start with 0x; use 0x and 4 hex digits from "0x0001" to "0x7ffe"`, plain(t, `pkey    = "0x0001"`, `pkey    = "abc"`)},
		{"two partitions, one pkey", "plain", f, `partitions["storage"].pkey`, `pkey 0x0001 is already the key of partitions["compute"]; OpenSM would merge the two partitions`,
			storage("      pkey = \"0x0001\"\n      members = [{ guid = \"ALL_CAS\" }]")},
		{"mtu = 1500", "resource", "gpucluster_partition.p", "mtu", `MTU 1500 is not an InfiniBand MTU: use 256, 512, 1024, 2048 or 4096 bytes`, part(partOK + "  pkey = \"0x0001\"\n  ipoib = true\n  mtu = 1500")},
		{"mtu = 1500", "plain", f, `partitions["compute"].mtu`, `MTU 1500 is not an InfiniBand MTU: use 256, 512, 1024, 2048 or 4096 bytes`, plain(t, "mtu     = 4096", "mtu     = 1500")},
		{"rate = 401", "resource", "gpucluster_partition.p", "rate", `rate 401 Gb/s is not an InfiniBand path rate: use one of 5, 10`, part(partOK + "  pkey = \"0x0001\"\n  ipoib = true\n  rate = 401")},
		{"rate = 401", "plain", f, `partitions["compute"].rate`, `rate 401 Gb/s is not an InfiniBand path rate: use one of 5, 10`, plain(t, "rate    = 400", "rate    = 401")},
		// 800 Gb/s is an IBTA 1.5 path rate, but no subnet manager the provider writes for knows its code: refused at plan, not when the files render.
		{"rate = 800", "resource", "gpucluster_partition.p", "rate", `rate 800 Gb/s (path-rate code 23, IBTA vol. 1 release 1.5) is unknown to the subnet managers the provider writes for`, part(partOK + "  pkey = \"0x0001\"\n  ipoib = true\n  rate = 800")},
		{"rate = 800", "plain", f, `partitions["compute"].rate`, `rate 800 Gb/s (path-rate code 23, IBTA vol. 1 release 1.5) is unknown to the subnet managers`, plain(t, "rate    = 400", "rate    = 800")},
		{"sl = 16", "resource", "gpucluster_partition.p", "sl", `SL 16 is out of range: a service level is 0-15`, part(partOK + "  pkey = \"0x0001\"\n  sl = 16")},
		{"sl = 16", "plain", f, `partitions["compute"].sl`, `SL 16 is out of range: a service level is 0-15`, plain(t, "sl      = 0", "sl      = 16")},
		{`membership = "both"`, "resource", "gpucluster_partition.p", `members[0].membership`, `membership "both" must be "full" (talks to every member) or "limited" (talks to full members only)`,
			part("  name = \"compute\"\n  pkey = \"0x0001\"\n  members = [{ guid = \"ALL_CAS\", membership = \"both\" }]")},
		{`membership = "both"`, "plain", f, `partitions["compute"].members[0].membership`, `membership "both" must be "full" (talks to every member) or "limited"`,
			plain(t, `membership = "full"`, `membership = "both"`)},
		{"member GUID of 13 hex digits", "resource", "gpucluster_partition.p", `members[0].guid`, `GUID "0x2c90300010001" has 13 hex digits, not 16`,
			part("  name = \"compute\"\n  pkey = \"0x0001\"\n  members = [{ guid = \"0x2c90300010001\" }]")},
		{"member GUID of 13 hex digits", "plain", f, `partitions["compute"].members[0].guid`, `GUID "0x2c90300010001" has 13 hex digits, not 16`,
			plain(t, `members = [{ hca = "gpu001/mlx5_0", membership = "full" }]`, `members = [{ guid = "0x2c90300010001", membership = "full" }]`)},
		{"member that is no HCA of the fabric", "plain", f, `partitions["compute"].members[0].hca`, `partition "compute" member "gpu009/mlx5_0" is not an HCA of this fabric`,
			plain(t, `hca = "gpu001/mlx5_0", membership`, `hca = "gpu009/mlx5_0", membership`)},

		// ---- fabric-wide ----
		{"max_oversubscription = 1e400", "plain", f, `policy.max_oversubscription`, `max_oversubscription = 1e+400 is beyond the largest number the provider computes with`,
			plain(t, "  # EXTRA\n", "  policy = { max_oversubscription = 1e400 }\n")},
		{"hca_guids value of 13 hex digits", "design", g, `design.hca_guids`, `gpu001/mlx5_0: GUID "0x0002c90300a1b" has 13 hex digits, not 16`,
			design("    hca_guids = { \"gpu001/mlx5_0\" = \"0x0002c90300a1b\" }")},
	}
}

// badInputPattern matches the error of b: an "Error:" diagnostic on b.addr whose source line is
// the attribute (top-level attributes) or whose detail starts with the attribute's path, then
// the message. Terraform wraps long lines, so any run of blanks matches any whitespace.
func badInputPattern(b badInput) *regexp.Regexp {
	words := func(s string) string {
		return regexp.MustCompile(` +`).ReplaceAllString(regexp.QuoteMeta(s), `[\s│]+`)
	}
	var head string
	switch {
	case b.addr == "provider":
		head = `with provider\["[^"\n]+"\],\n[│ ]*on [^\n]+ line \d+, in provider "gpucluster":\n`
	case strings.HasPrefix(b.addr, "data."):
		typ, name, _ := strings.Cut(strings.TrimPrefix(b.addr, "data."), ".")
		head = `with ` + regexp.QuoteMeta(b.addr) + `,\n[│ ]*on [^\n]+ line \d+, in data "` + typ + `" "` + name + `":\n`
	default:
		typ, name, _ := strings.Cut(b.addr, ".")
		head = `with ` + regexp.QuoteMeta(b.addr) + `,\n[│ ]*on [^\n]+ line \d+, in resource "` + typ + `" "` + name + `":\n`
	}
	src := `(?:[│ ]*\d+:[^\n]*\n)+`
	detail := words(b.want)
	if strings.ContainsAny(b.attr, ".[") {
		detail = words(b.attr+": ") + detail
	} else {
		src = `(?:[│ ]*\d+:[^\n]*\n)*?[│ ]*\d+:[ \t]*` + regexp.QuoteMeta(b.attr) + `[ \t]*=[^\n]*\n(?:[│ ]*\d+:[^\n]*\n)*`
	}
	return regexp.MustCompile(`Error: [^\n]+\n[\s│]*` + head + src + `[\s│]*` + detail)
}

func TestAccBadInputs(t *testing.T) {
	t.Parallel()
	rows := badInputs(t)
	if len(rows) < 40 {
		t.Fatalf("the table has %d bad inputs; the guard wants at least 40", len(rows))
	}
	t.Logf("| input | via | attribute | message |")
	t.Logf("|---|---|---|---|")
	for _, b := range rows {
		t.Logf("| %s | %s | `%s` | %s |", b.input, b.via, b.attr, strings.ReplaceAll(b.want, "|", `\|`))
	}
	// One test case, one step per row: a plan each, one terraform init for all of them. A failing
	// step is reported by its number, the row's place in the table above.
	steps := make([]resource.TestStep, 0, len(rows))
	for _, b := range rows {
		steps = append(steps, resource.TestStep{Config: b.config, PlanOnly: true, ExpectError: badInputPattern(b)})
	}
	resource.UnitTest(t, resource.TestCase{ProtoV6ProviderFactories: testProviders, Steps: steps})
}

// TestAccBadInputsBaseIsValid: the fabric every plain row starts from plans cleanly, so each
// row's error is the row's own. Its two leaves cabled back to back are the smallest real fabric,
// no torus: OpenSM routes them with minhop (opensm.EngineFor), and the plan says so.
func TestAccBadInputsBaseIsValid(t *testing.T) {
	t.Parallel()
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{{
			Config: badBase, // applied: a fabric without subnet_manager touches no host
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectKnownValue("gpucluster_fabric.f",
					tfjsonpath.New("analysis").AtMapKey("effective_bisection").AtMapKey("routing_engine"), knownvalue.StringExact("minhop")),
			}},
		}},
	})
}

// TestBadInputPattern checks the matcher on Terraform's own layout, so that a row cannot pass on
// a warning or on another attribute's error.
func TestBadInputPattern(t *testing.T) {
	out := "Error: Fabric: invalid-guid\n\n  with gpucluster_fabric.f,\n  on terraform_plugin_test.tf line 13, in resource \"gpucluster_fabric\" \"f\":\n  13:     leaf01 = {\n\n" +
		"switches[\"leaf01\"].guid: GUID \"0x0002c90300000\" has 13 hex digits, not 16;\nwrite 0x and 16 hex digits\n"
	b := badInput{addr: "gpucluster_fabric.f", attr: `switches["leaf01"].guid`, want: `GUID "0x0002c90300000" has 13 hex digits, not 16; write 0x and 16 hex digits`}
	if !badInputPattern(b).MatchString(out) {
		t.Errorf("pattern %s does not match\n%s", badInputPattern(b), out)
	}
	for name, o := range map[string]string{
		"warning":         strings.Replace(out, "Error:", "Warning:", 1),
		"other attribute": strings.Replace(out, `switches["leaf01"].guid`, `switches["leaf01"].role`, 1),
		"other resource":  strings.Replace(out, "with gpucluster_fabric.f,", "with gpucluster_fabric.g,", 1),
	} {
		if badInputPattern(b).MatchString(o) {
			t.Errorf("pattern matches a %s:\n%s", name, o)
		}
	}
	top := "Error: Invalid GUID\n\n  with gpucluster_switch.s,\n  on terraform_plugin_test.tf line 5, in resource \"gpucluster_switch\" \"s\":\n   5:   guid = \"0x0002c903000a0\"\n\nGUID \"0x0002c903000a0\" has 13 hex digits, not 16\n"
	tb := badInput{addr: "gpucluster_switch.s", attr: "guid", want: `GUID "0x0002c903000a0" has 13 hex digits, not 16`}
	if !badInputPattern(tb).MatchString(top) {
		t.Errorf("pattern %s does not match\n%s", badInputPattern(tb), top)
	}
	if badInputPattern(badInput{addr: tb.addr, attr: "name", want: tb.want}).MatchString(top) {
		t.Error("pattern for name matches an error on guid")
	}
}
