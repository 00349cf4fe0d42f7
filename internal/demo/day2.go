package demo

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Day 2 (docs/guides/day-2.md): a cable goes bad while the cluster runs. Its symbol errors climb
// (ibsim's PerformanceSet), the plan's check names it with its numbers and where it is; it fails
// (ibsim's Unlink) and is recorded in failed_cables while a partition change is applied; it is
// replaced (ReLink, counters cleared) and leaves the list.

// day2File is the variables file the day-2 steps write: failed_cables and tenant_a_nodes.
const day2File = "day2.auto.tfvars.json"

func (s *Session) day2() {
	c, cab := s.Cluster, s.facts.day2
	up := s.facts.uplink
	s.say("Day 2: the technician replugs %s:%d; symbol errors climb on %s", up.Device, up.Port, cab.label)
	reply := c.Sim.Console(s.t, fmt.Sprintf("ReLink %q[%d]", up.Device, up.Port))
	s.detail("ibsim: ReLink %q[%d] %s", up.Device, up.Port, strings.TrimSpace(reply))
	stop := s.climb(cab.a)
	out, code := s.terraformEnv("apply-day2-errors", nil, "apply", "-auto-approve")
	stop()
	s.expectApplied(out, code, "the apply succeeded: a bad cable is reported, it blocks nothing")
	for _, l := range lines(out, 3, cab.label+": suspect", "where: "+cab.label) {
		s.detail("check: %s", l)
	}
	out = flat(out)
	s.expect(regexp.MustCompile(regexp.QuoteMeta(cab.label)+`: suspect: `+regexp.QuoteMeta(fmt.Sprintf("%s:%d", cab.a.Device, cab.a.Port))+
		`: \d+ symbol errors in [\d.]+ s \([\d.]+/s\), BER [\d.e+-]+ at 400 Gb/s`).MatchString(out),
		"the check names %s by label with its symbol error rate and BER", cab.label)
	where := regexp.MustCompile(`where: ` + regexp.QuoteMeta(cab.label) + `: rack\w+ U\d+ ` + cab.a.Device + ` cage \d+ split \d \(port ` + strconv.Itoa(cab.a.Port) + `\)`)
	s.expect(where.MatchString(out) && strings.Contains(out, "replacing it also takes down"),
		"and says where it is (rack, unit, cage and split at both ends) and what goes down with it")

	s.say("It fails: recorded in failed_cables, and tenant A grows to gpu005 while it is down")
	reply = c.Sim.Console(s.t, fmt.Sprintf("Unlink %q[%d]", cab.a.Device, cab.a.Port))
	s.detail("ibsim: Unlink %q[%d] %s", cab.a.Device, cab.a.Port, strings.TrimSpace(reply))
	c.Sim.Console(s.t, fmt.Sprintf("PerformanceSet %q[%d] PortCounters.LinkDownedCounter=1", cab.a.Device, cab.a.Port))
	since := time.Now().UTC().Format("2006-01-02")
	s.writeJSON(day2File, map[string]any{
		"failed_cables":  []map[string]string{{"cable": cab.label, "reason": "symbol errors, then down", "since": since}},
		"tenant_a_nodes": []string{"gpu001", "gpu002", "gpu003", "gpu004", "gpu005"},
	}, 0o644)
	s.detail("%s: failed_cables = [{ cable = %q, reason = \"symbol errors, then down\", since = %q }]", day2File, cab.label, since)
	out, code = s.terraformEnv("apply-day2-down", s.providerLog("apply-day2-down"), "apply", "-auto-approve")
	s.expectApplied(out, code, "the partition change applied while the cable is down")
	s.progress("apply-day2-down")
	keys := s.pkeys("gpu005/mlx5_1")
	s.expect(slices.Contains(keys, "0x8010"), "gpu005/mlx5_1 is in tenant A's partition now (P_Keys %s)", strings.Join(keys, " "))
	f := flat(out)
	if m := regexp.MustCompile(`degraded: ` + regexp.QuoteMeta(cab.label) + ` failed .*?full bisection \([^)]*\)`).FindString(f); m != "" {
		s.detail("plan: %s", m)
	}
	s.expect(strings.Count(f, cab.label+" failed (symbol errors, then down)") == 1 && strings.Contains(f, "12400 Gb/s of 12800 Gb/s"),
		"the plan warns once that %s failed, with the fabric's degraded numbers", cab.label)
	s.expect(!strings.Contains(out, "Check block assertion failed"), "no check complains: the cable is recorded")
	bad := s.badCables()
	s.detail("bad_cables[%q] = %q", cab.label, bad[cab.label])
	s.expect(strings.HasPrefix(bad[cab.label], "down: ") && strings.Contains(bad[cab.label], "LinkDownedCounter 1") &&
		strings.Contains(bad[cab.label], "last read up at"),
		"the counters say down, with the evidence: the LinkDownedCounter and the rates last read while it was up")

	s.say("Replaced: link up, counters cleared; the cable leaves failed_cables")
	reply = c.Sim.Console(s.t, fmt.Sprintf("ReLink %q[%d]", cab.a.Device, cab.a.Port))
	s.detail("ibsim: ReLink %q[%d] %s", cab.a.Device, cab.a.Port, strings.TrimSpace(reply))
	for _, e := range []cableEnd{cab.a, cab.b} {
		s.clearCounters(e)
	}
	s.writeJSON(day2File, map[string]any{"failed_cables": []any{}, "tenant_a_nodes": []string{"gpu001", "gpu002", "gpu003", "gpu004", "gpu005"}}, 0o644)
	out, code = s.terraformEnv("apply-day2-replaced", nil, "apply", "-auto-approve")
	s.expectApplied(out, code, "the apply succeeded")
	s.expect(!strings.Contains(out, "Check block assertion failed") && len(s.badCables()) == 0,
		"every cable is ok again and no check complains")
}

// expectApplied is expect for an apply, quoting the end of its output when it failed.
func (s *Session) expectApplied(out string, code int, what string) {
	s.t.Helper()
	if code != 0 {
		s.t.Fatalf("demo step %d: expected %s; terraform apply exited %d:\n%s", s.step, what, code, tail(out, 40))
	}
	s.detail("ok: %s (exit code 0)", what)
}

// climb makes the SymbolErrorCounter of e climb, 25 every 200 ms, until the returned func is
// called.
func (s *Session) climb(e cableEnd) (stop func()) {
	done, quit := make(chan struct{}), make(chan struct{})
	var once sync.Once
	go func() {
		defer close(done)
		for v := 25; ; v += 25 {
			select {
			case <-quit:
				return
			case <-time.After(200 * time.Millisecond):
			}
			s.Cluster.Sim.Console(s.t, fmt.Sprintf("PerformanceSet %q[%d] PortCounters.SymbolErrorCounter=%d", e.Device, e.Port, v))
		}
	}()
	s.detail("ibsim: PerformanceSet %q[%d] PortCounters.SymbolErrorCounter climbing by 25 every 200 ms", e.Device, e.Port)
	return func() { once.Do(func() { close(quit); <-done }) }
}

// clearCounters resets a switch port's counters as a technician does after a swap (perfquery -R).
func (s *Session) clearCounters(e cableEnd) {
	s.t.Helper()
	lid, ok := s.Cluster.Sim.LIDs(s.t)[strings.ToLower(s.facts.guids[e.Device])]
	if !ok {
		s.t.Fatalf("demo: OpenSM gave no LID to %s (%s)", e.Device, s.facts.guids[e.Device])
	}
	if res, err := s.Cluster.Sim.Run(s.t, smAt, 20*time.Second, "perfquery", "-R", strconv.Itoa(lid), strconv.Itoa(e.Port)); err != nil {
		s.t.Fatalf("demo: perfquery -R %d %d: %v %s", lid, e.Port, err, res.Stderr)
	}
	s.detail("perfquery -R %d %d (%s:%d): counters cleared", lid, e.Port, e.Device, e.Port)
}

// badCables is the example's bad_cables output: cable label -> the verdict's reason.
func (s *Session) badCables() map[string]string {
	s.t.Helper()
	out := s.terraform("output-bad-cables", "output", "-json", "bad_cables")
	var m map[string]string
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		s.t.Fatalf("demo: terraform output bad_cables: %v: %s", err, out)
	}
	return m
}

// flat is terraform's output with diagnostics unwrapped: the box-drawing gutter gone and every run
// of white space (line breaks included) one space, so a message can be matched whole wherever
// terraform wrapped it.
func flat(out string) string {
	out = regexp.MustCompile(`(?m)^[│╷╵]\s?`).ReplaceAllString(out, "")
	return strings.Join(strings.Fields(out), " ")
}
