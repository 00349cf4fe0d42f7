package fabric

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/agext/levenshtein"
)

// Merge merges explicit items into a generated spec by name: an item whose name the design
// generated replaces that item (keeping its place, so the generated order and keys stay), any
// other is added after the generated ones. Cables are matched by their key.
//
// The explicit item replaces the generated one whole. A GUID is the one thing it cannot leave to
// the design without saying so: the generated GUID goes with the generated item, and with it the
// switch's line in OpenSM's node-name-map and its root GUID (issue 22: an explicit leaf01 given
// only another role lost both). Build reports each such item (RuleMergeGUID) with the design's
// GUID to copy.
func (s *Spec) Merge(explicit *Spec) {
	gen := map[string]string{}
	for _, w := range s.Switches {
		gen[w.Name] = w.GUID
	}
	for _, w := range explicit.Switches {
		if g := gen[w.Name]; g != "" && w.GUID == "" {
			s.dropped = append(s.dropped, droppedGUID{MapSwitches, w.Name, g})
		}
	}
	clear(gen)
	for _, h := range s.HCAs {
		gen[h.Name] = h.PortGUID
	}
	for _, h := range explicit.HCAs {
		if g := gen[h.Name]; g != "" && h.PortGUID == "" {
			s.dropped = append(s.dropped, droppedGUID{MapHCAs, h.Name, g})
		}
	}
	s.Racks = mergeByName(s.Racks, explicit.Racks, func(r *Rack) string { return r.Name })
	s.Switches = mergeByName(s.Switches, explicit.Switches, func(w *Switch) string { return w.Name })
	s.Nodes = mergeByName(s.Nodes, explicit.Nodes, func(n *Node) string { return n.Name })
	s.HCAs = mergeByName(s.HCAs, explicit.HCAs, func(h *HCA) string { return h.Name })
	s.Cables = mergeByName(s.Cables, explicit.Cables, func(c *Cable) string { return c.Key })
	s.Partitions = mergeByName(s.Partitions, explicit.Partitions, func(p *Partition) string { return p.Name })
}

func mergeByName[T any](gen, explicit []T, name func(*T) string) []T {
	if len(explicit) == 0 {
		return gen
	}
	at := make(map[string]int, len(gen))
	for i := range gen {
		at[name(&gen[i])] = i
	}
	for i := range explicit {
		if j, ok := at[name(&explicit[i])]; ok {
			gen[j] = explicit[i]
		} else {
			gen = append(gen, explicit[i])
		}
	}
	return gen
}

// UnknownCable is an entry of RemoveCables that names no cable of the spec: Index is its
// position in the list, Message what is wrong and which cables are near.
type UnknownCable struct {
	Index   int
	Message string
}

// RemoveCables takes out the cables that labels name: a cable end label ("leaf01:33") or a full
// label ("a:1 <-> b:2", either order). Entries that match no cable are returned, each naming the
// cables nearest to what it asked for; the others are removed whatever the unknown ones.
func (s *Spec) RemoveCables(labels []string) []UnknownCable {
	if len(labels) == 0 {
		return nil
	}
	x := s.cableIndex()
	var unknown []UnknownCable
	drop := make([]bool, len(s.Cables))
	for k, entry := range labels {
		i, ok := x.find(entry)
		if ok {
			drop[i] = true
			continue
		}
		if a, b, full := SplitLabel(entry); full {
			unknown = append(unknown, UnknownCable{k, fmt.Sprintf("%q is not a cable of the design. %s", entry, s.nearbyCables(a, b))})
			continue
		}
		e := strings.TrimSpace(entry)
		unknown = append(unknown, UnknownCable{k, fmt.Sprintf("no cable of the design ends at %q. %s", entry, s.nearbyCables(e))})
	}
	kept := s.Cables[:0]
	for i, c := range s.Cables {
		if !drop[i] {
			kept = append(kept, c)
		}
	}
	s.Cables = kept
	return unknown
}

// FindCable returns the index of the cable an entry names: a cable end label ("leaf01:33") or a
// full label ("a:1 <-> b:2", either order), as RemoveCables reads them.
func (s *Spec) FindCable(entry string) (int, bool) { return s.cableIndex().find(entry) }

// cableIndex finds cables by their end labels and their full labels, both orders.
type cableIndex struct{ byEnd, byLabel map[string]int }

func (s *Spec) cableIndex() cableIndex {
	x := cableIndex{byEnd: make(map[string]int, 2*len(s.Cables)), byLabel: make(map[string]int, 2*len(s.Cables))}
	for i := range s.Cables {
		c := &s.Cables[i]
		x.byEnd[c.A.String()], x.byEnd[c.B.String()] = i, i
		x.byLabel[c.Label()], x.byLabel[CableLabel(c.B, c.A)] = i, i
	}
	return x
}

func (x cableIndex) find(entry string) (int, bool) {
	if a, b, full := SplitLabel(entry); full {
		i, ok := x.byLabel[JoinEnds(a, b)]
		return i, ok
	}
	i, ok := x.byEnd[strings.TrimSpace(entry)]
	return i, ok
}

// nearbyCables names the cables closest to the ends asked for: those of the same device on the
// nearest ports, or, for a device the spec lacks, the nearest device names (Levenshtein).
func (s *Spec) nearbyCables(ends ...string) string {
	var out []string
	for _, e := range ends {
		dev, portStr, ok := cutLast(e, ":")
		port, err := strconv.Atoi(portStr)
		if !ok || err != nil {
			out = append(out, fmt.Sprintf("%q is not a cable end label: write <device>:<port>, e.g. \"leaf01:33\".", e))
			continue
		}
		type cand struct {
			label string
			dist  int
		}
		var cands []cand
		devices := map[string]bool{}
		for i := range s.Cables {
			c := &s.Cables[i]
			for _, end := range []End{c.A, c.B} {
				devices[end.Device] = true
				if end.Device == dev {
					cands = append(cands, cand{c.Label(), absInt(end.Port - port)})
				}
			}
		}
		if len(cands) > 0 {
			sort.Slice(cands, func(i, j int) bool {
				if cands[i].dist != cands[j].dist {
					return cands[i].dist < cands[j].dist
				}
				return cands[i].label < cands[j].label
			})
			var ls []string
			for i := 0; i < len(cands) && i < 4; i++ {
				ls = append(ls, strconv.Quote(cands[i].label))
			}
			out = append(out, fmt.Sprintf("Generated cables of %s nearest port %d: %s.", dev, port, strings.Join(ls, ", ")))
			continue
		}
		names := make([]string, 0, len(devices))
		for d := range devices {
			names = append(names, d)
		}
		sort.Slice(names, func(i, j int) bool {
			di, dj := levenshtein.Distance(names[i], dev, nil), levenshtein.Distance(names[j], dev, nil)
			if di != dj {
				return di < dj
			}
			return names[i] < names[j]
		})
		if len(names) > 4 {
			names = names[:4]
		}
		q := make([]string, len(names))
		for i, n := range names {
			q[i] = strconv.Quote(n)
		}
		out = append(out, fmt.Sprintf("The design has no device %q; nearest names: %s.", dev, strings.Join(q, ", ")))
	}
	return strings.Join(out, " ")
}

func cutLast(s, sep string) (before, after string, ok bool) {
	i := strings.LastIndex(s, sep)
	if i < 0 {
		return s, "", false
	}
	return s[:i], s[i+len(sep):], true
}

func absInt(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
