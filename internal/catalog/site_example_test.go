package catalog

import "testing"

// The site catalog the provider docs show (examples/provider/catalog/site.hcl) loads over the
// built-in one: the QM9700 takes the site's price and source whole, and the 4-HCA HGX is a new
// node model with one single-port HCA per GPU pair.
func TestSiteCatalogExample(t *testing.T) {
	c, err := Load("../../examples/provider/catalog/site.hcl")
	if err != nil {
		t.Fatal(err)
	}
	sw := c.Switches["QM9700"]
	if sw.Ports != 64 || sw.Cages != 32 || sw.Price == nil || sw.Price.USD != 61000 || sw.Price.Source != "PO 2026-114" {
		t.Errorf("QM9700 = %+v (price %+v), want 64 ports on 32 cages at the site's $61,000 from PO 2026-114", sw, sw.Price)
	}
	n, ok := c.Nodes["HGX-H100-4HCA"]
	if !ok {
		t.Fatalf("HGX-H100-4HCA missing; nodes: %v", c.NodeNames())
	}
	if n.GPUs != 8 || n.ComputeHCAs != 4 || c.HCAs[n.HCAModel].Ports != 1 || n.TwinPortCages {
		t.Errorf("HGX-H100-4HCA = %+v, want 8 GPUs on 4 single-port compute HCAs", n)
	}
	if _, ok := c.Nodes["DGX-H100"]; !ok {
		t.Error("the built-in DGX-H100 must stay: a site file adds to the catalog")
	}
}
