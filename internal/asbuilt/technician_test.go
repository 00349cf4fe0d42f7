package asbuilt

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/bom"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/opensm"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/testrig"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/topogen"
)

// The trial floor's net file and what the real ibnetdiscover printed for it.
var (
	trialNet      = filepath.Join("testdata", "trial-floor.net")
	trialSnapshot = filepath.Join("testdata", "trial-floor.ibnetdiscover")
)

func TestTrialFloorSource(t *testing.T) {
	if *update {
		if err := os.WriteFile(trialNet, []byte(trialFloor().net()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if readFile(t, trialNet) != trialFloor().net() {
		t.Fatalf("%s differs from trialFloor; run go test -run TrialFloorSource -update", trialNet)
	}
}

// The real ibnetdiscover on ibsim prints the committed snapshot of the trial floor (dates and
// LIDs aside), and the floor read from it is the net file's, cable for cable.
func TestSimulatedTrialFloor(t *testing.T) {
	testrig.RequirePeers(t)
	sim := testrig.StartIBSim(t, readFile(t, trialNet))
	r, err := sim.Run(t, "dgx001 mlx5_0", 2*time.Minute, "ibnetdiscover")
	if err != nil {
		t.Fatalf("ibnetdiscover: %v", err)
	}
	if *update {
		if err := os.WriteFile(trialSnapshot, []byte(r.Stdout), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if masked(r.Stdout) != masked(readFile(t, trialSnapshot)) {
		t.Fatalf("ibnetdiscover on the trial floor differs from %s; run with -update to take it again", trialSnapshot)
	}
	f := trialSpec(t)
	// 39 nodes x 8 HCA cables, 16 leaves x 32 uplinks less the dead one.
	if len(f.Nodes) != 39 || len(f.Switches) != 24 || len(f.Cables) != 39*8+16*32-1 {
		t.Fatalf("read %d nodes, %d switches, %d cables", len(f.Nodes), len(f.Switches), len(f.Cables))
	}
	want := trialFloor().cables()
	for _, c := range f.Cables {
		a, b := c.A.String(), c.B.String()
		if b < a {
			a, b = b, a
		}
		if !want[a+" "+b] {
			t.Errorf("read %s, which the floor does not have", c.Label())
		}
		delete(want, a+" "+b)
	}
	if len(want) > 0 {
		t.Errorf("%d cables of the floor not read back", len(want))
	}
}

// trialSpec reads the committed snapshot of the trial floor as the provider does.
func trialSpec(t testing.TB) *fabric.Spec {
	t.Helper()
	d, err := opensm.ParseTopology(readFile(t, trialSnapshot))
	if err != nil {
		t.Fatal(err)
	}
	f, err := Read(d, ReadOptions{Simulated: true})
	if err != nil {
		t.Fatal(err)
	}
	return f.Spec
}

// kinds of the devices of a fabric as a technician tells them apart: "hca", or the switch's
// tier read off the cabling alone (a switch with an HCA is a leaf, one cabled to a leaf a spine,
// the rest cores), independent of the fitter's levels.
func kindsOf(s *fabric.Spec) map[string]string {
	k := map[string]string{}
	for _, h := range s.HCAs {
		k[h.Name] = "hca"
	}
	nb := map[string][]string{}
	for _, c := range s.Cables {
		nb[c.A.Device] = append(nb[c.A.Device], c.B.Device)
		nb[c.B.Device] = append(nb[c.B.Device], c.A.Device)
	}
	for _, sw := range s.Switches {
		for _, o := range nb[sw.Name] {
			if k[o] == "hca" {
				k[sw.Name] = "leaf"
			}
		}
	}
	for _, sw := range s.Switches {
		if k[sw.Name] != "" {
			continue
		}
		k[sw.Name] = "core"
		for _, o := range nb[sw.Name] {
			if k[o] == "leaf" {
				k[sw.Name] = "spine"
			}
		}
	}
	return k
}

// deviceOf is the device of a cable end label "device:port".
func deviceOf(e string) string {
	return e[:strings.LastIndexByte(e, ':')]
}

// checkTechnician holds a fit and its work order to what a technician can do (DESIGN.md, "The
// as-built fabric"): no cable changes tier (a move's old and new end are on devices of the same
// kind), no floor port changes role (a fitted cable on a port the floor cables takes a far end
// of the kind the floor's cable there has), every move starts where a cable is (checkWorkOrder,
// which calls this on every work order the tests produce, and mustFit on every fit),
// no port is targeted twice (the ends the work order plugs are distinct and none holds a cable
// that stays), and the per-tier counts add up to the floor's cables of each tier.
func checkTechnician(t *testing.T, f *Fitted, wo []bom.Change) {
	t.Helper()
	fk, nk := kindsOf(f.floor), kindsOf(f.Spec)
	for _, sw := range f.Spec.Switches { // the fitted fabric's roles are the design's
		nk[sw.Name] = sw.Role
	}
	kindOf := func(dev string, floorSide bool) string {
		if floorSide {
			return fk[dev]
		}
		return nk[dev]
	}
	errs := 0
	fail := func(format string, args ...any) {
		if errs++; errs <= 10 {
			t.Errorf(format, args...)
		}
	}
	floorFar := map[string]string{} // floor port -> the kind of its cable's far end
	for _, c := range f.floor.Cables {
		if fk[c.A.Device] == fk[c.B.Device] {
			continue // a stray between switches of one tier: neither a node nor an uplink port
		}
		floorFar[c.A.String()] = fk[c.B.Device]
		floorFar[c.B.String()] = fk[c.A.Device]
	}
	// The one exception: a device that takes a role its floor ports never had, more of it
	// than the device has free ports (a 2-tier spine grown into a 3-tier one takes core links
	// on a full switch), gives up ports of its other roles, which no rule can avoid.
	floorRoles := map[string]map[string]bool{}
	floorUsed := map[string]int{}
	for _, c := range f.floor.Cables {
		for _, e := range [][2]fabric.End{{c.A, c.B}, {c.B, c.A}} {
			if floorRoles[e[0].Device] == nil {
				floorRoles[e[0].Device] = map[string]bool{}
			}
			floorRoles[e[0].Device][fk[e[1].Device]] = true
			floorUsed[e[0].Device]++
		}
	}
	newRole := map[[2]string]int{}
	for _, c := range f.Spec.Cables {
		for _, e := range [][2]fabric.End{{c.A, c.B}, {c.B, c.A}} {
			if r := floorRoles[e[0].Device]; r != nil && !r[nk[e[1].Device]] {
				newRole[[2]string{e[0].Device, nk[e[1].Device]}]++
			}
		}
	}
	radix := map[string]int{}
	for _, sw := range f.floor.Switches {
		radix[sw.Name] = catalog.Default().Switches[sw.Model].Ports
	}
	for _, c := range f.Spec.Cables {
		for _, e := range [][2]fabric.End{{c.A, c.B}, {c.B, c.A}} {
			if n := newRole[[2]string{e[0].Device, nk[e[1].Device]}]; n > 0 && radix[e[0].Device] > 0 && n > radix[e[0].Device]-floorUsed[e[0].Device] {
				continue
			}
			if k, ok := floorFar[e[0].String()]; ok && k != nk[e[1].Device] {
				fail("port %s holds a cable to a %s on the floor and to %s (a %s) in the fitted fabric", e[0], k, e[1], nk[e[1].Device])
			}
		}
	}
	plugged := map[string]bool{}
	plug := func(e string) {
		if plugged[e] {
			fail("port %s is targeted twice", e)
		}
		plugged[e] = true
	}
	for _, c := range wo {
		switch c.Action {
		case bom.ChangeMove:
			from, _, _ := strings.Cut(c.From, " ")
			stays := c.Prior.A.Endpoint()
			if stays == from {
				stays = c.Prior.B.Endpoint()
			}
			to := c.Row.A.Endpoint()
			if to == stays {
				to = c.Row.B.Endpoint()
			}
			fd := deviceOf(from)
			td := deviceOf(to)
			if kindOf(fd, true) != kindOf(td, false) {
				fail("move %s -> %s takes a %s end to a %s", from, to, kindOf(fd, true), kindOf(td, false))
			}
			plug(to)
		case bom.ChangeAdd:
			plug(c.Row.A.Endpoint())
			plug(c.Row.B.Endpoint())
		}
	}
	kept := map[string]bool{}
	for _, ch := range f.changes {
		if ch.act == actKeep {
			c := f.Spec.Cables[ch.fitted]
			kept[c.A.String()], kept[c.B.String()] = true, true
		}
	}
	for e := range plugged {
		if kept[e] {
			fail("port %s is targeted but holds a cable that stays", e)
		}
	}
	// Per tier, kept + moved + removed is the floor's cables of the tier.
	floorTier := map[string]int{}
	for _, c := range f.floor.Cables {
		a, b := fk[c.A.Device], fk[c.B.Device]
		switch {
		case a == b && a == "leaf":
			floorTier[topogen.TierTorus]++
		case a == b && a == "spine":
			floorTier[topogen.TierGlobal]++
		case a == "hca" || b == "hca":
			floorTier[topogen.TierNodeLeaf]++
		case a == "core" || b == "core":
			floorTier[topogen.TierSpineCore]++
		default:
			floorTier[topogen.TierLeafSpine]++
		}
	}
	for tier, n := range floorTier {
		tc := f.Report.Tiers[tier]
		if tc.Kept+tc.Moved+tc.Removed != n {
			fail("tier %s: kept %d + moved %d + removed %d, the floor has %d", tier, tc.Kept, tc.Moved, tc.Removed, n)
		}
	}
}

// The trial: the 40-slot floor (39 built) adopted at its size and grown to 4 SU, which
// re-plans the spine layer (16 spines of 2 links per leaf in place of 8 of 4).
func TestTrialFloorGrowth(t *testing.T) {
	floor := trialSpec(t)
	for _, c := range []struct {
		name       string
		sus, nodes int
	}{
		{"adopted", 2, 40},
		{"grown", 4, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			des := generate(t, topogen.Params{Kind: topogen.KindRailOptimized, ScalableUnits: c.sus, PlannedScalableUnits: c.sus, Nodes: c.nodes}, nil)
			f := mustFit(t, des, floor, nil)
			wo, err := f.WorkOrder(nil)
			if err != nil {
				t.Fatal(err)
			}
			checkWorkOrder(t, f, wo) // and checkTechnician
			r := f.Report
			if r.LinksKept != r.LinksKeptMax {
				t.Errorf("kept %d, bound %d", r.LinksKept, r.LinksKeptMax)
			}
			t.Logf("kept %d moved %d added %d removed %d; tiers %+v", r.LinksKept, r.LinksMoved, r.LinksAdded, r.LinksRemoved, r.Tiers)
			if c.name == "adopted" {
				// Exactly the three defects, each where the floor's rules put it: the swapped
				// rail cables back on slot 5's port, the absent dgx032 on slot 32's port of
				// each rail leaf, the missing uplink on the leaf port and spine port the
				// floor's round-robin and interleaving give it.
				q := trialFloor()
				want := []string{
					"move dgx005/mlx5_0:1 <-> ql-07-b:60: ql-07-b:60 -> ql-07-a:60",
					"move dgx005/mlx5_3:1 <-> ql-07-a:60: ql-07-a:60 -> ql-07-b:60",
				}
				for r := 0; r < 8; r++ {
					want = append(want, fmt.Sprintf("add dgx032/%s:1 <-> %s:%d", dgxDevices[r], q.leaf(0, r), 65-32))
				}
				s, sp := q.uplink(8+2, 6)
				want = append(want, fmt.Sprintf("add ql-08-c:6 <-> %s:%d", q.spineName(s), sp))
				if got := strings.Join(r.Deviations, "\n"); got != strings.Join(want, "\n") {
					t.Errorf("deviations:\n%s\nwant:\n%s", got, strings.Join(want, "\n"))
				}
			}
			// The floor's names go on, and no rack or unit is invented on a floor without racks.
			want := map[string]bool{}
			for n := 1; n <= 32*c.sus; n++ {
				want[fmt.Sprintf("dgx%03d", n)] = true
			}
			for su := 0; su < c.sus; su++ {
				for rail := 0; rail < 8; rail++ {
					want[fmt.Sprintf("ql-%02d-%c", 7+su, 'a'+rail)] = true
				}
			}
			for s := 1; s <= 8*c.sus/2; s++ {
				want[fmt.Sprintf("qs-%02d", s)] = true
			}
			if c.nodes > 0 {
				for n := c.nodes + 1; n <= 32*c.sus; n++ {
					delete(want, fmt.Sprintf("dgx%03d", n))
				}
			}
			got := map[string]bool{}
			for _, s := range f.Spec.Switches {
				got[s.Name] = true
				if s.Rack != "" || s.PositionU != 0 {
					t.Errorf("switch %s placed in %q U%d on a floor without racks", s.Name, s.Rack, s.PositionU)
				}
			}
			for _, n := range f.Spec.Nodes {
				got[n.Name] = true
				if n.Rack != "" || n.PositionU != 0 {
					t.Errorf("node %s placed in %q U%d on a floor without racks", n.Name, n.Rack, n.PositionU)
				}
			}
			if len(f.Spec.Racks) != 0 {
				t.Errorf("%d racks invented", len(f.Spec.Racks))
			}
			for n := range want {
				if !got[n] {
					t.Errorf("no device %s", n)
				}
			}
			for n := range got {
				if !want[n] {
					t.Errorf("device %s is not of the floor's naming", n)
				}
			}
			// The floor's convention goes on, on its leaves and on the new ones: uplinks on
			// ports 1-32, node slot j of every SU on port 65-j (dgx(32*su+j)).
			nk := kindsOf(f.Spec)
			for _, cb := range f.Spec.Cables {
				for _, e := range [][2]fabric.End{{cb.A, cb.B}, {cb.B, cb.A}} {
					if nk[e[0].Device] != "leaf" {
						continue
					}
					if nk[e[1].Device] != "hca" {
						if e[0].Port > 32 {
							t.Errorf("%s: an uplink on node port %s", cb.Label(), e[0])
						}
						continue
					}
					n, err := strconv.Atoi(strings.TrimPrefix(strings.Split(e[1].Device, "/")[0], "dgx"))
					if err != nil || e[0].Port != 65-((n-1)%32+1) {
						t.Errorf("%s: not on the floor's port for its slot", cb.Label())
					}
				}
			}
		})
	}
}

// Floors of other conventions, partly built and damaged, adopted and grown past their plan:
// every work order is one a technician can do (checkWorkOrder), the fit keeps its bound, and
// every node cable and uplink on a leaf (the floor's, and the new ones, which are cabled as a
// floor leaf of their rail is) is on the port the leaf's convention gives it: the floor's node
// port for the node's slot, one of its uplink ports.
func TestFloorConventionsGrow(t *testing.T) {
	convs := map[string]func(int) leafConv{
		"round-robin": nil,
		"blocked":     func(int) leafConv { return convBlocked },
		"interleaved": func(int) leafConv { return convInterleaved },
		"mixed":       func(l int) leafConv { return leafConv(l % 3) },
	}
	for name, conv := range convs {
		q := qlFloor{
			conv: conv, sus: 2, built: []int{32, 12},
			swap:   map[string]bool{"dgx007": true},
			dead:   map[string]bool{"ql-08-b:9": true},
			absent: map[string]bool{"dgx020": true},
		}
		floor := q.spec()
		leafIdx := map[string]int{}
		for su := 0; su < 4; su++ {
			for rail := 0; rail < 8; rail++ {
				leafIdx[q.leaf(su, rail)] = su*8 + rail
			}
		}
		for _, c := range []struct{ sus, nodes int }{{2, 44}, {4, 0}} {
			t.Run(fmt.Sprintf("%s/%dSU", name, c.sus), func(t *testing.T) {
				des := generate(t, topogen.Params{Kind: topogen.KindRailOptimized, ScalableUnits: c.sus, PlannedScalableUnits: c.sus, Nodes: c.nodes}, nil)
				f := mustFit(t, des, floor, nil)
				wo, err := f.WorkOrder(nil)
				if err != nil {
					t.Fatal(err)
				}
				checkWorkOrder(t, f, wo)
				if r := f.Report; r.LinksKept != r.LinksKeptMax {
					t.Errorf("kept %d, bound %d", r.LinksKept, r.LinksKeptMax)
				}
				// A leaf's convention: its own on the floor; a new leaf's, that of a floor
				// leaf of its rail whose convention all its cables follow.
				nk := kindsOf(f.Spec)
				ends := map[string][][2]fabric.End{}
				for _, cb := range f.Spec.Cables {
					for _, e := range [][2]fabric.End{{cb.A, cb.B}, {cb.B, cb.A}} {
						if nk[e[0].Device] == "leaf" {
							ends[e[0].Device] = append(ends[e[0].Device], e)
						}
					}
				}
				follows := func(l int, es [][2]fabric.End) string {
					cv := q.convOf(l)
					ups := map[int]bool{}
					for _, p := range q.upPorts(l) {
						ups[p] = true
					}
					for _, e := range es {
						if nk[e[1].Device] != "hca" {
							if !ups[e[0].Port] {
								return fmt.Sprintf("uplink %s <-> %s off the uplink ports", e[0], e[1])
							}
							continue
						}
						n, err := strconv.Atoi(strings.TrimPrefix(strings.Split(e[1].Device, "/")[0], "dgx"))
						if err != nil || e[0].Port != cv.nodePort((n-1)%32+1) {
							return fmt.Sprintf("node cable %s <-> %s off the port of its slot", e[0], e[1])
						}
					}
					return ""
				}
				for leaf, es := range ends {
					l, ok := leafIdx[leaf]
					if !ok {
						t.Errorf("leaf %s is not of the floor's naming", leaf)
						continue
					}
					if l < 16 {
						if why := follows(l, es); why != "" {
							t.Errorf("floor leaf %s: %s", leaf, why)
						}
						continue
					}
					var why string
					for fl := l % 8; fl < 16; fl += 8 {
						if why = follows(fl, es); why == "" {
							break
						}
					}
					if why != "" {
						t.Errorf("new leaf %s follows no floor leaf of its rail: %s", leaf, why)
					}
				}
			})
		}
	}
}
