package provider

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

// emptyPathInputs: every argument that names a local file the plan reads, set to "". os.Open("")
// fails with "open : no such file or directory", which names neither the argument nor what it
// takes; each row wants the refusal on the argument, at plan, saying what to give instead. The
// layout is the bad-input table's (bad_inputs_test.go).
func emptyPathInputs(t *testing.T) []badInput {
	const f = "gpucluster_fabric.f"
	topo := filepath.Join(moduleRoot(), "internal", "opensm", "testdata", "ibnetdiscover-2leaf.txt")
	discovered := func(body string) string {
		return "data \"gpucluster_discovered_fabric\" \"floor\" {\n" + body + "\n}\n"
	}
	const ds = "data.gpucluster_discovered_fabric.floor"
	provider := func(body string) string {
		return "provider \"gpucluster\" {\n" + body + "\n}\n" + badBase
	}
	const useProviders = `or leave known_hosts_file unset to use the provider's ssh.known_hosts_file`
	return []badInput{
		{`topology_file = ""`, "data source", ds, "topology_file",
			`"" names no file: give the path of a file of ibnetdiscover output, or leave topology_file unset to run ibnetdiscover over SSH on host`,
			discovered(`  topology_file = ""`)},
		{`node_name_map = ""`, "data source", ds, "node_name_map",
			`"" names no file: give the path of an OpenSM node name map, or leave node_name_map unset to name devices by their node descriptions`,
			discovered(fmt.Sprintf("  topology_file = %q\n  node_name_map = \"\"", topo))},
		{`known_hosts_file = ""`, "data source", ds, "known_hosts_file",
			`"" names no file: give the path of an OpenSSH known_hosts file, ` + useProviders,
			discovered("  host = \"127.0.0.1\"\n  known_hosts_file = \"\"")},
		{`policy_files = ["rules.hcl", ""]`, "plain", f, "policy_files",
			`policy_files[1]: "" names no file: give the path of an HCL file of rule blocks, or remove the entry`,
			plain(t, "  # EXTRA\n", "  policy_files = [\"rules.hcl\", \"\"]\n")},
		{`subnet_manager.known_hosts_file = ""`, "plain", f, "subnet_manager.known_hosts_file",
			`"" names no file: give the path of an OpenSSH known_hosts file, ` + useProviders,
			plain(t, "  # EXTRA\n", "  subnet_manager = {\n    hosts = [\"sm01.example\"]\n    known_hosts_file = \"\"\n  }\n")},
		{`HCA ssh.known_hosts_file = ""`, "resource", "gpucluster_hca.h", "ssh.known_hosts_file",
			`"" names no file: give the path of an OpenSSH known_hosts file, ` + useProviders,
			"resource \"gpucluster_hca\" \"h\" {\n  node = \"gpu001\"\n  device = \"mlx5_0\"\n  port_guid = \"0x0002c90300010000\"\n  ssh = { known_hosts_file = \"\" }\n}\n"},
		{`catalog_files = [""]`, "provider", "provider", "catalog_files",
			`catalog_files[0]: "" names no file: give the path of an HCL catalog file, or remove the entry`,
			provider(`  catalog_files = [""]`)},
		{`ssh.known_hosts_file = ""`, "provider", "provider", "ssh.known_hosts_file",
			`"" names no file: give the path of an OpenSSH known_hosts file, or leave known_hosts_file unset and give it where each host is named`,
			provider("  ssh = {\n    user = \"root\"\n    known_hosts_file = \"\"\n  }")},
		{`floor.topology_file = ""`, "provider", "provider", "floor.topology_file",
			`"" names no file: give the path of a file of ibnetdiscover output, or leave topology_file unset and give host to run ibnetdiscover there over SSH`,
			provider(`  floor = { topology_file = "" }`)},
		{`floor.node_name_map = ""`, "provider", "provider", "floor.node_name_map",
			`"" names no file: give the path of an OpenSM node name map, or leave node_name_map unset to name devices by their node descriptions`,
			provider(fmt.Sprintf("  floor = {\n    topology_file = %q\n    node_name_map = \"\"\n  }", topo))},
	}
}

func TestAccEmptyFilePaths(t *testing.T) {
	t.Parallel()
	for _, b := range emptyPathInputs(t) {
		t.Run(b.input, func(t *testing.T) {
			t.Parallel()
			resource.UnitTest(t, resource.TestCase{ProtoV6ProviderFactories: testProviders, Steps: []resource.TestStep{
				{Config: b.config, PlanOnly: true, ExpectError: badInputPattern(b)},
			}})
		})
	}
}

// topology_file from another resource is unknown when Terraform validates the configuration
// and while it plans: the validator lets it pass, and checks the value once it is known (the
// read at apply), refusing "" there and reading a real file.
func TestAccDiscoveredTopologyFileUnknown(t *testing.T) {
	t.Parallel()
	topo := filepath.Join(moduleRoot(), "internal", "opensm", "testdata", "ibnetdiscover-2leaf.txt")
	text, err := os.ReadFile(topo)
	if err != nil {
		t.Fatal(err)
	}
	switches := int64(len(regexp.MustCompile(`(?m)^Switch\t`).FindAll(text, -1))) // what ibnetdiscover printed
	cfg := func(p string) string {
		return fmt.Sprintf("resource \"terraform_data\" \"path\" {\n  input = %q\n}\n", p) +
			"data \"gpucluster_discovered_fabric\" \"floor\" {\n  topology_file = terraform_data.path.output\n}\n"
	}
	want := regexp.MustCompile(`Error: Empty file path[\s│]+with data.gpucluster_discovered_fabric.floor,[\s\S]*` +
		regexp.MustCompile(` +`).ReplaceAllString(regexp.QuoteMeta(`"" names no file: give the path of a file of ibnetdiscover output`), `[\s│]+`))
	resource.UnitTest(t, resource.TestCase{ProtoV6ProviderFactories: testProviders, Steps: []resource.TestStep{
		{Config: cfg(topo), ConfigStateChecks: []statecheck.StateCheck{
			statecheck.ExpectKnownValue("data.gpucluster_discovered_fabric.floor", tfjsonpath.New("counts").AtMapKey("switches"), knownvalue.Int64Exact(switches)),
		}},
		{Config: cfg(""), ExpectError: want},
	}})
}

// The validator itself: unknown and null pass (they are checked when known, or not read), any
// non-empty string passes (whether the file exists is the reader's to say, on the machine that
// plans), "" is refused once on the attribute's path.
func TestFilePathValidator(t *testing.T) {
	v := filePathValidator("a file of ibnetdiscover output", "leave topology_file unset to run ibnetdiscover over SSH on host")
	for _, tc := range []struct {
		name  string
		value types.String
		errs  int
	}{
		{"unknown", types.StringUnknown(), 0},
		{"null", types.StringNull(), 0},
		{"a path", types.StringValue("floor/ibnetdiscover.out"), 0},
		{"a path that does not exist", types.StringValue("/nonexistent/ibnetdiscover.out"), 0},
		{"empty", types.StringValue(""), 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var resp validator.StringResponse
			v.ValidateString(context.Background(), validator.StringRequest{Path: path.Root("topology_file"), ConfigValue: tc.value}, &resp)
			if got := resp.Diagnostics.ErrorsCount(); got != tc.errs {
				t.Fatalf("%d errors, want %d: %v", got, tc.errs, resp.Diagnostics)
			}
			if tc.errs > 0 {
				d := resp.Diagnostics.Errors()[0]
				if !strings.Contains(d.Detail(), "ibnetdiscover output") {
					t.Errorf("detail %q does not say what to give", d.Detail())
				}
			}
		})
	}
}
