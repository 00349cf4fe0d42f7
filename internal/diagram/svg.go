package diagram

import (
	"fmt"
	"math"
	"strings"
)

// SVG geometry, in px. Text widths are estimated at 0.6 em per character (a sans-serif
// average), so the layout needs no font metrics and stays deterministic.
const (
	fontPx   = 12.0
	charPx   = fontPx * 0.6
	boxH     = 40.0
	boxPad   = 10.0
	minBoxW  = 64.0
	gapX     = 14.0
	rowPitch = 150.0
	margin   = 24.0
	leftPad  = 48.0 // room for the tier names left of the rows
	lineH    = 16.0
	// maxBundleLabels: above this many bundles their labels go into <title> tooltips only, and
	// the legend sums them per tier pair; a label on each of 512 leaf-spine bundles is noise.
	maxBundleLabels = 96
)

type placed struct{ x, y, w float64 } // top-left corner and width

func boxWidth(b Box) float64 {
	n := max(len([]rune(b.Label)), len([]rune(b.Detail)))
	return math.Max(minBoxW, float64(n)*charPx+2*boxPad)
}

func xmlEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&apos;").Replace(s)
}

func f1(v float64) string {
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.1f", v), "0"), ".")
}

// SVG lays the diagram out by tier (highest tier on top, node boxes at the bottom, each row
// centred, boxes in model order) and renders it as a standalone SVG 1.1 document (W3C Scalable
// Vector Graphics 1.1, Second Edition, 2011). The layers are the first step of the layered
// drawing of K. Sugiyama, S. Tagawa, M. Toda, "Methods for visual understanding of hierarchical
// system structures", IEEE Trans. SMC 11(2), 1981, doi:10.1109/TSMC.1981.4308636, with the
// fabric's tiers as the layers; the crossing reduction that follows there is left out, since
// graph order already groups each leaf under its pod.
func (d *Diagram) SVG() string {
	pos := make([]placed, len(d.Boxes))
	rowW := make([]float64, len(d.Rows))
	width := 0.0
	for t, row := range d.Rows {
		for k, i := range row {
			if k > 0 {
				rowW[t] += gapX
			}
			rowW[t] += boxWidth(d.Boxes[i])
		}
		width = math.Max(width, rowW[t])
	}
	// Tier-pair summary for the legend.
	type tp struct{ a, b int }
	type sum struct {
		bundles, links int
		gbps           float64
		uniform        bool
		first          Bundle
	}
	sums := map[tp]*sum{}
	var order []tp
	for _, bu := range d.Bundles {
		k := tp{d.Boxes[bu.A].Tier, d.Boxes[bu.B].Tier}
		if sums[k] == nil {
			sums[k] = &sum{uniform: true, first: bu}
			order = append(order, k)
		}
		s := sums[k]
		s.uniform = s.uniform && bu.Links == s.first.Links && bu.Gbps == s.first.Gbps
		s.bundles++
		s.links += bu.Links
		s.gbps += bu.Gbps
	}
	top := len(d.Rows) - 1
	legend := append([]string{}, d.Legend...)
	for _, k := range order {
		s := sums[k]
		if s.uniform {
			legend = append(legend, fmt.Sprintf("%s–%s: %d bundles of %s (%d links, %s Gb/s)", tierName(k.b), tierName(k.a), s.bundles, d.BundleLabel(s.first), s.links, gbps(s.gbps)))
		} else {
			legend = append(legend, fmt.Sprintf("%s–%s: %d bundles, %d links, %s Gb/s", tierName(k.b), tierName(k.a), s.bundles, s.links, gbps(s.gbps)))
		}
	}
	// A tier pair gets labels on its lines only when its bundles differ (uniform ones are
	// summed up in the legend) and there is room: no more bundles than its lower row has boxes,
	// each label narrower than the row's narrowest box. Otherwise labels would pile up; the
	// lines' tooltips still carry the numbers.
	labelled := map[tp]bool{}
	for _, k := range order {
		s := sums[k]
		room := math.Inf(1)
		for _, i := range d.Rows[k.b] {
			room = math.Min(room, boxWidth(d.Boxes[i])+gapX)
		}
		labelled[k] = !s.uniform && s.bundles <= len(d.Rows[k.b]) && s.bundles <= maxBundleLabels &&
			float64(len([]rune(d.BundleLabel(s.first))))*9*0.6 < room
	}
	header := margin + lineH*float64(1+len(legend)) + 10
	width = math.Max(width, float64(len([]rune(d.Title)))*charPx*1.3)
	for _, l := range legend {
		width = math.Max(width, float64(len([]rune(l)))*charPx)
	}
	width += 2*margin + leftPad
	height := header + float64(top)*rowPitch + boxH + margin
	for t, row := range d.Rows {
		x := leftPad + (width-leftPad-rowW[t])/2
		y := header + float64(top-t)*rowPitch
		for _, i := range row {
			w := boxWidth(d.Boxes[i])
			pos[i] = placed{x, y, w}
			x += w + gapX
		}
	}

	var b strings.Builder
	fmt.Fprintf(&b, `<?xml version="1.0" encoding="UTF-8"?>`+"\n")
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="%s" height="%s" viewBox="0 0 %s %s" font-family="Helvetica, Arial, sans-serif" font-size="%s">`+"\n",
		f1(width), f1(height), f1(width), f1(height), f1(fontPx))
	fmt.Fprintf(&b, `<title>%s</title>`+"\n", xmlEscape(d.Title))
	fmt.Fprintf(&b, `<rect x="0" y="0" width="%s" height="%s" fill="#ffffff"/>`+"\n", f1(width), f1(height))
	y := margin + lineH
	fmt.Fprintf(&b, `<text x="%s" y="%s" font-size="%s" font-weight="bold">%s</text>`+"\n", f1(margin), f1(y), f1(fontPx*1.3), xmlEscape(d.Title))
	for _, l := range legend {
		y += lineH
		fmt.Fprintf(&b, `<text x="%s" y="%s" fill="#333333">%s</text>`+"\n", f1(margin), f1(y), xmlEscape(l))
	}
	for t := top; t >= 0; t-- {
		if len(d.Rows[t]) == 0 {
			continue
		}
		ry := header + float64(top-t)*rowPitch + boxH/2 + 4
		fmt.Fprintf(&b, `<text x="4" y="%s" font-size="10" fill="#888888">%s</text>`+"\n", f1(ry), xmlEscape(tierName(t)))
	}

	b.WriteString(`<g id="bundles" fill="none">` + "\n")
	for _, bu := range d.Bundles {
		a, z := pos[bu.A], pos[bu.B]
		col := colLink
		if bu.Cut {
			col = colCut
		}
		sw := penWidth(bu.Links)
		label := d.BundleLabel(bu)
		ax, zx := a.x+a.w/2, z.x+z.w/2
		var mx, my float64
		if d.Boxes[bu.A].Tier == d.Boxes[bu.B].Tier {
			// Same tier (torus, dragonfly+ global links): an arc above the row.
			lift := 30 + math.Abs(zx-ax)/8
			mx, my = (ax+zx)/2, a.y-lift
			fmt.Fprintf(&b, `<path d="M %s %s Q %s %s %s %s" stroke="%s" stroke-width="%s"><title>%s</title></path>`+"\n",
				f1(ax), f1(a.y), f1(mx), f1(my), f1(zx), f1(z.y), col, f1(sw), xmlEscape(d.Boxes[bu.A].Label+" – "+d.Boxes[bu.B].Label+": "+label))
			my = a.y - lift/2
		} else {
			ay, zy := a.y+boxH, z.y
			mx, my = ax+(zx-ax)*0.72, ay+(zy-ay)*0.72
			fmt.Fprintf(&b, `<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s" stroke-width="%s"><title>%s</title></line>`+"\n",
				f1(ax), f1(ay), f1(zx), f1(zy), col, f1(sw), xmlEscape(d.Boxes[bu.A].Label+" – "+d.Boxes[bu.B].Label+": "+label))
		}
		if labelled[tp{d.Boxes[bu.A].Tier, d.Boxes[bu.B].Tier}] {
			fmt.Fprintf(&b, `<text x="%s" y="%s" font-size="9" text-anchor="middle" fill="%s" stroke="none">%s</text>`+"\n", f1(mx), f1(my), col, xmlEscape(label))
		}
	}
	b.WriteString("</g>\n")

	b.WriteString(`<g id="boxes">` + "\n")
	for i, bx := range d.Boxes {
		p := pos[i]
		fill := colSwitch
		if !bx.Switch {
			fill = colNodes
		}
		if bx.Over > 0 {
			fill = colOver
		}
		stroke, sw := "#4a5a6a", 1.0
		switch bx.Side {
		case 1:
			stroke, sw = colSideA, 2.5
		case 2:
			stroke, sw = colSideB, 2.5
		}
		cls := "nodes"
		if bx.Switch {
			cls = "switch"
		}
		fmt.Fprintf(&b, `<g class="%s" id="%s">`, cls, xmlEscape(bx.ID))
		fmt.Fprintf(&b, `<rect x="%s" y="%s" width="%s" height="%s" rx="6" fill="%s" stroke="%s" stroke-width="%s"/>`,
			f1(p.x), f1(p.y), f1(p.w), f1(boxH), fill, stroke, f1(sw))
		cx := p.x + p.w/2
		fmt.Fprintf(&b, `<text x="%s" y="%s" text-anchor="middle" font-weight="bold">%s</text>`, f1(cx), f1(p.y+16), xmlEscape(bx.Label))
		fmt.Fprintf(&b, `<text x="%s" y="%s" text-anchor="middle" font-size="10" fill="#333333">%s</text>`, f1(cx), f1(p.y+31), xmlEscape(bx.Detail))
		b.WriteString("</g>\n")
	}
	b.WriteString("</g>\n</svg>\n")
	return b.String()
}
