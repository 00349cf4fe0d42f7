package ufm

import (
	"testing"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/partition"
)

// TestImportNames: the names are written out by hand for each case the rule distinguishes.
func TestImportNames(t *testing.T) {
	held := []partition.Partition{
		{PKey: 0x0101, Name: "tenant_a"},       // valid, unique: kept
		{PKey: 0x0102, Name: "api_pkey_0x102"}, // UFM's pre-6.22 name: valid, kept
		{PKey: 0x0103, Name: "storage net"},    // a space: invalid
		{PKey: 0x0104, Name: "dup"},            // shared by two PKeys: neither keeps it
		{PKey: 0x0105, Name: "dup"},
		{PKey: 0x0106, Name: "pkey_0x0107"}, // another key's fallback: not taken
		{PKey: 0x0107, Name: ""},            // no name
		{PKey: 0x0108, Name: "pkey_0x0108"}, // its own fallback: kept
		{PKey: 0x0109, Name: "9lives"},      // a leading digit: invalid
	}
	want := map[uint16]string{0x0101: "tenant_a", 0x0102: "api_pkey_0x102", 0x0103: "pkey_0x0103",
		0x0104: "pkey_0x0104", 0x0105: "pkey_0x0105", 0x0106: "pkey_0x0106", 0x0107: "pkey_0x0107",
		0x0108: "pkey_0x0108", 0x0109: "pkey_0x0109"}
	got := ImportNames(held)
	seen := map[string]bool{}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("0x%04x: %q, want %q", k, got[k], w)
		}
		if seen[got[k]] {
			t.Errorf("name %q given twice", got[k])
		}
		seen[got[k]] = true
	}
	if len(got) != len(want) {
		t.Errorf("%d names for %d PKeys", len(got), len(want))
	}
	for k, w := range want {
		p, ok := Find(held, w)
		if !ok || p.PKey != k {
			t.Errorf("Find(%q) = 0x%04x, %v; want 0x%04x", w, p.PKey, ok, k)
		}
	}
	if _, ok := Find(held, "dup"); ok {
		t.Error("Find(\"dup\") found a PKey: a shared UFM name names none")
	}
}
