package ufm

import (
	"fmt"
	"strings"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/partition"
)

// ImportNames gives each PKey UFM holds (Read's answer: 0x7fff already left out) the name it is
// listed and imported under: UFM's own partition name when it is a valid partition name
// (fabric.CheckPartitionName) that no other PKey bears, else FallbackName. UFM names PKeys
// freely (before 6.22 every API PKey is "api_pkey_<pkey>"; REST API guide, "PKey GUIDs Rest
// API": partition_name appears in v6.22.1), so a name may be invalid or shared; the fallback is
// made from the P_Key, which UFM keeps unique. A UFM name of the fallback's form is kept only for
// its own P_Key, so no two PKeys can end up with one name. The result is keyed by P_Key.
func ImportNames(held []partition.Partition) map[uint16]string {
	count := map[string]int{}
	for _, p := range held {
		count[p.Name]++
	}
	out := make(map[uint16]string, len(held))
	for _, p := range held {
		n := p.Name
		if fabric.CheckPartitionName(n) != "" || count[n] > 1 || (strings.HasPrefix(n, fallbackPrefix) && n != FallbackName(p.PKey)) {
			n = FallbackName(p.PKey)
		}
		out[p.PKey] = n
	}
	return out
}

const fallbackPrefix = "pkey_0x"

// FallbackName is the name of a PKey whose UFM name cannot be used: "pkey_0x0101".
func FallbackName(k uint16) string { return fmt.Sprintf("%s%04x", fallbackPrefix, k) }

// Find returns the PKey held under the import name name (ImportNames), and whether there is one.
func Find(held []partition.Partition, name string) (partition.Partition, bool) {
	names := ImportNames(held)
	for _, p := range held {
		if names[p.PKey] == name {
			return p, true
		}
	}
	return partition.Partition{}, false
}
