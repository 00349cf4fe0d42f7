package provider

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	fwresource "github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalogdoc"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/testrig"
)

// builtinSwitches, builtinNodes and builtinHCAs are how an unknown-model error lists the built-in
// catalog's models ("QM9700", "QM9790"), taken from the catalog: a model added there changes no
// test.
func builtinSwitches() string { return quotedList(catalog.Default().SwitchNames()) }
func builtinNodes() string    { return quotedList(catalog.Default().NodeNames()) }
func builtinHCAs() string     { return quotedList(catalog.Default().HCANames()) }

func quotedList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(n)
	}
	return strings.Join(q, ", ")
}

// xdrCatalog is a switch model the built-in catalog does not have, a 144-port XDR (800 Gb/s)
// switch, with an 800 Gb/s node to cable to it: what a site adds with catalog_files, and what
// adding the model to catalog.hcl amounts to.
const xdrCatalog = `
switch_model "XDR-144" {
  description    = "a 144-port XDR InfiniBand switch (72 twin-port OSFP cages), as a test catalog declares it"
  sku            = "TEST-XDR-144"
  ports          = 144
  cages          = 72
  port_rate_gbps = 800
  units          = 4
  managed        = true
  price          = 100000
  price_source   = "test catalog"
}

hca_model "CX-XDR" {
  ports          = 1
  port_rate_gbps = 800
  form_factor    = "osfp"
}

node_model "XDR-8" {
  sku          = "TEST-XDR-NODE"
  units        = 10
  gpus         = 8
  compute_hcas = 8
  hca_model    = "CX-XDR"
}
`

// TestAccNewSwitchModelFromCatalog plans a fabric of a switch model that only a catalog file
// declares, through the real paths: the generator sizes the tree from the model's 144 ports,
// the fabric builds and is analysed at 800 Gb/s, the BOM counts and prices the model by its SKU,
// the OpenSM files render (its 800 Gb/s links as ibsim's 4xHDR stand-in), and a partition at
// 800 Gb/s, a rate no subnet manager the provider writes for knows, is refused at plan on its
// rate. Nothing but the catalog file names the model.
func TestAccNewSwitchModelFromCatalog(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "xdr.hcl")
	if err := os.WriteFile(file, []byte(xdrCatalog), 0o600); err != nil {
		t.Fatal(err)
	}
	config := func(rate int) string {
		return `provider "gpucluster" {
  catalog_files = ["` + filepath.ToSlash(file) + `"]
}

data "gpucluster_topology" "pod" {
  kind         = "fat-tree"
  node_count   = 36
  switch_model = "XDR-144"
  node_model   = "XDR-8"
  items        = []
}

locals {
  partitions = {
    compute = { name = "compute", pkey = "0x0001", ipoib = true, rate = ` + strconv.Itoa(rate) + `, members = [{ guid = "ALL_CAS" }] }
  }
}

resource "gpucluster_fabric" "f" {
  name       = "xdr"
  design     = data.gpucluster_topology.pod.design
  partitions = local.partitions
}

data "gpucluster_opensm_files" "f" {
  design     = data.gpucluster_topology.pod.design
  partitions = local.partitions
}
`
	}
	const f = "gpucluster_fabric.f"
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{
			{
				Config:      config(800),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`partitions\["compute"\]\.rate: rate 800 Gb/s \(path-rate code 23, IBTA vol\. 1`),
			},
			{
				Config: config(400),
				Check: resource.ComposeAggregateTestCheckFunc(
					// 36 nodes x 8 HCAs on leaves of 72 down and 72 up ports: 4 leaves, 2 spines.
					resource.TestCheckResourceAttr(f, "analysis.endpoints", "288"),
					resource.TestCheckResourceAttr(f, "analysis.switches", "6"),
					resource.TestCheckResourceAttr(f, "analysis.full_bisection_gbps", "115200"),
					resource.TestCheckResourceAttr(f, "analysis.bisection_ratio", "1"),
					resource.TestCheckResourceAttr(f, "bom.items.TEST-XDR-144.quantity", "6"),
					resource.TestCheckResourceAttr(f, "bom.items.TEST-XDR-144.cost", "600000"),
					resource.TestCheckResourceAttr(f, "bom.items.TEST-XDR-NODE.quantity", "36"),
					resource.TestMatchResourceAttr("data.gpucluster_opensm_files.f", "files.partitions.conf", regexp.MustCompile(`compute=0x0001,ipoib,rate=21 :`)),
					resource.TestMatchResourceAttr("data.gpucluster_opensm_files.f", "expected_topology", regexp.MustCompile(`(?m)^\[1\]\s.*4xHDR`)),
				),
			},
		},
	})
}

// TestDescriptionsFollowTheCatalog: the schema descriptions that name models, ports and speeds
// are written from the catalog, so a catalog with the XDR switch and node added (what adding
// them to catalog.hcl amounts to) lists them and nothing else needs an edit; the built-in
// catalog's fragments are in the schema as the documentation shows it.
func TestDescriptionsFollowTheCatalog(t *testing.T) {
	cat := testrig.Catalog(t, "xdr.hcl", xdrCatalog)
	with := catalogdoc.Of(cat)
	for got, want := range map[string]string{
		with.SwitchModels(): "`QM9700`, `QM9790`, `XDR-144`",
		with.NodeModels():   "`DGX-H100`, `HGX-H100`, `XDR-8`",
		with.HCAModels():    "`CX-XDR`, `ConnectX-7-OSFP`, `ConnectX-7-QSFP112`",
		// the defaults stay the defaults
		with.SwitchPorts():     "64 for a QM9700: 32 cages of 2 ports",
		with.SwitchPortRange(): "1-64 on a QM9700 (2 per cage)",
		with.LinkRate():        "400G",
		with.Bundle():          "2 × 400G = 800 Gb/s",
		with.SimSpeed():        "400G links are written as `4xHDR` (for `4xNDR`)",
		with.ComputeHCAs():     "8 for a DGX-H100: one ConnectX-7-OSFP per GPU",
		with.HCAPorts():        "1 on the DGX-H100's ConnectX-7-OSFP",
	} {
		if got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	}
	var resp fwresource.SchemaResponse
	newSwitchResource().Schema(context.Background(), fwresource.SchemaRequest{}, &resp)
	if d := resp.Schema.Attributes["model"].GetMarkdownDescription(); !strings.Contains(d, docText().SwitchModels()) {
		t.Errorf("the switch's model description does not list the catalog's models: %s", d)
	}
}
