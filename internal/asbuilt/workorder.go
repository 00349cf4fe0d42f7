package asbuilt

import (
	"fmt"
	"sort"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/bom"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/topogen"
)

// ExternalLinks are the fitted fabric's appliance links (UFM in reserved node slots) as the
// BOM's external links (bom.ExternalLinks of the design, on the fitted leaves and ports).
func (f *Fitted) ExternalLinks() []bom.ExternalLink {
	if f.design == nil {
		return nil
	}
	d := topogen.Design{Params: f.design.Params, ApplianceList: f.Appliances}
	return bom.ExternalLinks(&d)
}

// WorkOrder is the re-cabling that turns the floor into the fitted fabric, as the rows of
// gpucluster_bom's cabling_changes_csv (bom.ChangesCSV): removals, then moves, then additions,
// each in its cabling plan's order, so a technician frees ports before filling them. A removal
// is a floor cable as the floor has it; a move goes from the port the cable is on, as the floor
// shows it (never a dead port: a dead port carries no discovered cable), to its new port; an
// addition is a fitted cable. The counts equal the report's (LinksRemoved, LinksMoved,
// LinksAdded), cable for cable. Every row names the links it also takes down (bom.AttachMates:
// the other split of each twin-port cage it touches, on the floor where it unplugs, in the
// fitted fabric where it plugs); the fitted side includes the appliance links, which share
// cages but are not rows (they are not cables of the fit).
func (f *Fitted) WorkOrder(cat *catalog.Catalog) ([]bom.Change, error) {
	if cat == nil {
		cat = catalog.Default()
	}
	fg, probs := fabric.Build(f.floor, cat)
	if err := buildErr("the floor", probs); err != nil {
		return nil, err
	}
	ng, probs := fabric.Build(f.Spec, cat)
	if err := buildErr("the fitted fabric", probs); err != nil {
		return nil, err
	}
	prior := bom.Cabling(fg, cat, bom.Options{})
	next := bom.Cabling(ng, cat, bom.Options{External: f.ExternalLinks()})
	rowOf := func(g *fabric.Graph) map[int]int {
		m := make(map[int]int, len(g.Links))
		for i := range g.Links {
			m[g.Links[i].Cable] = i
		}
		return m
	}
	floorRow, nextRow := rowOf(fg), rowOf(ng)
	type item struct {
		order int
		c     bom.Change
	}
	var removes, moves, adds []item
	for _, c := range f.changes {
		switch c.act {
		case actRemove:
			i, ok := floorRow[c.floor]
			if !ok {
				return nil, fmt.Errorf("floor cable %s is not in the floor's cabling", f.floor.Cables[c.floor].Label())
			}
			removes = append(removes, item{i, bom.Change{Action: bom.ChangeRemove, Row: prior[i]}})
		case actMove:
			i, j := floorRow[c.floor], nextRow[c.fitted]
			was, now := prior[i], next[j]
			stays := map[string]bool{now.A.Endpoint(): true, now.B.Endpoint(): true}
			from := was.A
			if stays[was.A.Endpoint()] {
				from = was.B
			}
			moves = append(moves, item{j, bom.Change{Action: bom.ChangeMove, Row: now, From: bom.MoveFrom(from), Prior: was}})
		case actAdd:
			j := nextRow[c.fitted]
			adds = append(adds, item{j, bom.Change{Action: bom.ChangeAdd, Row: next[j]}})
		}
	}
	out := make([]bom.Change, 0, len(removes)+len(moves)+len(adds))
	for _, list := range [][]item{removes, moves, adds} {
		sort.SliceStable(list, func(a, b int) bool { return list[a].order < list[b].order })
		for _, it := range list {
			out = append(out, it.c)
		}
	}
	bom.AttachMates(out, prior, next)
	return out, nil
}
