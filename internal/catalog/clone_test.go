package catalog

import (
	"reflect"
	"testing"
)

// The built-in catalog is parsed once and every Load gets a deep copy: a catalog changed by its
// caller (every price, every cable length) leaves the next Default equal to a fresh parse of the
// embedded file.
func TestLoadGivesIndependentCopies(t *testing.T) {
	fresh := &Catalog{Switches: map[string]SwitchModel{}, HCAs: map[string]HCAModel{}, Nodes: map[string]NodeModel{}, Cables: map[string]Cable{}, Transceivers: map[string]Transceiver{}}
	if err := fresh.merge("builtin catalog.hcl", builtin); err != nil {
		t.Fatal(err)
	}
	c := Default()
	if !reflect.DeepEqual(c, fresh) {
		t.Fatal("Default differs from a fresh parse")
	}
	prices := 0
	for k, v := range c.Switches {
		if v.Price != nil {
			v.Price.USD, prices = -1, prices+1
		}
		v.Ports = -1
		c.Switches[k] = v
	}
	for _, v := range c.Nodes {
		if v.Price != nil {
			v.Price.USD, prices = -1, prices+1
		}
	}
	for _, v := range c.Cables {
		if v.Price != nil {
			v.Price.USD, prices = -1, prices+1
		}
		for i := range v.LengthsM {
			v.LengthsM[i] = -1
		}
	}
	for _, v := range c.Transceivers {
		if v.Price != nil {
			v.Price.USD, prices = -1, prices+1
		}
	}
	for _, v := range c.HCAs {
		if v.Price != nil {
			v.Price.USD, prices = -1, prices+1
		}
	}
	delete(c.Cables, "nonexistent")
	c.Nodes["extra"] = NodeModel{Name: "extra"}
	if prices == 0 {
		t.Fatal("the built-in catalog has no price to change: the test changes nothing")
	}
	if again := Default(); !reflect.DeepEqual(again, fresh) {
		t.Fatal("a change to one Default reached the next")
	}
}
