package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/inputfile"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/policy"
)

// The hostile inputs of issue 22, in the layout of the bad-input table (bad_inputs_test.go): each
// row is a configuration the real terraform must refuse at plan with an error on the attribute
// at fault. They are kept apart from the table of issue 13 so that the two can grow
// independently; `go test ./provider -run TestAccHostileInputs -v` prints them for the closing
// note.
func hostileInputs(t *testing.T) []badInput {
	const f = "gpucluster_fabric.f"
	dir := t.TempDir()
	file := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	sparse := filepath.Join(dir, "sparse")
	if err := os.WriteFile(sparse, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(sparse, 1<<40); err != nil {
		t.Fatal(err)
	}
	const cube = `[for a in range(1000) : [for b in range(1000) : [for c in range(1000) : c]]]`
	huge := file("huge.hcl", "rule \"huge\" {\n  condition     = length(flatten("+cube+")) > 0\n  error_message = \"never\"\n}\n")
	policyFiles := func(files ...string) string {
		q := make([]string, len(files))
		for i, p := range files {
			q[i] = fmt.Sprintf("%q", p)
		}
		return plain(t, "  # EXTRA\n", "  policy_files = ["+strings.Join(q, ", ")+"]\n")
	}
	catalogFiles := func(p string) string {
		return fmt.Sprintf("provider \"gpucluster\" {\n  catalog_files = [%q]\n}\n", p) + badBase
	}
	knownHosts := func(p string) string {
		return fmt.Sprintf("provider \"gpucluster\" {\n  ssh = {\n    user = \"root\"\n    known_hosts_file = %q\n  }\n}\n", p) + badBase
	}
	node := func(bmcBlock, users string) string {
		return "resource \"gpucluster_node\" \"n\" {\n  name = \"gpu001\"\n  rack = \"r01\"\n  position_u = 2\n  bmc = " + bmcBlock + "\n  bmc_users = " + users + "\n}\n"
	}
	kh := file("known_hosts", "")
	sm := func(extra string) string {
		return plain(t, "  # EXTRA\n", fmt.Sprintf("  subnet_manager = {\n    ssh_user = \"root\"\n    ssh_private_key = \"unused\"\n    known_hosts_file = %q\n%s\n  }\n", kh, extra))
	}
	return []badInput{
		// ---- item 1: a declared role is checked against the cabling ----
		{`leaf with endpoints declared role = "core"`, "plain", f, `switches["leaf01"].role`,
			`switch "leaf01" is declared role = "core" but 1 HCA(s) are cabled to it: a switch with endpoints is a leaf whatever its label. Set role = "leaf" or leave it unset`,
			plain(t, `role       = "leaf"`, `role       = "core"`)},
		{`leaf with endpoints declared role = "spine"`, "plain", f, `switches["leaf01"].role`,
			`switch "leaf01" is declared role = "spine" but 1 HCA(s) are cabled to it`,
			plain(t, `role       = "leaf"`, `role       = "spine"`)},

		// ---- item 2: every file a plan reads is capped, every rule budgeted ----
		{`policy_files = ["/dev/zero"]`, "plain", f, "policy_files",
			`"/dev/zero" holds more than 4 MiB, the most the provider reads from a file of this kind`, policyFiles("/dev/zero")},
		{"policy file of 1 TiB (sparse)", "plain", f, "policy_files",
			`"` + sparse + `" is 1024 GiB, more than 4 MiB, the most the provider reads from a file of this kind`, policyFiles(sparse)},
		{"rule with a 10^9-element for", "plain", f, "policy",
			fmt.Sprintf(`huge (%s:1): condition could not be evaluated: evaluation stopped because it visited more than %d elements (the budget of a rule)`, huge, policy.MaxRuleElements),
			strings.Replace(policyFiles(huge), "  policy_files", "  policy = { preset = \"inference\" }\n  policy_files", 1)},
		{`provider catalog_files = ["/dev/zero"]`, "provider", "provider", "catalog_files",
			`reading catalog file: "/dev/zero" holds more than 4 MiB, the most the provider reads from a file of this kind`, catalogFiles("/dev/zero")},
		{"provider catalog file of 1 TiB (sparse)", "provider", "provider", "catalog_files",
			`reading catalog file: "` + sparse + `" is 1024 GiB, more than 4 MiB`, catalogFiles(sparse)},
		{`provider ssh.known_hosts_file = "/dev/zero"`, "provider", "provider", "ssh.known_hosts_file",
			fmt.Sprintf(`known_hosts_file "/dev/zero" cannot be read: "/dev/zero" holds more than %s`, inputfile.Bytes(inputfile.MaxKnownHostsFile)), knownHosts("/dev/zero")},

		// ---- item 4: one SM host twice ----
		{`hosts = ["h", "h:22"]`, "plain", f, "subnet_manager.hosts[1]",
			`"h:22" is the same SSH endpoint as hosts[0] "h" (host h, port 22): the push would reach one OpenSM twice and count it as its own standby. List each subnet manager host once.`,
			sm(`    hosts = ["h", "h:22"]`)},
		{`port = 2222, hosts = ["sm01.example", "SM01.example.:2222"]`, "plain", f, "subnet_manager.hosts[1]",
			`"SM01.example.:2222" is the same SSH endpoint as hosts[0] "sm01.example" (host sm01.example, port 2222)`,
			sm("    port = 2222\n    hosts = [\"sm01.example\", \"SM01.example.:2222\"]")},
		{`hosts = ["::1", "[0:0::1]:22"]`, "plain", f, "subnet_manager.hosts[1]",
			`"[0:0::1]:22" is the same SSH endpoint as hosts[0] "::1" (host ::1, port 22)`,
			sm(`    hosts = ["::1", "[0:0::1]:22"]`)},

		// ---- item 5: silently wrong inputs ----
		{`"gpu001/mlx5_1" = { node = "gpu001", device = "mlx5_0" }`, "plain", f, `hcas["gpu001/mlx5_1"].device`,
			`HCA "gpu001/mlx5_1" is device mlx5_0 of node gpu001, which HCA "gpu001/mlx5_0" already is: one device is one HCA`,
			plain(t, `device    = "mlx5_1"`, `device    = "mlx5_0"`)},
		{"a map key naming another node than node", "plain", f, `hcas["gpu002/mlx5_1"].node`,
			`HCA "gpu002/mlx5_1" is named for node "gpu002", but its node is "gpu001": an HCA is named "<node>/<device>" (its map key, when it has no name). Set node = "gpu002", or key it "gpu001/mlx5_1"`,
			plain(t, `    "gpu001/mlx5_1" = {`, `    "gpu002/mlx5_1" = {`, `{ device = "gpu001/mlx5_1", port = 1 }`, `{ device = "gpu002/mlx5_1", port = 1 }`)},
		{"a switch and a node of one name", "plain", f, `nodes["gpu001"].name`,
			`node name "gpu001" is already the name of switch "gpu001"; switches and nodes share one namespace (Slurm's topology.conf, OpenSM's node descriptions): rename one of them`,
			plain(t, "  switches = {\n", "  switches = {\n    gpu001 = { rack = \"r01\", position_u = 30 }\n")},
		{`design plus an explicit leaf01 without its GUID`, "design", "gpucluster_fabric.g", `switches["leaf01"].guid`,
			`switch "leaf01" replaces the design's switch of that name, whose GUID 0x0002c90000100001 it does not carry`,
			"resource \"gpucluster_fabric\" \"g\" {\n  name = \"g\"\n  design = {\n    kind = \"fat-tree\"\n    node_count = 4\n  }\n  switches = { leaf01 = { role = \"leaf\" } }\n}\n"},

		// ---- item 5: numbers the schema cannot hold, ±Inf included ----
		{"power_kw = 1/0", "resource", "gpucluster_rack.r", "power_kw",
			`power_kw = +Inf is beyond the largest number the provider computes with (about ±1.8e308); give the value you mean, e.g. 1.0`,
			"resource \"gpucluster_rack\" \"r\" {\n  name = \"r01\"\n  row = 1\n  position = 1\n  power_kw = 1/0\n}\n"},
		{"power_kw = -1/0", "plain", f, `racks["r01"].power_kw`,
			`power_kw = -Inf is beyond the largest number the provider computes with (about ±1.8e308)`, plain(t, "power_kw = 40", "power_kw = -1/0")},
		{"port = 1/0", "plain", f, `cables["c1"].a.port`,
			`port must be a whole number from -9223372036854775808 to 9223372036854775807, got +Inf`, plain(t, `{ device = "leaf01", port = 1 }`, `{ device = "leaf01", port = 1/0 }`)},

		// ---- item 3: the provider's own BMC login ----
		{"bmc_users demotes bmc.username", "resource", "gpucluster_node.n", `bmc_users[0].role`,
			`"admin" is the account the provider logs in with to this BMC, and role "ReadOnly" would lock the provider out`,
			node(`{ endpoint = "10.0.0.5", username = "admin", password = "pw" }`, `[{ name = "admin", role = "ReadOnly", password = "x" }]`)},
		{"bmc_users disables the provider's default login", "resource", "gpucluster_node.n", `bmc_users[1].role`,
			`"ops" is the account the provider logs in with to this BMC, and role "None" (no access: the account disabled) would lock the provider out`,
			"provider \"gpucluster\" {\n  bmc = { username = \"ops\", password = \"pw\" }\n}\n" +
				node(`{ endpoint = "10.0.0.5" }`, `[{ name = "dev", role = "ReadOnly", password = "x" }, { name = "ops", role = "None", password = "x" }]`)},
	}
}

func TestAccHostileInputs(t *testing.T) {
	t.Parallel()
	rows := hostileInputs(t)
	t.Logf("| input | via | attribute | message |")
	t.Logf("|---|---|---|---|")
	for _, b := range rows {
		t.Logf("| %s | %s | `%s` | %s |", b.input, b.via, b.attr, strings.ReplaceAll(b.want, "|", `\|`))
	}
	steps := make([]resource.TestStep, 0, len(rows))
	for _, b := range rows {
		steps = append(steps, resource.TestStep{Config: b.config, PlanOnly: true, ExpectError: badInputPattern(b)})
	}
	resource.UnitTest(t, resource.TestCase{ProtoV6ProviderFactories: testProviders, Steps: steps})
}

// topology_file of gpucluster_discovered_fabric: /dev/zero and a sparse terabyte are refused with
// the path and the cap, on the attribute, in the data source's read at plan; so is /dev/zero as
// its node_name_map.
func TestAccDiscoveredTopologyFileCapped(t *testing.T) {
	t.Parallel()
	sparse := filepath.Join(t.TempDir(), "ibnetdiscover.out")
	if err := os.WriteFile(sparse, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(sparse, 1<<40); err != nil {
		t.Fatal(err)
	}
	var steps []resource.TestStep
	for p, want := range map[string]string{
		"/dev/zero": `"/dev/zero" holds more than 64 MiB, the most the provider reads from a file of this kind`,
		sparse:      `"` + sparse + `" is 1024 GiB, more than 64 MiB`,
	} {
		steps = append(steps, resource.TestStep{
			Config:      fmt.Sprintf("data \"gpucluster_discovered_fabric\" \"floor\" {\n  topology_file = %q\n}\n", p),
			PlanOnly:    true,
			ExpectError: regexp.MustCompile(`Error: Cannot read the topology file[\s│]+with data.gpucluster_discovered_fabric.floor,[^\n]*\n[│ ]*on [^\n]+ line \d+, in data "gpucluster_discovered_fabric" "floor":\n[│ ]*\d+:[ \t]*topology_file[^\n]*\n[\s│]*` + regexp.MustCompile(` +`).ReplaceAllString(regexp.QuoteMeta(want), `[\s│]+`)),
		})
	}
	// node_name_map, read with a topology file that reads well.
	topo := filepath.Join(moduleRoot(), "internal", "opensm", "testdata", "ibnetdiscover-2leaf.txt")
	steps = append(steps, resource.TestStep{
		Config:   fmt.Sprintf("data \"gpucluster_discovered_fabric\" \"floor\" {\n  topology_file = %q\n  node_name_map = \"/dev/zero\"\n}\n", topo),
		PlanOnly: true,
		ExpectError: regexp.MustCompile(`Error: Cannot read the node name map[\s│]+with data.gpucluster_discovered_fabric.floor,[^\n]*\n[│ ]*on [^\n]+ line \d+, in data "gpucluster_discovered_fabric" "floor":\n[│ ]*\d+:[ \t]*node_name_map[^\n]*\n[\s│]*` +
			regexp.MustCompile(` +`).ReplaceAllString(regexp.QuoteMeta(`"/dev/zero" holds more than 16 MiB, the most the provider reads from a file of this kind`), `[\s│]+`)),
	})
	resource.UnitTest(t, resource.TestCase{ProtoV6ProviderFactories: testProviders, Steps: steps})
}

// The gate of examples/ci (issue 22, item 1): at nodes = 3 and 16 uplinks its leaf is 1.5:1 and
// training-large refuses it. Declared role = "core" on the leaf and "spine" on the spine, the
// plan used to pass ("Links node-core", max_oversubscription 0); now the label is an error, so
// the plan fails as it does unlabelled.
func TestAccGateHoldsAgainstALabel(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(filepath.Join(moduleRoot(), "examples", "ci", "infra", "main.tf"))
	if err != nil {
		t.Fatal(err)
	}
	cfg := string(b)
	cfg = cfg[strings.Index(cfg, "variable \"nodes\""):] // the test harness installs the provider itself
	for _, r := range [][2]string{
		{"type    = number\n  default = 2\n", "type    = number\n  default = 3\n"},
		{`leaf01  = { name = "leaf01",`, `leaf01  = { name = "leaf01", role = "core",`},
		{`spine01 = { name = "spine01",`, `spine01 = { name = "spine01", role = "spine",`},
	} {
		if strings.Count(cfg, r[0]) != 1 {
			t.Fatalf("examples/ci/infra/main.tf holds %q %d times, want once", r[0], strings.Count(cfg, r[0]))
		}
		cfg = strings.Replace(cfg, r[0], r[1], 1)
	}
	words := func(s string) string {
		return regexp.MustCompile(` +`).ReplaceAllString(regexp.QuoteMeta(s), `[\s│]+`)
	}
	resource.UnitTest(t, resource.TestCase{ProtoV6ProviderFactories: testProviders, Steps: []resource.TestStep{
		{Config: cfg, PlanOnly: true, ExpectError: regexp.MustCompile(words(`switches["leaf01"].role: switch "leaf01" is declared role = "core" but 24 HCA(s) are cabled to it`))},
	}})
}

// root_name of gpucluster_scheduler_topology with a line break (issue 22, item 5) used to be
// written into topology.conf as a line of its own; it is refused on the attribute.
func TestAccSchedulerRootNameLineBreak(t *testing.T) {
	t.Parallel()
	resource.UnitTest(t, resource.TestCase{ProtoV6ProviderFactories: testProviders, Steps: []resource.TestStep{{
		Config:   "data \"gpucluster_scheduler_topology\" \"s\" {\n  root_name = \"top\\nSwitchName=evil Nodes=ALL\"\n}\n",
		PlanOnly: true,
		ExpectError: regexp.MustCompile(`Error: Invalid root_name[\s│]+with data.gpucluster_scheduler_topology.s,[^\n]*\n[│ ]*on [^\n]+ line \d+, in data "gpucluster_scheduler_topology" "s":\n[│ ]*\d+:[ \t]*root_name[^\n]*\n[\s│]*` +
			regexp.MustCompile(` +`).ReplaceAllString(regexp.QuoteMeta(`"top\nSwitchName=evil Nodes=ALL" cannot be a switch name in topology.conf: it contains a line break or another control character`), `[\s│]+`)),
	}}})
}

// workload.parameters = 1e308 (issue 22, item 5): the gradient's bytes overflow a float64, and
// the estimate used to be null without a word; the plan is refused on the fabric, saying why.
// (The provider reports workload errors on workload.parameters, which Terraform shows as the
// resource.)
func TestAccWorkloadPastFloatRange(t *testing.T) {
	t.Parallel()
	resource.UnitTest(t, resource.TestCase{ProtoV6ProviderFactories: testProviders, Steps: []resource.TestStep{{
		Config:   plain(t, "  # EXTRA\n", "  workload = { parameters = 1e308 }\n"),
		PlanOnly: true,
		ExpectError: regexp.MustCompile(`Error: [^\n]+[\s│]+with gpucluster_fabric.f,[\s\S]*` +
			regexp.MustCompile(` +`).ReplaceAllString(regexp.QuoteMeta(`1e+308 parameters of 2 gradient bytes each are more bytes than the provider computes with (about 1.8e308), so no all-reduce time can be estimated`), `[\s│]+`)),
	}}})
}
