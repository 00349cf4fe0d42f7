package demo

import (
	"fmt"
	"regexp"
	"strings"
)

// First light (docs/guides/bring-up.md): the technicians cable a wave and exchange two cables'
// ends on one leaf. The plan's first_light check (gpucluster_cable_validation on the live floor
// of gpucluster_discovered_fabric) gives one punch-list row for it, a swap naming both ports
// and where they are; after the swap back the check passes.

// nodeCable is a node-leaf cable of the design: the leaf's port and the HCA at its other end.
type nodeCable struct {
	leaf cableEnd
	hca  cableEnd // HCA by the design's name ("gpu007/mlx5_2")
}

// simID is the ibsim node id of a design device: an HCA "gpu007/mlx5_2" is "gpu007 mlx5_2"
// in the net file (opensm.ExpectedTopology), a switch its own name.
func simID(device string) string { return strings.Replace(device, "/", " ", 1) }

func (s *Session) firstLight() {
	x, y := s.facts.swap[0], s.facts.swap[1]
	s.say("First light: a wave is cabled with the ends of two cables exchanged on %s", x.leaf.Device)
	s.cable([2]cableEnd{x.leaf, y.hca}, [2]cableEnd{y.leaf, x.hca})
	s.detail("ibsim: %s:%d now holds %s's cable, %s:%d %s's", x.leaf.Device, x.leaf.Port, y.hca.Device, y.leaf.Device, y.leaf.Port, x.hca.Device)
	out, code := s.terraformEnv("plan-first-light", nil, "plan", "-detailed-exitcode")
	// Exit code 2 for the outputs alone: bad_cables now lists the two cables as down.
	s.expect((code == 0 || code == 2) && !strings.Contains(out, "Plan: "), "the plan ran, with no resource to change (exit code %d)", code)
	// The check's message, unwrapped: from its first line to the next diagnostic.
	f := flat(out)
	report := ""
	if i := strings.Index(f, "first light failed"); i >= 0 {
		report, _, _ = strings.Cut(f[i:], " Warning: ")
	}
	head, rows, _ := strings.Cut(report, " 1. ")
	s.detail("check first_light: %s", head)
	s.detail("  1. %s", rows)
	// The design's own count, from the first plan: every link but the two swapped is ok.
	n := s.facts.links
	counts := fmt.Sprintf("first light failed: %d of %d link(s) ok; 0 missing, 0 miswired, 2 swapped, 0 unexpected, 0 degraded, 0 noisy", n-2, n)
	s.expect(head == counts, "the first_light check counts %d of %d links ok and 2 swapped, nothing else", n-2, n)
	port := func(e cableEnd) string {
		return fmt.Sprintf(`rack\w+ U\d+ %s cage \d+ split \d \(%s:%d\)`, e.Device, e.Device, e.Port)
	}
	row := regexp.MustCompile(`^swap ` + port(x.leaf) + ` <-> ` + port(y.leaf) +
		regexp.QuoteMeta(fmt.Sprintf(": exchange the cables in %s:%d and %s:%d:", x.leaf.Device, x.leaf.Port, y.leaf.Device, y.leaf.Port)))
	s.expect(row.MatchString(rows) && !strings.Contains(rows, " 2. "),
		"its punch list is one swap row naming both ports of %s with rack, unit, cage and split", x.leaf.Device)

	s.say("The technician swaps them back; first light passes")
	s.cable([2]cableEnd{x.leaf, x.hca}, [2]cableEnd{y.leaf, y.hca})
	s.detail("ibsim: %s:%d and %s:%d hold their own cables again", x.leaf.Device, x.leaf.Port, y.leaf.Device, y.leaf.Port)
	out, code = s.terraformEnv("plan-first-light-fixed", nil, "plan", "-detailed-exitcode")
	s.expect(code == 0, "the plan ran, with nothing to change (exit code %d)", code)
	s.expect(!strings.Contains(out, `check "first_light"`) && !strings.Contains(out, "first light failed"),
		"the first_light check passes: every link of the design is ok")
}

// cable plugs each leaf port to an HCA port as a technician replugs them: ibsim's console
// Unlink of every leaf port first (an HCA port holds one cable), then Link.
func (s *Session) cable(links ...[2]cableEnd) {
	c := s.Cluster
	for _, l := range links {
		c.Sim.Console(s.t, fmt.Sprintf("Unlink %q[%d]", l[0].Device, l[0].Port))
	}
	for _, l := range links {
		cmd := fmt.Sprintf("Link %q[%d] %q[%d]", l[0].Device, l[0].Port, simID(l[1].Device), l[1].Port)
		if reply := c.Sim.Console(s.t, cmd); strings.Contains(reply, "can't") || strings.Contains(reply, "not found") || strings.Contains(reply, "bad") {
			s.t.Fatalf("demo: ibsim %s: %s", cmd, reply)
		}
	}
}
