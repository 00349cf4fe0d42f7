package diagram

import (
	"fmt"
	"strings"
)

// Colours shared by both renderings.
const (
	colSwitch = "#dbe9f6"
	colNodes  = "#e8f3e0"
	colOver   = "#f7b267"
	colCut    = "#d62828"
	colLink   = "#6c7a89"
	colSideA  = "#1d4e89"
	colSideB  = "#7b2cbf"
)

// dotID quotes an id for DOT: a double-quoted string with \" and \\ escaped (Graphviz DOT
// language, "ID": "any double-quoted string possibly containing escaped quotes").
func dotID(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(s) + `"`
}

// DOT renders the diagram for Graphviz: one rank per tier (rank=same subgraphs, the highest
// tier first so `dot` draws it on top), bundles as single edges labelled with count and
// capacity, the witness cut in red and oversubscribed switches in orange.
func (d *Diagram) DOT() string {
	var b strings.Builder
	b.WriteString("graph fabric {\n")
	title := d.Title
	if len(d.Legend) > 0 {
		title += "\n" + strings.Join(d.Legend, "\n")
	}
	fmt.Fprintf(&b, "  graph [rankdir=TB, splines=line, nodesep=0.25, ranksep=1.4, fontname=\"Helvetica\", labelloc=t, label=%s];\n", dotID(title))
	fmt.Fprintf(&b, "  node [shape=box, style=\"rounded,filled\", fontname=\"Helvetica\", fontsize=11, fillcolor=%q];\n", colSwitch)
	fmt.Fprintf(&b, "  edge [color=%q, fontname=\"Helvetica\", fontsize=9];\n", colLink)
	for tier := len(d.Rows) - 1; tier >= 0; tier-- {
		row := d.Rows[tier]
		if len(row) == 0 {
			continue
		}
		fmt.Fprintf(&b, "  subgraph %s {\n    rank=same;\n", dotID(tierName(tier)))
		for _, i := range row {
			bx := d.Boxes[i]
			attrs := []string{"label=" + dotID(bx.Label+"\n"+bx.Detail)}
			if !bx.Switch {
				attrs = append(attrs, fmt.Sprintf("fillcolor=%q", colNodes))
			}
			if bx.Over > 0 {
				attrs = append(attrs, fmt.Sprintf("fillcolor=%q", colOver))
			}
			switch bx.Side {
			case 1:
				attrs = append(attrs, fmt.Sprintf("color=%q, penwidth=2", colSideA))
			case 2:
				attrs = append(attrs, fmt.Sprintf("color=%q, penwidth=2", colSideB))
			}
			fmt.Fprintf(&b, "    %s [%s];\n", dotID(bx.ID), strings.Join(attrs, ", "))
		}
		b.WriteString("  }\n")
	}
	for _, bu := range d.Bundles {
		attrs := []string{"label=" + dotID(d.BundleLabel(bu)), fmt.Sprintf("penwidth=%.1f", penWidth(bu.Links))}
		if bu.Cut {
			attrs = append(attrs, fmt.Sprintf("color=%q", colCut), fmt.Sprintf("fontcolor=%q", colCut))
		}
		if d.Boxes[bu.A].Tier == d.Boxes[bu.B].Tier {
			attrs = append(attrs, "constraint=false")
		}
		fmt.Fprintf(&b, "  %s -- %s [%s];\n", dotID(d.Boxes[bu.A].ID), dotID(d.Boxes[bu.B].ID), strings.Join(attrs, ", "))
	}
	b.WriteString("}\n")
	return b.String()
}

func penWidth(links int) float64 {
	w := 1.0
	for n := links; n > 1; n /= 2 {
		w += 0.5
	}
	return min(w, 5)
}

// tierName names a row: nodes, leaf, spine, core, then "tier N".
func tierName(tier int) string {
	switch tier {
	case 0:
		return "nodes"
	case 1:
		return "leaf"
	case 2:
		return "spine"
	case 3:
		return "core"
	}
	return fmt.Sprintf("tier %d", tier)
}
