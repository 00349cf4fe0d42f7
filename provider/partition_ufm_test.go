package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/go-version"
	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/partition"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/testrig"
)

// ufmImportRig starts the UFM test service holding three PKeys besides the management 0x7fff
// (given a member here, so that leaving it out of the list is a decision, not an empty answer):
// one with a valid name, one whose name has a space (listed as pkey_0x0151) and one under UFM's
// pre-6.22 API name.
// identityVersion is the first Terraform with resource identity (import blocks with identity).
var identityVersion = version.Must(version.NewVersion("1.12.0"))

func ufmImportRig(t *testing.T) (*testrig.UFM, string) {
	u := testrig.StartUFM(t, testrig.UFMOptions{})
	caFile := filepath.Join(t.TempDir(), "ufm-ca.pem")
	if err := os.WriteFile(caFile, []byte(u.CAPEM), 0o600); err != nil {
		t.Fatal(err)
	}
	u.SetPKey(0x7fff, testrig.UFMPKey{Name: "management", IPoIB: true, MTULimit: 2, RateLimit: 2.5,
		GUIDs: []testrig.UFMGUID{{GUID: ufmHCAGUID(63), Membership: "full"}}})
	u.SetPKey(0x0150, testrig.UFMPKey{Name: "tenant_a", IPoIB: true, MTULimit: 4, RateLimit: 200, ServiceLevel: 1,
		GUIDs: []testrig.UFMGUID{{GUID: ufmHCAGUID(1), Membership: "limited"}, {GUID: ufmHCAGUID(0), Membership: "full"}}})
	u.SetPKey(0x0151, testrig.UFMPKey{Name: "storage net", MTULimit: 2, RateLimit: 2.5,
		GUIDs: []testrig.UFMGUID{{GUID: ufmHCAGUID(8), Membership: "full"}}})
	u.SetPKey(0x0152, testrig.UFMPKey{Name: "api_pkey_0x152", IPoIB: true, MTULimit: 2, RateLimit: 2.5,
		GUIDs: []testrig.UFMGUID{{GUID: ufmHCAGUID(16), Membership: "limited"}, {GUID: ufmHCAGUID(17), Membership: "limited"}}})
	return u, caFile
}

// flatText is terraform's output with its box lines gone and every run of spaces and line breaks
// one space, so that a message wrapped at any width still reads as one line.
func flatText(out string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(out, "│", "")), " ")
}

func ufmProviderHCL(u *testrig.UFM, caFile string) string {
	return fmt.Sprintf(`
provider "gpucluster" {
  ufm = { url = %q, username = %q, password = %q, ca_file = %q }
}
`, u.URL, u.Username, u.Password, caFile)
}

// tenantHCL is gpucluster_partition.t as UFM holds P_Key 0x0150 (written from the rig's seed,
// not from the provider), with the name and the second member's membership given.
func tenantHCL(name, membership string) string { return tenantSLHCL(name, membership, 1) }

// tenantSLHCL is tenantHCL at service level sl.
func tenantSLHCL(name, membership string, sl int) string {
	return fmt.Sprintf(`
resource "gpucluster_partition" "t" {
  name    = %q
  pkey    = "0x0150"
  ipoib   = true
  mtu     = 4096
  rate    = 200
  sl      = %d
  members = [{ guid = %q }, { guid = %q, membership = %q }]
}
`, name, sl, simHCAGUID(0), simHCAGUID(1), membership)
}

// TestAccPartitionImportUFM imports UFM's PKeys into gpucluster_partition with the real
// terraform: by ID (NAME,ufm=PKEY) and by identity, with a configuration that says what UFM
// holds (no change) and one that does not (the difference shown), and refuses bad IDs saying what
// a right one is.
func TestAccPartitionImportUFM(t *testing.T) {
	requireAcc(t)
	requireTerraform(t, identityVersion, "import by identity")
	u, caFile := ufmImportRig(t)
	c := newTerraformCLI(t)
	prov := ufmProviderHCL(u, caFile)
	plan := func(hcl string) (string, error) {
		return c.try(writeConfig(t, prov+hcl), "plan", "-input=false", "-no-color")
	}
	expect := func(what, hcl string, wants ...string) string {
		t.Helper()
		out, err := plan(hcl)
		if err != nil {
			t.Fatalf("%s: plan failed: %v\n%s", what, err, out)
		}
		flat := flatText(out)
		for _, w := range wants {
			if !strings.Contains(flat, w) {
				t.Errorf("%s: the plan lacks %q:\n%s", what, w, out)
			}
		}
		return out
	}
	byID := `
import {
  to = gpucluster_partition.t
  id = "tenant,ufm=0x0150"
}
`
	expect("by ID, matching", tenantHCL("tenant", "limited")+byID, "Plan: 1 to import, 0 to add, 0 to change, 0 to destroy.")
	expect("by ID, drifted", tenantHCL("tenant", "full")+byID, "Plan: 1 to import, 0 to add, 1 to change, 0 to destroy.",
		`~ membership = "limited" -> "full"`)
	byIdentity := `
import {
  to       = gpucluster_partition.t
  identity = { name = "tenant_a" }
}
`
	expect("by identity, matching", tenantHCL("tenant_a", "limited")+byIdentity, "Plan: 1 to import, 0 to add, 0 to change, 0 to destroy.")
	expect("by identity, drifted", tenantHCL("tenant_a", "full")+byIdentity, "Plan: 1 to import, 0 to add, 1 to change, 0 to destroy.")
	// A name UFM does not list: the name alone, as for an OpenSM partition, and a warning.
	expect("by identity, unknown name", tenantHCL("nosuch", "limited")+strings.Replace(byIdentity, "tenant_a", "nosuch", 1),
		"No PKey of that name on UFM", "0x0150 (tenant_a), 0x0151 (pkey_0x0151), 0x0152 (api_pkey_0x152)")

	for id, want := range map[string]string{
		// a bare P_Key: both right forms are shown
		"0x0150":            `needs pkey and members: NAME,pkey=0x....,members=MEMBER[=full|limited];...[,ipoib=true][,mtu=4096][,rate=400][,sl=N]; or, where UFM runs the subnet manager, NAME,ufm=0x0101`,
		"tenant,ufm=0x7fff": `ufm=0x7fff is out of range: P_Keys are 0x0001-0x7ffe (0x7fff is UFM's management PKey, never imported`,
		"tenant,ufm=0x0999": `UFM holds no P_Key 0x0999. It holds: 0x0150 (tenant_a), 0x0151 (pkey_0x0151), 0x0152 (api_pkey_0x152).`,
	} {
		out, err := plan(tenantHCL("tenant", "limited") + strings.Replace(byID, "tenant,ufm=0x0150", id, 1))
		if err == nil {
			t.Errorf("import ID %q: the plan passed:\n%s", id, out)
			continue
		}
		if !strings.Contains(flatText(out), want) {
			t.Errorf("import ID %q: the error lacks %q:\n%s", id, want, out)
		}
	}
	for _, r := range u.Requests() {
		if !strings.HasPrefix(r, "GET ") {
			t.Errorf("an import wrote to UFM: %s", r)
		}
	}
}

// TestAccPartitionQueryUFM lists UFM's PKeys with the real `terraform query`: the three PKeys
// the rig holds besides 0x7fff, under the names the list gives; -generate-config-out writes a
// resource and an import by identity for each, and the plan of that imports all three and
// changes nothing.
func TestAccPartitionQueryUFM(t *testing.T) {
	requireAcc(t)
	requireTerraform(t, actionsVersion, "terraform query")
	u, caFile := ufmImportRig(t)
	c := newTerraformCLI(t)
	dir := writeConfig(t, ufmProviderHCL(u, caFile))
	q := "list \"gpucluster_partition\" \"ufm\" {\n  provider         = gpucluster\n  include_resource = true\n}\n"
	if err := os.WriteFile(filepath.Join(dir, "ufm.tfquery.hcl"), []byte(q), 0o644); err != nil {
		t.Fatal(err)
	}
	out := c.run(dir, "query", "-no-color")
	for _, want := range []string{"tenant_a (P_Key 0x0150)", "pkey_0x0151 (P_Key 0x0151)", "api_pkey_0x152 (P_Key 0x0152)"} {
		if !strings.Contains(out, want) {
			t.Errorf("query lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "7fff") || strings.Contains(out, "management") {
		t.Errorf("query lists the management PKey:\n%s", out)
	}
	out = c.run(dir, "query", "-no-color", "-generate-config-out=adopted.tf")
	b, err := os.ReadFile(filepath.Join(dir, "adopted.tf"))
	if err != nil {
		t.Fatalf("no adopted.tf: %v\n%s", err, out)
	}
	adopted := string(b)
	if n := strings.Count(adopted, `resource "gpucluster_partition" `); n != 3 {
		t.Errorf("adopted.tf holds %d partitions, UFM 3 besides 0x7fff:\n%s", n, adopted)
	}
	if n := len(regexp.MustCompile(`identity\s*=\s*\{`).FindAllString(adopted, -1)); n != 3 {
		t.Errorf("adopted.tf holds %d imports by identity, want 3:\n%s", n, adopted)
	}
	for _, want := range []string{`"tenant_a"`, `"pkey_0x0151"`, `"api_pkey_0x152"`, `"0x0152"`, simHCAGUID(17)} {
		if !strings.Contains(adopted, want) {
			t.Errorf("adopted.tf lacks %s:\n%s", want, adopted)
		}
	}
	plan := c.run(dir, "plan", "-input=false", "-no-color")
	if want := "Plan: 3 to import, 0 to add, 0 to change, 0 to destroy."; !strings.Contains(plan, want) {
		t.Errorf("the plan of the generated configuration does not say %q:\n%s", want, plan)
	}
}

// TestAccPartitionAdoptUFM brings an existing PKey under a UFM fabric's management: imported by
// ID and listed in the fabric's partitions, the apply writes nothing to UFM (it holds what is
// declared), the next plan is empty, a GUID removed behind Terraform's back shows as drift and is
// put back, and destroy removes the adopted PKey (the fabric owns it now) and nothing else.
func TestAccPartitionAdoptUFM(t *testing.T) {
	requireAcc(t)
	u, caFile := ufmImportRig(t) // import blocks by ID: any Terraform 1.5+ and OpenTofu
	// At SL 0: the fabric still checks a partition's SL against OpenSM's qos option in UFM mode
	// (internal/opensm partitions.go), which UFM does not need.
	u.SetPKey(0x0150, testrig.UFMPKey{Name: "tenant_a", IPoIB: true, MTULimit: 4, RateLimit: 200,
		GUIDs: []testrig.UFMGUID{{GUID: ufmHCAGUID(1), Membership: "limited"}, {GUID: ufmHCAGUID(0), Membership: "full"}}})
	c := newTerraformCLI(t)
	dir := writeConfig(t, ufmProviderHCL(u, caFile)+simFabricHCL()+tenantSLHCL("tenant", "limited", 0)+`
import {
  to = gpucluster_partition.t
  id = "tenant,ufm=0x0150"
}

resource "gpucluster_fabric" "f" {
  name           = "sim"
  switches       = local.switches
  nodes          = local.nodes
  hcas           = local.hcas
  cables         = local.cables
  partitions     = { tenant = gpucluster_partition.t }
  subnet_manager = { kind = "ufm" }
}
`)
	out := c.run(dir, "plan", "-input=false", "-no-color")
	if want := "Plan: 1 to import, 1 to add, 0 to change, 0 to destroy."; !strings.Contains(out, want) {
		t.Errorf("the first plan does not say %q:\n%s", want, out)
	}
	c.run(dir, "apply", "-input=false", "-no-color", "-auto-approve")
	for _, r := range u.Requests() {
		if !strings.HasPrefix(r, "GET ") {
			t.Errorf("the apply wrote to UFM, which held what was declared: %s", r)
		}
	}
	if _, err := c.try(dir, "plan", "-input=false", "-no-color", "-detailed-exitcode"); err != nil {
		out, _ := c.try(dir, "plan", "-input=false", "-no-color")
		t.Errorf("the plan after the import is not empty: %v\n%s", err, out)
	}
	u.RemoveGUID(0x0150, ufmHCAGUID(1))
	out = c.run(dir, "plan", "-input=false", "-no-color")
	if want := "Plan: 0 to add, 1 to change, 0 to destroy."; !strings.Contains(out, want) {
		t.Errorf("a GUID removed behind Terraform's back: the plan does not say %q:\n%s", want, out)
	}
	c.run(dir, "apply", "-input=false", "-no-color", "-auto-approve")
	c.run(dir, "destroy", "-input=false", "-no-color", "-auto-approve")
	if err := ufmHolds(u, map[uint16][]string{
		0x7fff: {ufmHCAGUID(63) + ":full"},
		0x0151: {ufmHCAGUID(8) + ":full"},
		0x0152: {ufmHCAGUID(16) + ":limited", ufmHCAGUID(17) + ":limited"},
	}); err != nil {
		t.Errorf("after destroy: %v", err)
	}
}

// TestUFMPartitionModel: what an import cannot say is refused or warned about, by name.
func TestUFMPartitionModel(t *testing.T) {
	g, err := partition.ParseGUID(simHCAGUID(3))
	if err != nil {
		t.Fatal(err)
	}
	p := partition.Partition{Name: "x", PKey: 0x0150, IPoIB: true, Index0: true, MTU: 4096, RateGbps: 7, SL: 2,
		Members: []partition.Member{{GUID: g, Membership: partition.Limited}}}
	var diags diag.Diagnostics
	m := ufmPartitionModel("tenant", p, &diags)
	if diags.ErrorsCount() != 1 || !strings.Contains(diags.Errors()[0].Detail(), "rate_limit 7 Gb/s") {
		t.Errorf("rate 7: %v", diags)
	}
	if diags.WarningsCount() != 1 || !strings.Contains(diags.Warnings()[0].Detail(), "index0 = true") {
		t.Errorf("index0: %v", diags)
	}
	if m.PKey.ValueString() != "0x0150" || m.MTU.ValueInt64() != 4096 || !m.Rate.IsNull() || m.SL.ValueInt64() != 2 || m.Name.ValueString() != "tenant" {
		t.Errorf("model %+v", m)
	}
	el := m.Members.Elements()
	if len(el) != 1 || !strings.Contains(el[0].String(), `"guid":"`+simHCAGUID(3)+`"`) || !strings.Contains(el[0].String(), `"membership":"limited"`) {
		t.Errorf("members %v", el)
	}
	p.RateGbps, p.Index0 = 200, false
	diags = nil
	if m = ufmPartitionModel("tenant", p, &diags); diags.HasError() || diags.WarningsCount() != 0 || m.Rate.ValueInt64() != 200 {
		t.Errorf("rate 200: %v %v", m.Rate, diags)
	}
}
