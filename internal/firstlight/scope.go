package firstlight

import (
	"encoding/csv"
	"fmt"
	"strconv"
	"strings"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/bom"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
)

// Scope is a work order's links (gpucluster_bom's cabling_changes_csv, bom.ChangesCSV): the
// cables it adds or moves, by their two ends, and every port it touches (those, the ports a move
// leaves and the cables it removes), where a cable left on the floor is this wave's business.
type Scope struct {
	links map[[2]string]bool
	ports map[string]bool
	Rows  int
}

func pair(a, b string) [2]string {
	if b < a {
		a, b = b, a
	}
	return [2]string{a, b}
}

// ParseScope reads a work order in bom.ChangesHeader's columns (by name, so a column added later
// does not shift them).
func ParseScope(text string) (*Scope, error) {
	r := csv.NewReader(strings.NewReader(text))
	recs, err := r.ReadAll()
	if err != nil {
		return nil, fmt.Errorf("the work order is not CSV: %w", err)
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("the work order is empty: it needs the header %q", strings.Join(bom.ChangesHeader, ","))
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	for _, need := range []string{"action", "from", "a_device", "a_hca", "a_port", "b_device", "b_hca", "b_port"} {
		if _, ok := col[need]; !ok {
			return nil, fmt.Errorf("the work order has no %q column: its header must be gpucluster_bom's cabling_changes_csv header (%s)",
				need, strings.Join(bom.ChangesHeader, ","))
		}
	}
	s := &Scope{links: map[[2]string]bool{}, ports: map[string]bool{}}
	end := func(rec []string, side string, line int) (string, error) {
		dev := rec[col[side+"_hca"]]
		if dev == "" {
			dev = rec[col[side+"_device"]]
		}
		p, err := strconv.Atoi(rec[col[side+"_port"]])
		if err != nil || dev == "" {
			return "", fmt.Errorf("work order line %d: %s end %q port %q is not a device and a port number", line, side, dev, rec[col[side+"_port"]])
		}
		return fabric.End{Device: dev, Port: p}.String(), nil
	}
	for i, rec := range recs[1:] {
		line := i + 2
		if len(rec) != len(recs[0]) {
			return nil, fmt.Errorf("work order line %d has %d fields where the header has %d", line, len(rec), len(recs[0]))
		}
		a, err := end(rec, "a", line)
		if err != nil {
			return nil, err
		}
		b, err := end(rec, "b", line)
		if err != nil {
			return nil, err
		}
		s.ports[a], s.ports[b] = true, true
		switch rec[col["action"]] {
		case bom.ChangeAdd, bom.ChangeMove:
			s.links[pair(a, b)] = true
		case bom.ChangeRemove:
		default:
			return nil, fmt.Errorf("work order line %d: action %q is none of add, move, remove", line, rec[col["action"]])
		}
		if from := rec[col["from"]]; from != "" {
			// "spine01:5 (3/1)": the end label before the port's printed name.
			s.ports[strings.TrimSpace(strings.SplitN(from, " (", 2)[0])] = true
		}
		s.Rows++
	}
	return s, nil
}

// applyScope drops the rows outside the scope and counts the summary: a design link is judged
// when the work order adds or moves it; a row is kept when it fixes a judged link or touches a
// port the work order touches (an unexpected cable on a port of this wave).
func (v *validation) applyScope() {
	in := make([]bool, len(v.dg.Links))
	for li := range v.dg.Links {
		a, b := v.ends(li)
		in[li] = v.in.Scope == nil || v.in.Scope.links[pair(a.String(), b.String())]
	}
	keep := v.rows[:0]
	for _, r := range v.rows {
		ok := v.in.Scope == nil
		for _, li := range r.links {
			ok = ok || in[li]
		}
		for _, e := range r.ends {
			ok = ok || v.in.Scope.ports[e.String()]
		}
		if ok {
			keep = append(keep, r)
			if r.Verdict == Unexpected {
				v.sum.Unexpected++
			}
		}
	}
	v.rows = keep
	for li := range v.dg.Links {
		if !in[li] {
			v.sum.OutsideScope++
			v.verdict[li] = ""
			continue
		}
		v.sum.Expected++
		switch v.verdict[li] {
		case OK:
			v.sum.OK++
		case Missing:
			v.sum.Missing++
		case Miswired:
			v.sum.Miswired++
		case Swapped:
			v.sum.Swapped++
		case Degraded:
			v.sum.Degraded++
		case Noisy:
			v.sum.Noisy++
		}
	}
}
