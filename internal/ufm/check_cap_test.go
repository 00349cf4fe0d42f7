package ufm

import (
	"fmt"
	"regexp"
	"strconv"
	"testing"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/listed"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/partition"
)

// TestCheckCapped: a partition with more members UFM refuses than the cap is refused naming
// listed.Few of them and counting the rest (issue 32, point 5: one line per member, unbounded).
func TestCheckCapped(t *testing.T) {
	const fed = 11
	p := partition.Partition{Name: "t", PKey: 0x12}
	for i := range fed {
		p.Members = append(p.Members, partition.Member{Keyword: fmt.Sprintf("ALL_SWITCHES%d", i), Membership: partition.Full})
	}
	err := Check([]partition.Partition{p})
	if err == nil {
		t.Fatal("no error")
	}
	named := len(regexp.MustCompile(`is an OpenSM keyword`).FindAllString(err.Error(), -1))
	m := regexp.MustCompile(` and (\d+) more$`).FindStringSubmatch(err.Error())
	if named != listed.Few || m == nil || m[1] != strconv.Itoa(fed-listed.Few) {
		t.Errorf("%d fed, %d named, counted %v: %s", fed, named, m, err)
	}
}
