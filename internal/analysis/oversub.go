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
			switch {
			case od.Kind == fabric.KindHCA || (od.Level >= 0 && od.Level < dev.Level):
				sl.DownGbps += l.RateGbps
			case od.Level > dev.Level:
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
