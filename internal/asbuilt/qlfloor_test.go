package asbuilt

import (
	"fmt"
	"strings"
)

// qlFloor writes, as an ibsim net file, a second hand-built rail-optimized floor whose
// conventions are none of the generator's nor handFloor's: the trial floor (issue 27).
//
//   - Names: leaves ql-<row>-<rail letter> (row 07 is SU 1, 08 SU 2: ql-07-a .. ql-08-h), spines
//     qs-01 .., nodes dgx001 .. numbered across SUs (SU 2's slot j is dgx(32+j)), HCAs with the
//     DGX's device names. The switches describe themselves as managed QM9700s do.
//   - Leaf ports: uplinks round-robin on ports 1-32 (port p goes to spine (p-1)%S+1, its
//     ((p-1)/S+1)-th link there); node slot j (1-based) on port 65-j, so nodes fill ports 64
//     down to 33.
//   - Spine ports: interleaved by leaf, the k-th link of leaf l (0-based) on port k*16+l+1... in
//     general k*L+l+1 with L the floor's leaves.
//   - Partly built: built[su] node slots of each SU are cabled (SU 1 full but for absent, SU 2
//     the first 8 of 32).
//
// Faults: swap names nodes whose first two rails are swapped; dead lists leaf ends of uplinks
// that are down ("ql-08-c:6"), left out of the net file; absent names node slots never built.
type qlFloor struct {
	sus    int
	built  []int // node slots cabled per SU (the first built[su] slots)
	swap   map[string]bool
	dead   map[string]bool
	absent map[string]bool
}

func (q qlFloor) spines() int { return 8 }
func (q qlFloor) leaves() int { return 8 * q.sus }
func (q qlFloor) m() int      { return 32 / q.spines() }

func (q qlFloor) host(su, j int) string { return fmt.Sprintf("dgx%03d", su*32+j) }
func (q qlFloor) leaf(su, rail int) string {
	return fmt.Sprintf("ql-%02d-%c", 7+su, 'a'+rail)
}
func (q qlFloor) leafID(su, rail int) string {
	return fmt.Sprintf("MF0;%s:MQM9700/U1", q.leaf(su, rail))
}
func (q qlFloor) spineName(s int) string { return fmt.Sprintf("qs-%02d", s) }
func (q qlFloor) spineID(s int) string   { return fmt.Sprintf("MF0;%s:MQM9700/U1", q.spineName(s)) }

func (q qlFloor) leafGUID(l int) uint64  { return 0x0c42a10300710000 + uint64(l)*0x100 }
func (q qlFloor) spineGUID(s int) uint64 { return 0x0c42a10300720000 + uint64(s)*0x100 }
func (q qlFloor) hcaGUID(su, j, r int) uint64 {
	return 0x946dae0300000000 + uint64(su)<<20 + uint64(j)<<8 + uint64(r)<<4
}

// uplink: leaf port p of leaf l (0-based) goes to spine s (1-based) on spine port sp.
func (q qlFloor) uplink(l, p int) (s, sp int) {
	S := q.spines()
	s = (p-1)%S + 1
	k := (p - 1) / S
	return s, k*q.leaves() + l + 1
}

func (q qlFloor) railOf(su, j, r int) int {
	if q.swap[q.host(su, j)] && r < 2 {
		return 1 - r
	}
	return r
}

func (q qlFloor) present(su, j int) bool {
	return j <= q.built[su] && !q.absent[q.host(su, j)]
}

func (q qlFloor) net() string {
	var b strings.Builder
	b.WriteString("# A second hand-built rail-optimized fabric: see qlFloor in internal/asbuilt.\n")
	alive := func(su, rail, p int) bool { return !q.dead[fmt.Sprintf("%s:%d", q.leaf(su, rail), p)] }
	for su := 0; su < q.sus; su++ {
		for rail := 0; rail < 8; rail++ {
			l := su*8 + rail
			fmt.Fprintf(&b, "\nswitchguid=0x%016x\nSwitch\t64 \"%s\"\n", q.leafGUID(l+1), q.leafID(su, rail))
			for p := 1; p <= 32; p++ {
				if alive(su, rail, p) {
					s, sp := q.uplink(l, p)
					fmt.Fprintf(&b, "[%d]\t\"%s\"[%d]\t\t# lid 0 4xHDR\n", p, q.spineID(s), sp)
				}
			}
			for j := 1; j <= 32; j++ {
				if !q.present(su, j) {
					continue
				}
				for r := 0; r < 8; r++ {
					if q.railOf(su, j, r) == rail {
						fmt.Fprintf(&b, "[%d]\t\"%s %s\"[1]\t\t# lid 0 4xHDR\n", 65-j, q.host(su, j), dgxDevices[r])
					}
				}
			}
		}
	}
	for s := 1; s <= q.spines(); s++ {
		fmt.Fprintf(&b, "\nswitchguid=0x%016x\nSwitch\t64 \"%s\"\n", q.spineGUID(s), q.spineID(s))
		type row struct {
			sp   int
			text string
		}
		var rows []row
		for su := 0; su < q.sus; su++ {
			for rail := 0; rail < 8; rail++ {
				l := su*8 + rail
				for p := 1; p <= 32; p++ {
					if s2, sp := q.uplink(l, p); s2 == s && alive(su, rail, p) {
						rows = append(rows, row{sp, fmt.Sprintf("[%d]\t\"%s\"[%d]\t\t# lid 0 4xHDR\n", sp, q.leafID(su, rail), p)})
					}
				}
			}
		}
		for sp := 1; sp <= 64; sp++ {
			for _, r := range rows {
				if r.sp == sp {
					b.WriteString(r.text)
				}
			}
		}
	}
	for su := 0; su < q.sus; su++ {
		for j := 1; j <= 32; j++ {
			if !q.present(su, j) {
				continue
			}
			for r := 0; r < 8; r++ {
				rail := q.railOf(su, j, r)
				fmt.Fprintf(&b, "\ncaguid=0x%016x\nCa\t1 \"%s %s\"\n[1]\t\"%s\"[%d]\t\t# lid 0 4xHDR\n",
					q.hcaGUID(su, j, r), q.host(su, j), dgxDevices[r], q.leafID(su, rail), 65-j)
			}
		}
	}
	return b.String()
}

// trialFloor is the trial floor: 40 slots (SU 1's 32, SU 2's first 8) of which 39 are
// built (dgx032 absent), a rail swap on dgx005, the uplink on ql-08-c port 6 missing.
func trialFloor() qlFloor {
	return qlFloor{
		sus: 2, built: []int{32, 8},
		swap:   map[string]bool{"dgx005": true},
		dead:   map[string]bool{"ql-08-c:6": true},
		absent: map[string]bool{"dgx032": true},
	}
}

// cables are the floor's cables as "end end" pairs (each pair sorted), from the floor's rules
// alone: the independent side of what ibnetdiscover reads back.
func (q qlFloor) cables() map[string]bool {
	out := map[string]bool{}
	add := func(a, b string) {
		if b < a {
			a, b = b, a
		}
		out[a+" "+b] = true
	}
	for su := 0; su < q.sus; su++ {
		for rail := 0; rail < 8; rail++ {
			l := su*8 + rail
			for p := 1; p <= 32; p++ {
				if !q.dead[fmt.Sprintf("%s:%d", q.leaf(su, rail), p)] {
					s, sp := q.uplink(l, p)
					add(fmt.Sprintf("%s:%d", q.leaf(su, rail), p), fmt.Sprintf("%s:%d", q.spineName(s), sp))
				}
			}
		}
		for j := 1; j <= 32; j++ {
			if !q.present(su, j) {
				continue
			}
			for r := 0; r < 8; r++ {
				add(fmt.Sprintf("%s/%s:1", q.host(su, j), dgxDevices[r]), fmt.Sprintf("%s:%d", q.leaf(su, q.railOf(su, j, r)), 65-j))
			}
		}
	}
	return out
}
