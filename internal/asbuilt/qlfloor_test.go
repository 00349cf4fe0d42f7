package asbuilt

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
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
	conv   func(l int) leafConv // each leaf's port convention (l 0-based); nil: round-robin
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

// leafConv is a leaf's port convention on the floor.
type leafConv int

const (
	// convRoundRobin: uplinks round-robin on ports 1-32 (the k-th link to spine s on port
	// k*S+s), node slot j on port 65-j (nodes from 64 down).
	convRoundRobin leafConv = iota
	// convBlocked: uplinks blocked by spine on ports 1-32 ((s-1)*m+k+1), node slot j on 32+j.
	convBlocked
	// convInterleaved: node slot j on odd port 2j-1, the i-th uplink (i = k*S+s-1) on even
	// port 2i+2.
	convInterleaved
)

func (q qlFloor) convOf(l int) leafConv {
	if q.conv == nil {
		return convRoundRobin
	}
	return q.conv(l)
}

// upPort is the leaf port of leaf l's k-th (0-based) link to spine s (1-based).
func (c leafConv) upPort(S, m, s, k int) int {
	switch c {
	case convBlocked:
		return (s-1)*m + k + 1
	case convInterleaved:
		return 2*(k*S+s-1) + 2
	}
	return k*S + s
}

// nodePort is the leaf port of node slot j (1-based).
func (c leafConv) nodePort(j int) int {
	switch c {
	case convBlocked:
		return 32 + j
	case convInterleaved:
		return 2*j - 1
	}
	return 65 - j
}

// uplink: leaf port p of leaf l (0-based) goes to spine s (1-based) on spine port sp (the k-th
// link of leaf l on port k*L+l+1: interleaved by leaf); false for a port that is no uplink.
func (q qlFloor) uplink(l, p int) (s, sp int) {
	S, m := q.spines(), q.m()
	c := q.convOf(l)
	for s := 1; s <= S; s++ {
		for k := 0; k < m; k++ {
			if c.upPort(S, m, s, k) == p {
				return s, k*q.leaves() + l + 1
			}
		}
	}
	return 0, 0
}

// upPorts are leaf l's uplink ports, ascending.
func (q qlFloor) upPorts(l int) []int {
	var out []int
	for p := 1; p <= 64; p++ {
		if s, _ := q.uplink(l, p); s > 0 {
			out = append(out, p)
		}
	}
	return out
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
			var lines []string
			at := map[string]int{}
			for _, p := range q.upPorts(l) {
				if alive(su, rail, p) {
					s, sp := q.uplink(l, p)
					line := fmt.Sprintf("[%d]\t\"%s\"[%d]\t\t# lid 0 4xHDR\n", p, q.spineID(s), sp)
					lines, at[line] = append(lines, line), p
				}
			}
			for j := 1; j <= 32; j++ {
				if !q.present(su, j) {
					continue
				}
				for r := 0; r < 8; r++ {
					if q.railOf(su, j, r) == rail {
						line := fmt.Sprintf("[%d]\t\"%s %s\"[1]\t\t# lid 0 4xHDR\n", q.convOf(l).nodePort(j), q.host(su, j), dgxDevices[r])
						lines, at[line] = append(lines, line), q.convOf(l).nodePort(j)
					}
				}
			}
			if q.convOf(l) != convRoundRobin {
				sort.SliceStable(lines, func(a, b int) bool { return at[lines[a]] < at[lines[b]] })
			}
			for _, line := range lines {
				b.WriteString(line)
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
				for _, p := range q.upPorts(l) {
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
					q.hcaGUID(su, j, r), q.host(su, j), dgxDevices[r], q.leafID(su, rail), q.convOf(su*8+rail).nodePort(j))
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
			for _, p := range q.upPorts(l) {
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
				rail := q.railOf(su, j, r)
				add(fmt.Sprintf("%s/%s:1", q.host(su, j), dgxDevices[r]), fmt.Sprintf("%s:%d", q.leaf(su, rail), q.convOf(su*8+rail).nodePort(j)))
			}
		}
	}
	return out
}

// spec is the floor as Read gives it (names, models, GUIDs, cables; no racks), built from the
// floor's rules directly, for the floors no test loads into ibsim.
func (q qlFloor) spec() *fabric.Spec {
	s := &fabric.Spec{}
	for su := 0; su < q.sus; su++ {
		for rail := 0; rail < 8; rail++ {
			s.Switches = append(s.Switches, fabric.Switch{Name: q.leaf(su, rail), Model: "QM9700", GUID: fmt.Sprintf("0x%016x", q.leafGUID(su*8+rail+1))})
		}
	}
	for sp := 1; sp <= q.spines(); sp++ {
		s.Switches = append(s.Switches, fabric.Switch{Name: q.spineName(sp), Model: "QM9700", GUID: fmt.Sprintf("0x%016x", q.spineGUID(sp))})
	}
	for su := 0; su < q.sus; su++ {
		for j := 1; j <= 32; j++ {
			if !q.present(su, j) {
				continue
			}
			s.Nodes = append(s.Nodes, fabric.Node{Name: q.host(su, j), Model: "DGX-H100"})
			for r := 0; r < 8; r++ {
				s.HCAs = append(s.HCAs, fabric.HCA{Name: q.host(su, j) + "/" + dgxDevices[r], Node: q.host(su, j), Device: dgxDevices[r],
					PortGUID: fmt.Sprintf("0x%016x", q.hcaGUID(su, j, r)+1), Rail: -1})
			}
		}
	}
	end := func(e string) fabric.End {
		i := strings.LastIndexByte(e, ':')
		p, err := strconv.Atoi(e[i+1:])
		if err != nil {
			panic(fmt.Sprintf("the test's own cable end %q has no port: %v", e, err))
		}
		return fabric.End{Device: e[:i], Port: p}
	}
	var pairs []string
	for c := range q.cables() {
		pairs = append(pairs, c)
	}
	sort.Strings(pairs)
	for _, c := range pairs {
		a, b, _ := strings.Cut(c, " ")
		s.Cables = append(s.Cables, fabric.Cable{A: end(a), B: end(b)})
	}
	return s
}
