package topogen

import (
	"fmt"
	"math"
	"strconv"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
)

// Spine headroom. The origin document's rule, "add 30% more spine capacity than your bandwidth
// calculation says" (fabric.DefaultSpineHeadroom), is judged by the policy on every fabric
// (policy's spine-headroom rule: the top tier's switches each keep that share of their ports
// free). A generated design says in its notes what the policy will say: the worst top-tier
// switch's free ports, counted from the design's cables exactly as the analysis counts them,
// and, when it is short, the planned size that would keep the share (the same advice reaches
// the policy's message through fabric.Plan.Advice).

// headroom notes the top tier's free ports and, when they fall short, the advice; it sets
// d.headroomAdvice for FabricSpec. advise, when not nil, names the argument setting that keeps
// share free at the size built now ("" when none does).
func (g *gen) headroom(d *Design, advise func(share float64) string) {
	top := ""
	for _, role := range []string{fabric.RoleCore, fabric.RoleSpine} {
		if d.Summary.SwitchesByRole[role] > 0 {
			top = role
			break
		}
	}
	if top == "" {
		return // one tier: no spine tier to keep free
	}
	used := make(map[string]int, d.Summary.SwitchesByRole[top])
	for _, s := range d.SwitchList {
		if s.Role == top {
			used[s.Name] = 0
		}
	}
	for _, c := range d.CableList {
		for _, e := range []fabric.End{c.A, c.B} {
			if n, ok := used[e.Device]; ok {
				used[e.Device] = n + 1
			}
		}
	}
	worst, most := "", -1
	for _, s := range d.SwitchList { // in list order, so the witness is the first of the worst
		if n, ok := used[s.Name]; ok && n > most {
			worst, most = s.Name, n
		}
	}
	r, share := g.r, fabric.DefaultSpineHeadroom
	free := r - most
	need := int(math.Ceil(share*float64(r) - 1e-9))
	if keepsFree(free, r, share) {
		d.Notes = append(d.Notes, fmt.Sprintf("spine headroom: every top-tier %s keeps at least %d of %d ports free (%s), within the %s (%d of %d) the spine-headroom rule keeps for growth",
			top, free, r, percentText(float64(free)/float64(r)), percentText(share), need, r))
		return
	}
	// The generator does not see the fabric's policy, so the note says what the default
	// judges and how a policy that asks less (spine_headroom = 0) turns it off, rather than
	// claim what the fabric's own policy will say.
	msg := fmt.Sprintf("spine headroom: top tier %s has %s free ports at %s (%d of %d free); the origin document's rule keeps %s (%d of %d) free on every top-tier switch for growth, so a fabric of this design gets a spine-headroom warning under the default policy (policy.spine_headroom = %s), none where its policy sets spine_headroom = 0",
		top, percentText(float64(free)/float64(r)), worst, free, r, percentText(share), need, r, strconv.FormatFloat(share, 'f', -1, 64))
	if advise != nil {
		if a := advise(share); a != "" {
			d.headroomAdvice = a
			msg += "; " + a
		}
	}
	d.Notes = append(d.Notes, msg)
}

// percentText writes a share as the policy does: a percentage with at most one decimal.
func percentText(x float64) string {
	return strconv.FormatFloat(math.Round(x*1000)/10, 'f', -1, 64) + "%"
}

// keepsFree reports whether free of r ports is at least share of them, compared as the policy
// compares (policy's below: short when free < share*r, up to float rounding).
func keepsFree(free, r int, share float64) bool {
	return float64(free) >= share*float64(r)*(1-1e-9)-1e-12
}
