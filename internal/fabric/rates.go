package fabric

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// PathRate is an InfiniBand path rate: a data rate in Gb/s and the 6-bit code that path and
// multicast member records carry it as, which is also what OpenSM's partitions.conf rate= flag
// takes (IBTA vol. 1 release 1.3, PathRecord Rate encoding, p. 984, as OpenSM's
// include/iba/ib_types.h IB_PATH_RECORD_RATE_* cites it).
type PathRate struct {
	Gbps float64
	Code int
}

// PathRates are the rates a partition's IPoIB broadcast group may be written with, in code
// order: the codes of OpenSM 3.3.23's ib_types.h, 2 (2.5 Gb/s) to 22 (600 Gb/s). It is the one
// table of rates: the partition's own validation (CheckRate) and OpenSM's renderer and parser
// (internal/opensm) read it.
//
// IBTA vol. 1 release 1.5 adds 23 (800 Gb/s, NDR 8x) and 24 (1200 Gb/s, NDR 12x); upstream
// OpenSM knows them from 3.3.24 on (linux-rdma/opensm bf850acd, "Support NDR devices"), but
// 3.3.23, the release the provider is tested against, does not (its IB_MAX_RATE is 22, and its SA
// refuses a join to a group of a higher rate, osm_sa_mcmember_record.c), and no NVIDIA document on
// NVIDIA SM lists its codes. Neither subnet manager flavour the provider writes for is known to
// read them, so they are not here and a partition asking for them is refused at plan
// (ibtaOnlyRates).
var PathRates = []PathRate{
	{2.5, 2}, {10, 3}, {30, 4}, {5, 5}, {20, 6}, {40, 7}, {60, 8}, {80, 9}, {120, 10}, {14, 11},
	{56, 12}, {112, 13}, {168, 14}, {25, 15}, {100, 16}, {200, 17}, {300, 18}, {28, 19}, {50, 20},
	{400, 21}, {600, 22},
}

// ibtaOnlyRates are the path rates of IBTA vol. 1 release 1.5 that no subnet manager the provider
// writes for is known to read (see PathRates), so CheckRate can say why they are refused.
var ibtaOnlyRates = []PathRate{{800, 23}, {1200, 24}}

// RateCode returns the path-rate code of a rate in Gb/s (400 -> 21).
func RateCode(gbps float64) (int, bool) {
	for _, r := range PathRates {
		if r.Gbps == gbps {
			return r.Code, true
		}
	}
	return 0, false
}

// RateOfCode returns the rate in Gb/s of a path-rate code (21 -> 400).
func RateOfCode(code int) (float64, bool) {
	for _, r := range PathRates {
		if r.Code == code {
			return r.Gbps, true
		}
	}
	return 0, false
}

// PartitionRates are the rates of PathRates a partition may set, in whole Gb/s, ascending (2.5
// Gb/s is not a whole number, and not a rate anyone sets on a 400G fabric).
var PartitionRates = func() []int {
	var out []int
	for _, r := range PathRates {
		if r.Gbps == float64(int(r.Gbps)) {
			out = append(out, int(r.Gbps))
		}
	}
	sort.Ints(out)
	return out
}()

// PartitionRateList is PartitionRates as the documentation and the messages write them: "5, 10,
// ..., 600".
func PartitionRateList() string {
	s := make([]string, len(PartitionRates))
	for i, r := range PartitionRates {
		s[i] = strconv.Itoa(r)
	}
	return strings.Join(s, ", ")
}

// CheckRate checks a partition's IPoIB broadcast-group rate in Gb/s.
func CheckRate(gbps int) string {
	for _, r := range PartitionRates {
		if r == gbps {
			return ""
		}
	}
	use := "use one of " + PartitionRateList() + " (400 for NDR)"
	for _, r := range ibtaOnlyRates {
		if r.Gbps == float64(gbps) {
			return fmt.Sprintf("rate %d Gb/s (path-rate code %d, IBTA vol. 1 release 1.5) is unknown to the subnet managers the provider writes for: OpenSM 3.3.23 ends at %d Gb/s (code %d) and refuses hosts joining a faster group; %s, or leave rate unset",
				gbps, r.Code, PartitionRates[len(PartitionRates)-1], PathRates[len(PathRates)-1].Code, use)
		}
	}
	return fmt.Sprintf("rate %d Gb/s is not an InfiniBand path rate: %s", gbps, use)
}
