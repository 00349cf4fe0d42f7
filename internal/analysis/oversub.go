package analysis

import (
	"sort"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
)

// TierGroup is the tier name of the dragonfly+ group ratio in Result.Oversubscription.
const TierGroup = "group"

// oversubscription fills PerSwitch, Oversubscription, Worst and MaxOversubscription.
//
// A switch's oversubscription is the classic down:up ratio of a folded Clos (Leiserson, "Fat-Trees",
// IEEE Trans. Computers 1985; NVIDIA DGX SuperPOD RA-11333-001 speaks of "1:1" and "2:1" the same
// way): capacity of its links towards the endpoints (to a lower level; every HCA link counts as
// down) over the capacity of its links away from them (to a higher level). Links to a switch of
// the same level are lateral and count on neither side: they are the rings of a torus or the
// global links of a dragonfly, which a down:up ratio does not describe.
//
// For dragonfly+ (Shpiner et al., HiPINEB 2017) the ratio that matters is the group's: the
// endpoint capacity of a group over the capacity of the links leaving it, reported as tier
// "group". Its witness in Worst carries the group's name in Name and Group, Role "group", and the
// group's summed ports.
func oversubscription(t *topo, r *Result) {
	g := t.g
	r.Oversubscription = map[string]float64{}
	r.Worst = map[string]SwitchLoad{}
	r.PerSwitch = make([]SwitchLoad, 0, g.NumSwitches())
	for d := range g.Devices {
		dev := &g.Devices[d]
		if dev.Kind != fabric.KindSwitch {
			continue
		}
		sl := SwitchLoad{
			Name: dev.Name, Role: dev.Role, Tier: tierName(dev), Group: dev.Group, Level: dev.Level,
			Ports: dev.Ports,
		}
		for _, li := range g.LinksOf(int32(d)) {
			l := &g.Links[li]
			o := l.Other(int32(d))
			sl.UsedPorts++
			if o == int32(d) { // a loop is listed once per end: two ports, one link
				sl.LateralGbps += l.RateGbps / 2
				continue
			}
			od := &g.Devices[o]
			switch dir := direction(dev, od); {
			case dir < 0:
				sl.DownGbps += l.RateGbps
			case dir > 0:
				sl.UpGbps += l.RateGbps
			default:
				sl.LateralGbps += l.RateGbps
			}
		}
		sl.FreePorts = sl.Ports - sl.UsedPorts
		if sl.UpGbps > 0 {
			sl.Oversubscription = sl.DownGbps / sl.UpGbps
			worst(r, sl)
		}
		r.PerSwitch = append(r.PerSwitch, sl)
	}
	groupOversubscription(t, r)
	for _, v := range r.Oversubscription {
		if v > r.MaxOversubscription {
			r.MaxOversubscription = v
		}
	}
}

// roleRank orders the declared switch roles of a folded Clos; 0 for anything else.
func roleRank(d *fabric.Device) int {
	if !d.Declared {
		return 0
	}
	switch d.Role {
	case fabric.RoleLeaf:
		return 1
	case fabric.RoleSpine:
		return 2
	case fabric.RoleCore:
		return 3
	}
	return 0
}

// direction says whether the link from switch dev to device od goes down (-1, towards the
// endpoints), up (+1) or lateral (0). An HCA is always down. Between two switches whose roles
// are declared the roles decide: a leaf-to-leaf link is lateral however far the second leaf is
// from an HCA. That matters where levels mislead: a torus whose last switches have no node yet
// (they sit 2 or more links from an HCA, yet are torus routers like the others) and a leaf
// built for a scalable unit whose nodes are not racked yet (it hangs above its spines). Without
// declared roles the levels (links from the nearest HCA) decide.
func direction(dev, od *fabric.Device) int {
	if od.Kind == fabric.KindHCA {
		return -1
	}
	if a, b := roleRank(dev), roleRank(od); a > 0 && b > 0 {
		return b - a
	}
	switch {
	case od.Level >= 0 && od.Level < dev.Level:
		return -1
	case od.Level > dev.Level:
		return 1
	}
	return 0
}

// switchTiers is the number of switch tiers: the distinct declared roles when every linked
// switch declares one (a torus of leaves is 1 tier even where some switches have no endpoint
// yet), else the highest level.
func switchTiers(t *topo) int {
	seen := [4]bool{}
	n := 0
	for _, d := range t.dev {
		k := roleRank(&t.g.Devices[d])
		if k == 0 {
			return t.maxLevel
		}
		if !seen[k] {
			seen[k] = true
			n++
		}
	}
	if n == 0 {
		return t.maxLevel
	}
	return n
}

// worst records sl as its tier's witness when it is strictly worse than the one held, so the
// first switch in graph order wins a tie.
func worst(r *Result, sl SwitchLoad) {
	if w, ok := r.Worst[sl.Tier]; ok && w.Oversubscription >= sl.Oversubscription {
		return
	}
	r.Worst[sl.Tier] = sl
	r.Oversubscription[sl.Tier] = sl.Oversubscription
}

func tierName(d *fabric.Device) string {
	if d.Role != "" {
		return d.Role
	}
	return fabric.RoleLeaf
}

func groupOversubscription(t *topo, r *Result) {
	g := t.g
	type acc struct {
		sl    SwitchLoad
		first int
	}
	groups := map[string]*acc{}
	used := make([]int, t.n())
	for s, d := range t.dev {
		used[s] = int(g.AdjStart[d+1] - g.AdjStart[d])
	}
	for s, d := range t.dev {
		dev := &g.Devices[d]
		if dev.Group == "" {
			continue
		}
		a := groups[dev.Group]
		if a == nil {
			a = &acc{sl: SwitchLoad{Name: dev.Group, Role: TierGroup, Tier: TierGroup, Group: dev.Group, Level: dev.Level}, first: s}
			groups[dev.Group] = a
		}
		a.sl.Ports += dev.Ports
		a.sl.UsedPorts += used[s]
		a.sl.FreePorts += dev.Ports - used[s]
		a.sl.DownGbps += t.epGbps[s]
		for k := t.start[s]; k < t.start[s+1]; k++ {
			if g.Devices[t.dev[t.nbr[k]]].Group != dev.Group {
				a.sl.UpGbps += t.cap[k]
			} else {
				a.sl.LateralGbps += t.cap[k]
			}
		}
	}
	list := make([]*acc, 0, len(groups))
	for _, a := range groups {
		list = append(list, a)
	}
	sort.Slice(list, func(i, j int) bool { return list[i].first < list[j].first })
	for _, a := range list {
		if a.sl.UpGbps > 0 {
			a.sl.Oversubscription = a.sl.DownGbps / a.sl.UpGbps
			worst(r, a.sl)
		}
	}
}
