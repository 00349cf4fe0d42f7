package asbuilt

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/opensm"
)

// Every list of Read's errors and notes is capped with a count of what it leaves out (issue 32):
// 500 switches with names the provider cannot use make an error that spells out maxListed of
// them and counts the other 480, and 500 switches of 500 unknown parts make at most
// maxListed+1 model notes.
func TestReadCapsItsLists(t *testing.T) {
	const n = 500
	bad, parts := &opensm.Discovered{}, &opensm.Discovered{}
	for i := range n {
		bad.Nodes = append(bad.Nodes, opensm.DiscoveredNode{Kind: opensm.NodeSwitch, GUID: opensm.GUID(i + 1), Ports: 64,
			Desc: fmt.Sprintf("bad name %d!", i), ID: fmt.Sprintf("S-%016x", i+1)})
		parts.Nodes = append(parts.Nodes, opensm.DiscoveredNode{Kind: opensm.NodeSwitch, GUID: opensm.GUID(i + 1), Ports: 64,
			Desc: fmt.Sprintf("MF0;sw%03d:PART%03d/U1", i, i), ID: fmt.Sprintf("S-%016x", i+1)})
	}
	_, err := Read(bad, ReadOptions{})
	if err == nil {
		t.Fatal("500 bad names read")
	}
	if got := strings.Count(err.Error(), "\n- "); got != maxListed || !strings.Contains(err.Error(), fmt.Sprintf("and %d more problems", n-maxListed)) {
		t.Errorf("%d problems listed of %d, error of %d bytes: %.300s", got, n, len(err.Error()), err)
	}
	f, err := Read(parts, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, note := range f.Notes {
		total += len(note)
	}
	if len(f.Notes) > maxListed+3 || total > 64<<10 {
		t.Errorf("%d notes of %d bytes for 500 unknown parts", len(f.Notes), total)
	}
}
