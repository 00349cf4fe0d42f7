package opensm

import "testing"

func TestExpectFor(t *testing.T) {
	c := Config{RoutingEngine: "ftree,updn", Roots: []GUID{0x0002c90300001001, 0x0002c90300001002}}
	if e := ExpectFor(c); e.Engine != "ftree" || e.Roots != 2 || !e.AllowErrors {
		t.Errorf("ExpectFor = %+v", e)
	}
	if e := ExpectFor(Config{Roots: c.Roots}); e.Engine != "minhop" || e.Roots != 0 {
		t.Errorf("without routing_engine: %+v", e)
	}
	if e := ExpectFor(Config{RoutingEngine: "updn", Roots: c.Roots}); e.Engine != "updn" || e.Roots != 0 {
		t.Errorf("updn counts no ftree roots: %+v", e)
	}
}

// The verification after a push expects the flavour's engine: the first one listed, or the
// flavour's own default when opensm.conf names none (NVIDIA SM: ar_updn, MLNXSM 5.10).
func TestExpectForFlavor(t *testing.T) {
	for _, tc := range []struct {
		flavor Flavor
		engine string
		want   string
	}{
		{FlavorNVIDIA, "ar_ftree,ar_updn", "ar_ftree"},
		{FlavorNVIDIA, "", "ar_updn"},
		{FlavorOpenSM, "", "minhop"},
		{FlavorOpenSM, "updn", "updn"},
	} {
		c := Config{Flavor: tc.flavor, RoutingEngine: tc.engine}
		if _, err := Render(c); err != nil {
			t.Fatal(err)
		}
		if e := ExpectFor(c); e.Engine != tc.want || e.Roots != 0 {
			t.Errorf("%s %q: expect %+v, want engine %s", tc.flavor, tc.engine, e, tc.want)
		}
	}
}
