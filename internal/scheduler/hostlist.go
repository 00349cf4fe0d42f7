package scheduler

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// splitNum splits a name into its prefix and trailing decimal digits ("gpu001" -> "gpu", "001").
func splitNum(s string) (prefix, digits string) {
	i := len(s)
	for i > 0 && s[i-1] >= '0' && s[i-1] <= '9' {
		i--
	}
	return s[:i], s[i:]
}

// Compress writes names as a Slurm hostlist expression: names sharing a prefix and a zero-padded
// number width fold into one bracket, "gpu[001-004,007]" (Slurm's hostlist syntax, topology.conf(5):
// "Nodes=tux[0-3,12,18-20]"). Groups keep the order in which their first name appears; numbers
// inside a bracket are sorted. Duplicates are dropped.
func Compress(names []string) string {
	type key struct {
		prefix string
		width  int
	}
	var order []key
	nums := map[key][]int{}
	seen := map[string]bool{}
	var out []string
	slot := map[key]int{}
	for _, n := range names {
		if seen[n] {
			continue
		}
		seen[n] = true
		p, d := splitNum(n)
		if d == "" || len(d) > 9 {
			out = append(out, n)
			continue
		}
		v, _ := strconv.Atoi(d)
		k := key{p, len(d)}
		if _, ok := nums[k]; !ok {
			order = append(order, k)
			slot[k] = len(out)
			out = append(out, "") // filled below, keeps the group's place
		}
		nums[k] = append(nums[k], v)
	}
	for _, k := range order {
		vs := nums[k]
		sort.Ints(vs)
		if len(vs) == 1 {
			out[slot[k]] = fmt.Sprintf("%s%0*d", k.prefix, k.width, vs[0])
			continue
		}
		var rs []string
		for i := 0; i < len(vs); {
			j := i
			for j+1 < len(vs) && vs[j+1] == vs[j]+1 {
				j++
			}
			if j == i {
				rs = append(rs, fmt.Sprintf("%0*d", k.width, vs[i]))
			} else {
				rs = append(rs, fmt.Sprintf("%0*d-%0*d", k.width, vs[i], k.width, vs[j]))
			}
			i = j + 1
		}
		out[slot[k]] = k.prefix + "[" + strings.Join(rs, ",") + "]"
	}
	return strings.Join(out, ",")
}
