package ufm

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/partition"
)

// Describe writes what UFM holds for one partition as one line, the form a plan diff shows:
// "pkey=0x0101 ipoib=true index0=false mtu=4096 rate=200 sl=1 members=0002c90300a00001:full,...", members
// sorted by GUID. The name is left out: UFM before 6.22 names every API PKey "api_pkey_<pkey>"
// whatever was asked (REST API guide: partition_name appears in v6.22.1), so it is not drift.
func Describe(p partition.Partition) string {
	ms := make([]string, 0, len(p.Members))
	for _, m := range p.Members {
		ms = append(ms, GUIDString(m.GUID)+":"+m.Membership)
	}
	sort.Strings(ms)
	return fmt.Sprintf("pkey=%s ipoib=%t index0=%t mtu=%d rate=%s sl=%d members=%s", PKeyString(p.PKey), p.IPoIB, p.Index0 && len(p.Members) > 0, p.MTU,
		strconv.FormatFloat(p.RateGbps, 'g', -1, 64), p.SL, strings.Join(ms, ","))
}

// ParseDescribed reads Describe's line back, for the partition of that name.
func ParseDescribed(name, line string) (partition.Partition, error) {
	p := partition.Partition{Name: name}
	bad := func(f string) (partition.Partition, error) {
		return partition.Partition{}, fmt.Errorf("partition %q: %q is not a partition description (%s)", name, line, f)
	}
	seen := 0
	for _, f := range strings.Fields(line) {
		k, v, ok := strings.Cut(f, "=")
		if !ok {
			return bad(f)
		}
		var err error
		switch k {
		case "pkey":
			p.PKey, err = ParsePKey(v)
		case "ipoib":
			p.IPoIB, err = strconv.ParseBool(v)
		case "index0":
			p.Index0, err = strconv.ParseBool(v)
		case "mtu":
			p.MTU, err = strconv.Atoi(v)
		case "rate":
			p.RateGbps, err = strconv.ParseFloat(v, 64)
		case "sl":
			p.SL, err = strconv.Atoi(v)
		case "members":
			for _, e := range strings.Split(v, ",") {
				if e == "" {
					continue
				}
				g, ms, ok := strings.Cut(e, ":")
				if !ok {
					return bad(e)
				}
				guid, gerr := partition.ParseGUID(g)
				if gerr != nil {
					return bad(gerr.Error())
				}
				p.Members = append(p.Members, partition.Member{GUID: guid, Membership: ms})
			}
		default:
			return bad(k)
		}
		if err != nil {
			return bad(f)
		}
		seen++
	}
	if seen != 7 {
		return bad("seven fields expected")
	}
	return p, nil
}
