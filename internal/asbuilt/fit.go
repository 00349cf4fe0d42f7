package asbuilt

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/topogen"
)

// OriginAsBuilt is the Ref.Origin of the fitted fabric's elements that come from the floor.
const OriginAsBuilt = "as_built"

// Fitted is a design fitted to the floor.
type Fitted struct {
	// Spec is the design's graph carrying the floor's names, GUIDs, models and ports wherever
	// the design has that link, and the generator's own names and ports for what is new (ports
	// of new cables on floor devices chosen free of the cables that stay). Floor elements carry
	// Ref.Origin OriginAsBuilt.
	Spec   *fabric.Spec
	Report Report
	// Appliances are the design's appliance links (UFM in reserved node slots), which are not
	// graph devices, on the fitted leaves: the design's leaf port where the cables that stay
	// leave it free, else the lowest free one.
	Appliances []topogen.ApplianceLink

	floor      *fabric.Spec
	design     *topogen.Design
	changes    []change
	builtNodes int
}

// BuiltNodes is the node count of a design that ends where the floor's nodes end: one past the
// last design node slot a floor node took, when that slot is in the design's last block (the
// floor reaches the design's last scalable unit, so the design does not grow past it); else 0.
// On a partly built floor adopted at its size (40 slots of 2 SU built, one node absent) it is
// the floor's 40, the node count the design defaults to (plan.Design), so the empty slots are
// not filled and the absent node is the one addition.
func (f *Fitted) BuiltNodes() int { return f.builtNodes }

// Groups are the fitted items as the design's groups hold them (topogen.Design.GroupsOf), so a
// fitted fabric is output as the design would be; the appliance links, which are not graph
// devices, are in all only.
func (f *Fitted) Groups() (all topogen.Group, groups []topogen.Group) {
	all, groups = f.design.GroupsOf(f.Spec)
	all.Appliances = make(map[string]topogen.ApplianceLink, len(f.Appliances))
	for _, a := range f.Appliances {
		all.Appliances[a.Key] = a
	}
	return all, groups
}

// Report is how the floor and the fitted design differ.
type Report struct {
	DevicesMatched   int      // floor switches, nodes and HCAs that took a design device's place
	DevicesUnmatched []string // floor switches and nodes the design has no place for, and HCAs of matched nodes
	LinksKept        int      // floor cables kept on the same ports at both ends
	LinksMoved       int      // floor cables the design moves (one end stays, the other moves)
	LinksAdded       int      // design links with no floor cable
	LinksRemoved     int      // floor cables the design has no place for
	LinksKeptMax     int      // the most any assignment could keep (see Fit); LinksKept equals it on the generator's families
	// Deviations has one line per cable to remove, move or add, in that order, by the floor's
	// labels: "remove a:1 <-> b:2", "move a:1 <-> b:2: b:2 -> c:7", "add a:3 <-> c:8".
	Deviations []string
	// Tiers holds the counts per link tier (topogen.TierNodeLeaf, TierLeafSpine, ...).
	Tiers map[string]TierCounts
	Notes []string
}

// TierCounts are the link counts of one tier.
type TierCounts struct {
	Kept, Moved, Added, Removed, KeptMax int
}

// change actions.
const (
	actKeep = iota
	actMove
	actAdd
	actRemove
)

// change is one floor cable or fitted cable and what happens to it: kept (both indexes), moved
// (the floor cable becomes the fitted one; stayA says whether the floor cable's A end is the
// end that stays), added (fitted only), removed (floor only).
type change struct {
	act    int
	floor  int // index into floor.Cables, -1
	fitted int // index into Spec.Cables, -1
	stayA  bool
}

// Fit maps the devices of a design onto the devices of the floor by the links they have, not
// by their names, so that the most floor cables stay on their ports, and returns the design
// with the floor's names, GUIDs and ports wherever the design has that link.
//
// The mapping goes tier by tier from the nodes up (matcher.run), each step a largest-weight
// assignment solved exactly by the Hungarian method generalised to classes of any size
// (transport; Kuhn 1955, Munkres 1957):
//  1. sigma: the floor's HCA device names as the design's (rails): an HCA keeps its name in its
//     node, so a rail swap is two cables to move, not a relabel.
//  2. Blocks and pods: leaves that share nodes form a block (a scalable unit; one fat-tree
//     leaf), blocks that share level-2 switches a pod (a 3-tier pod, a dragonfly+ group, a
//     whole 2-tier tree). Floor pods go to design pods (cut into chunks of whole blocks where a
//     floor pod is larger: a 2-tier floor grown into 3 tiers), blocks to blocks, leaves by rail.
//  3. Nodes to node slots by the leaves their HCAs reach.
//  4. Spines by the leaves they serve, cores by the spines; within a class of alike switches,
//     by planes (3 tiers: the spines at one position of every pod and their cores), by
//     propagation along same-level links (dragonfly+ global links, torus), else by name order.
//
// Ports play no part in the mapping: any port convention of the floor fits and none is a
// deviation. A floor cable is kept when the design joins the images of its two devices (as many
// as the design has between them). The rest follow what a technician can do (DESIGN.md, "The
// as-built fabric"): a cable never changes tier, so a floor cable not kept is moved only onto a
// design link of its own tier at the image of one of its ends (that end stays on its port, the
// other goes to a device of the kind it leaves), as many as can be (matcher.moves: a largest
// matching, which is the fewest cable ends handled); the others are removed, and design links
// left are added. A port keeps the role the floor gives it, and new ends continue the floor's
// convention for their role on each device (specWriter.ports). A floor device that keeps
// nothing and reaches nothing the design has is left unmatched and named; nothing is invented
// for it.
//
// LinksKeptMax is an upper bound, computed independently of the mapping (keptMax), of what any
// level-preserving assignment (leaves to leaves, spines to spines, nodes to nodes) could keep.
// It is the bound under the technician's rules too: a kept cable stays on both its ports, so it
// changes neither tier nor port role, and the rules only ever constrain the cables that move
// and the ports of new ends, never which cables can be kept; an assignment that keeps a cable
// under the rules keeps it without them and the other way round. The bound is:
// per tier, the least of relaxations that drop the other tiers (each floor leaf keeps at most
// the HCAs of its most common device name on a rail-optimized design, up to its design leaf's
// capacity; each switch at most sortedMin of its per-neighbour link counts against its image's;
// each node likewise; dragonfly+ global links at most min(floor links, design links) per pair of
// groups). When LinksKept reaches it, the bound is the maximum and the fit is proved optimal on
// that floor; when it does not, a note says so. Why it is reached on the generator's families (a
// floor that is a design of the same kind, under any names, GUIDs and port conventions, at any
// size up to the design's, with its upper tiers built for any plan, and with rail swaps and dead,
// missing or extra cables and devices), tier by tier (TestFitBruteForce checks the fit against
// every assignment on small damaged floors, and the bound against the maximum; the one damage
// the bound does not see is cables swapped between nodes of different units, which the leaf
// relaxation still counts):
//
//   - Node-leaf tier. Each floor block is a scalable unit (leaves joined by the nodes they share,
//     strongest pairs first, never two of a rail, so a rail swap or a stray cable cannot split
//     or merge units) or a fat-tree leaf, and goes whole to a design block of the same shape;
//     each leaf goes to the design leaf of its rail (sigma of its most common device name), so
//     every HCA of the leaf's device name in a node of the block is kept, up to the design
//     leaf's capacity: the leaf bound, term by term. The node assignment is an exact transport
//     over classes of alike slots, so no node loses a cable another placement would keep.
//   - Leaf-spine tier. 2 tiers: every design leaf reaches every design spine with m links, so
//     any placement keeps min(F, m) of each floor pair, the spine bound sortedMin term by term;
//     the spine transport picks the floor spines with the most. 3 tiers: floor pods (or chunks
//     of whole blocks of a 2-tier floor, as full as design pods take) go to design pods whole,
//     and each floor spine keeps its links to its pod's leaves up to the design spine's one
//     link per leaf: again the spine bound term by term.
//   - Spine-core tier. Design cores of one plane serve the same spines with the same counts,
//     and floor planes go whole to design planes (transport), so each floor core keeps min(F,
//     mc) per spine: the core bound. A 2-tier floor has no core links.
//   - Dragonfly+ global tier. Design groups are joined all-to-all with hp links each, so any
//     injective group mapping meets the group bound when each floor group pair keeps min(F, hp);
//     within the plan (the floor's planned groups equal the design's) the floor is the design's
//     global graph up to names, which propagation from any seed recovers link for link, because
//     each placed spine's global links name exactly one spine per other group.
//   - Torus: best effort. Propagation with the 2-hop tie-break recovers a torus of the same
//     dimensions; otherwise LinksKeptMax is the bound and the report says when it is not
//     reached.
//
// The cost is linear in links up to the assignments over pods, blocks and planes, whose sizes
// the switch radix bounds (BenchmarkFit: 16,384 and 65,536 endpoints).
func Fit(design *topogen.Design, floor *fabric.Spec, cat *catalog.Catalog) (*Fitted, error) {
	if design == nil || floor == nil {
		return nil, errors.New("asbuilt.Fit needs a design and a floor")
	}
	if cat == nil {
		cat = catalog.Default()
	}
	dspec := design.FabricSpec()
	dg, probs := fabric.Build(dspec, cat)
	if err := buildErr("the design", probs); err != nil {
		return nil, err
	}
	fg, probs := fabric.Build(floor, cat)
	if err := buildErr("the floor", probs); err != nil {
		return nil, err
	}
	fl, de := newFGraph(fg), newFGraph(dg)
	fl.floorLevels(shapeOf(de))
	m := newMatcher(fl, de)
	m.run()
	f := &Fitted{floor: floor, design: design}
	f.builtNodes = m.builtNodes()
	m.classify(f, design, dspec)
	return f, nil
}

func buildErr(what string, probs []fabric.Problem) error {
	if !fabric.HasErrors(probs) {
		return nil
	}
	var msgs []string
	for _, p := range probs {
		if p.Severity != fabric.Error {
			continue
		}
		if len(msgs) == 5 {
			msgs = append(msgs, "...")
			break
		}
		msgs = append(msgs, p.String())
	}
	return fmt.Errorf("%s does not build: %s", what, strings.Join(msgs, "; "))
}

// lowerEnd says which end of a link is its lower-tier end: the end at the lower level, or A.
func lowerIsA(g *fgraph, l *fabric.Link) bool {
	return g.level[l.A] <= g.level[l.B]
}

func lowerPort(g *fgraph, l *fabric.Link) int {
	if lowerIsA(g, l) {
		return l.PortA
	}
	return l.PortB
}

// classify decides, from the mapping, which floor cables are kept, moved and removed and which
// design links are added, chooses the ports of what is new, and writes the fitted spec and the
// report.
func (m *matcher) classify(f *Fitted, design *topogen.Design, dspec *fabric.Spec) {
	fl, de := m.fl, m.de
	fg, dg := fl.g, de.g
	keptBy := minusOnes(len(fg.Links))     // floor link -> design link kept
	designFrom := minusOnes(len(dg.Links)) // design link -> floor link (kept or moved)
	designMoved := make([]bool, len(dg.Links))
	// Kept: for each floor device a, its links to each mapped neighbour b of a higher index,
	// paired with the design links between their images, lower-tier ports ascending on both
	// sides. The design links of a's image are indexed by their far end once per a (stamp and
	// slot arrays instead of maps: this runs on every link of fabrics of 200,000 links).
	stamp := make([]int32, len(dg.Devices))
	slot := make([][]int32, len(dg.Devices))
	byNbr := map[int32][]int32{}
	for a := range fg.Devices {
		A := m.fwd[a]
		if A < 0 {
			continue
		}
		for _, li := range dg.LinksOf(A) {
			o := dg.Links[li].Other(A)
			if stamp[o] != int32(a)+1 {
				stamp[o], slot[o] = int32(a)+1, slot[o][:0]
			}
			slot[o] = append(slot[o], li)
		}
		clear(byNbr)
		for _, li := range fg.LinksOf(int32(a)) {
			b := fg.Links[li].Other(int32(a))
			if b > int32(a) && m.fwd[b] >= 0 {
				byNbr[b] = append(byNbr[b], li)
			}
		}
		for b, fls := range byNbr {
			B := m.fwd[b]
			if stamp[B] != int32(a)+1 || len(slot[B]) == 0 {
				continue
			}
			dls := append([]int32(nil), slot[B]...)
			sort.SliceStable(fls, func(x, y int) bool { return lowerPort(fl, &fg.Links[fls[x]]) < lowerPort(fl, &fg.Links[fls[y]]) })
			sort.SliceStable(dls, func(x, y int) bool { return lowerPort(de, &dg.Links[dls[x]]) < lowerPort(de, &dg.Links[dls[y]]) })
			for i := 0; i < len(fls) && i < len(dls); i++ {
				keptBy[fls[i]] = dls[i]
				designFrom[dls[i]] = fls[i]
			}
		}
	}
	// Moves: floor cables not kept that keep one end and take a design link of their own tier
	// there (matcher.moves).
	moveStay := m.moves(keptBy, designFrom, designMoved)

	w := newSpecWriter(m, design, dspec, f)
	w.ports(designFrom, designMoved, moveStay)
	w.write(keptBy, designFrom, designMoved, moveStay)
	m.report(f)
}
