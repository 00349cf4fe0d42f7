package plan

import (
	"fmt"
	"sort"
	"strings"

	"github.com/pmezard/go-difflib/difflib"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/asbuilt"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/bom"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/opensm"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/policy"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/topogen"
)

// The plan summary: what a change of a fabric adds, removes and rewires per tier, what to buy,
// how each OpenSM file changes, and the policy verdict. It says what changes in counts
// (fabric.Compare, bom.Order) and bounded diffs, so it stays a few screens long at any fabric
// size, and its lines have a fixed form that examples/ci/plan-gate.sh reads:
//
//	Devices: +64 node, +512 hca, +16 leaf
//	Links node-leaf: 512 added, 0 removed, 0 rewired
//	  e.g. added gpu064/mlx5_0:1 - leaf17:1
//	Floor leaf-spine: 256 kept, 256 moved, 768 added, 0 removed
//	Not on the floor: 16 device(s): leaf17, leaf18, leaf19, leaf20, leaf21, and 11 more
//	Buy: +16 switch 920-9B210-00FN-0M0 (32 -> 48) USD 1,360,000.00
//	Order total (priced SKUs): USD 1,360,000.00; 2 SKUs unpriced
//	OpenSM files: partitions.conf
//	  --- partitions.conf (applied)
//	  +++ partitions.conf (planned)
//	  @@ -2,0 +3 @@
//	  +fast=0x0002, rate=7 : 0x0002c90300a10001=full ;
//	Policy: pass | Policy: FAIL, 2 violations (oversubscription, bisection)

// SummaryTitle starts the title of the summary; the CI script selects on it.
const SummaryTitle = "Fabric plan summary"

// Prior is the fabric as the prior state left it. Its graph, BOM and files are rebuilt from the
// prior state's own inputs (not read back from its outputs), so the comparison is exact down to
// each port and each line; Digests and Lines are what the state holds.
type Prior struct {
	Graph *fabric.Graph // nil when the prior inputs no longer build: everything counts as added
	BOM   bom.BOM
	// Files are the prior inputs rendered; nil when they were not. A file whose digest here
	// differs from Digests was changed on the host by hand (refresh read its digest there).
	Files opensm.Files
	// Digests are the state's `opensm`; DigestsKnown is false when they are unknown.
	Digests      map[string]opensm.Digest
	DigestsKnown bool
	Lines        []string // the state's analysis.violations
}

// Rebuild sets the prior graph, BOM and files from f, the fabric of the prior state's own
// inputs (nil when they no longer build: everything then counts as added), and sm, its OpenSM
// settings (nil when they are not known: no files). A prior that is next's fabric (the same
// inputs, every plan of an unchanged fabric) takes next's BOM, and next's files when sameSM says
// the settings are next's too, rather than build them twice.
func (p *Prior) Rebuild(cat *catalog.Catalog, f *Fabric, sm *OpenSMSettings, sameSM bool, next *Outcome) {
	if f == nil {
		return
	}
	p.Graph = f.Graph
	if f == next.Fabric {
		p.BOM = next.BOM
	} else {
		p.BOM = Price(cat, f)
	}
	if sm == nil {
		return
	}
	if f == next.Fabric && sameSM && next.OpenSM != nil {
		p.Files = next.OpenSM.Files
		return
	}
	if rendered, _ := Render(f, *sm); rendered != nil {
		p.Files = rendered.Files
	}
}

// MaxDiffLines bounds each file's diff in the summary; the rest is counted.
const MaxDiffLines = 24

// Summarize writes the summary of the change from prior (nil: the fabric is created) to next. It
// returns "" when the plan changes nothing the summary speaks of, so a plan Terraform calls
// "No changes" prints nothing. On a floor (next.Fit), the Buy lines are what the design needs
// beyond the floor (bom.Beyond: "(on the floor -> in the design)"), whatever the prior state,
// and the devices the floor lacks are named.
func Summarize(prior *Prior, next *Outcome) string {
	create := prior == nil
	if create {
		prior = &Prior{}
	}
	d := fabric.Compare(prior.Graph, next.Graph)
	lines, total := bom.Order(prior.BOM, next.BOM)
	buys := len(lines) > 0 // the plan changes what the fabric needs
	// On a floor, what to buy is what the design needs beyond the floor, whatever the prior
	// state said (an adoption has none, and would buy the floor again).
	beyond := next.BOM.BeyondFloor
	if beyond != nil {
		lines, total = beyondLines(beyond)
	}
	var files []string
	var diffs []string
	if !create && prior.DigestsKnown && next.OpenSM != nil {
		files, diffs = fileChanges(prior, next.OpenSM.Files)
	}
	// The verdict by its lines, not the whole analysis: numbers read back from state need not
	// compare equal bit for bit.
	verdictChanged := !create && !equalLines(prior.Lines, Lines(next.Violations))
	if !create && d.Empty() && !buys && len(files) == 0 && !verdictChanged {
		return ""
	}
	var b strings.Builder
	if create {
		b.WriteString("New fabric, totals:\n")
	}
	writeDevices(&b, d)
	writeLinks(&b, d, create)
	if next.Fit != nil {
		writeFloor(&b, &next.Fit.Report)
	}
	if beyond != nil {
		writeAbsent(&b, beyond.Absent)
	}
	writeOrder(&b, lines, total, create && beyond == nil)
	if len(files) > 0 {
		b.WriteString("OpenSM files: " + strings.Join(files, ", ") + "\n")
		for _, df := range diffs {
			b.WriteString(df)
		}
	}
	b.WriteString(Verdict(next.Violations, next.UnreadPolicyFiles))
	return b.String()
}

func writeDevices(b *strings.Builder, d fabric.Diff) {
	if len(d.Devices) == 0 {
		return
	}
	parts := make([]string, 0, len(d.Devices))
	for _, c := range d.Devices {
		if c.Added > 0 {
			parts = append(parts, fmt.Sprintf("+%s %s", bom.Count(c.Added), c.Role))
		}
		if c.Removed > 0 {
			parts = append(parts, fmt.Sprintf("-%s %s", bom.Count(c.Removed), c.Role))
		}
	}
	b.WriteString("Devices: " + strings.Join(parts, ", ") + "\n")
}

func writeLinks(b *strings.Builder, d fabric.Diff, create bool) {
	for _, t := range d.Links {
		fmt.Fprintf(b, "Links %s: %s added, %s removed, %s rewired\n", t.Tier, bom.Count(t.Added), bom.Count(t.Removed), bom.Count(t.Rewired))
		var eg []string // one per line, so Terraform does not wrap them
		for _, e := range t.RewiredExamples {
			eg = append(eg, "rewired "+e)
		}
		for _, e := range t.RemovedExamples {
			eg = append(eg, "removed "+e)
		}
		if len(t.AddedExamples) > 0 && !create {
			eg = append(eg, "added "+t.AddedExamples[0])
		}
		for _, e := range eg {
			b.WriteString("  e.g. " + e + "\n")
		}
	}
}

// writeFloor says, per tier, what the design fitted to the floor keeps of the floor's cables on
// their ports and what it moves, adds and removes (asbuilt.Report), and which floor devices it
// has no place for: the work on the floor, beside the change of the declaration above it.
func writeFloor(b *strings.Builder, r *asbuilt.Report) {
	tiers := make([]string, 0, len(r.Tiers))
	for t := range r.Tiers {
		tiers = append(tiers, t)
	}
	sort.Slice(tiers, func(i, j int) bool {
		return tierRank(tiers[i]) < tierRank(tiers[j]) || (tierRank(tiers[i]) == tierRank(tiers[j]) && tiers[i] < tiers[j])
	})
	for _, t := range tiers {
		c := r.Tiers[t]
		fmt.Fprintf(b, "Floor %s: %s kept, %s moved, %s added, %s removed\n", t, bom.Count(c.Kept), bom.Count(c.Moved), bom.Count(c.Added), bom.Count(c.Removed))
	}
	// The fit's notes (which floor rail takes which design rail, where the bound is not shown
	// reached) belong with the counts, in the summary a change prints, not in every plan.
	for _, n := range r.Notes {
		b.WriteString("Floor note: " + n + "\n")
	}
	if n := len(r.DevicesUnmatched); n > 0 {
		shown := r.DevicesUnmatched
		if n > 5 {
			shown = append(shown[:5:5], fmt.Sprintf("and %d more", n-5))
		}
		fmt.Fprintf(b, "Floor devices without a place in the design: %s\n", strings.Join(shown, ", "))
	}
}

// beyondLines are the lines of a purchase order from the floor's part of a design to the whole
// design (bom.Beyond), as bom.Order writes them: Before on the floor, After in the design.
func beyondLines(b *bom.Beyond) (lines []bom.Line, total float64) {
	for _, it := range b.Items {
		l := bom.Line{SKU: it.SKU, Description: it.Description, Category: it.Category, Before: it.OnFloor, After: it.Needed, UnitPrice: it.UnitPrice}
		if it.UnitPrice != nil {
			c := *it.UnitPrice * float64(it.ToBuy)
			l.Cost = &c
			total += c
		}
		lines = append(lines, l)
	}
	return lines, total
}

// writeAbsent names the design's switches and nodes the floor does not have: absent from the
// floor, so bought (the Buy lines count them), never taken for floor devices.
func writeAbsent(b *strings.Builder, absent []string) {
	if len(absent) == 0 {
		return
	}
	shown := absent
	if len(shown) > 5 {
		shown = append(shown[:5:5], fmt.Sprintf("and %d more", len(absent)-5))
	}
	fmt.Fprintf(b, "Not on the floor: %s device(s): %s\n", bom.Count(len(absent)), strings.Join(shown, ", "))
}

// tierRank orders link tiers bottom up, as the generator names them.
func tierRank(t string) int {
	for i, n := range []string{topogen.TierNodeLeaf, topogen.TierApplianceLeaf, topogen.TierLeafSpine, topogen.TierSpineCore, topogen.TierGlobal, topogen.TierTorus} {
		if t == n {
			return i
		}
	}
	return 99
}

func writeOrder(b *strings.Builder, order []bom.Line, total float64, create bool) {
	unpriced := 0
	for _, l := range order {
		verb := "Buy"
		if l.Delta() < 0 {
			verb = "Free"
		}
		cost := "unpriced"
		if l.Cost != nil {
			cost = USD(*l.Cost)
		} else {
			unpriced++
		}
		// The category, not the description: Terraform wraps diagnostics at 78 columns, and the
		// descriptions of one product line differ only at their end (the length of a fiber).
		if create {
			fmt.Fprintf(b, "%s: %s %s %s %s\n", verb, bom.Count(l.After), l.Category, l.SKU, cost)
			continue
		}
		delta := "+" + bom.Count(l.Delta())
		if l.Delta() < 0 {
			delta = bom.Count(l.Delta())
		}
		fmt.Fprintf(b, "%s: %s %s %s (%s -> %s) %s\n", verb, delta, l.Category, l.SKU, bom.Count(l.Before), bom.Count(l.After), cost)
	}
	if len(order) > 0 {
		fmt.Fprintf(b, "Order total (priced SKUs): %s", USD(total))
		if unpriced > 0 {
			fmt.Fprintf(b, "; %d SKU%s unpriced", unpriced, plural(unpriced))
		}
		b.WriteString("\n")
	}
}

// fileChanges lists, in push order, the OpenSM files whose digest the plan changes (settings or
// inventory that change the files, or drift on the host) and a bounded unified diff of each.
func fileChanges(prior *Prior, next opensm.Files) (names, diffs []string) {
	nextDigests := opensm.Digests(next)
	for _, n := range opensm.FileNames {
		was, had := prior.Digests[n]
		now, has := nextDigests[n]
		if had == has && was == now {
			continue
		}
		names = append(names, n)
		text, rendered := prior.Files[n]
		switch {
		case had && (!rendered || opensm.DigestOf(text) != was):
			diffs = append(diffs, fmt.Sprintf("  %s: changed on the host since the last apply (its text is not in state); the apply writes the planned file back\n", n))
		default:
			diffs = append(diffs, boundedDiff(n, text, next[n]))
		}
	}
	return names, diffs
}

// boundedDiff is the unified diff of one file (one line of context), indented under the
// "OpenSM files" line, cut at MaxDiffLines with a count of the lines left out.
func boundedDiff(name, before, after string) string {
	text, err := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
		A: splitLines(before), B: splitLines(after),
		FromFile: name + " (applied)", ToFile: name + " (planned)", Context: 1,
	})
	if err != nil || text == "" {
		return ""
	}
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	var b strings.Builder
	shown := lines
	if len(lines) > MaxDiffLines {
		shown = lines[:MaxDiffLines]
	}
	for _, l := range shown {
		b.WriteString("  " + strings.TrimRight(l, "\r") + "\n")
	}
	if left := len(lines) - len(shown); left > 0 {
		fmt.Fprintf(&b, "  ... %d more line%s of this diff not shown (gpucluster_opensm_files has the whole file)\n", left, plural(left))
	}
	return b.String()
}

// splitLines cuts text into lines that keep their newline, as the diff wants them; a last line
// without one gets it, and an empty file has no line.
func splitLines(text string) []string {
	lines := strings.SplitAfter(text, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	} else {
		lines[len(lines)-1] += "\n"
	}
	return lines
}

// Verdict is the policy line: pass, or FAIL with the number of violations and their rules; with
// policy files that could not be read (unread), never a plain pass, for their rules did not judge.
func Verdict(vs []policy.Violation, unread int) string {
	var rules []string
	seen := map[string]bool{}
	errs, others := 0, 0
	for _, v := range vs {
		if v.Severity != policy.Error {
			others++
			continue
		}
		errs++
		if !seen[v.Rule] {
			seen[v.Rule] = true
			rules = append(rules, v.Rule)
		}
	}
	var s string
	switch {
	case errs == 0 && unread > 0:
		s = "Policy: not judged in full"
	case errs == 0:
		s = "Policy: pass"
	default:
		sort.Strings(rules)
		if len(rules) > 4 {
			rules = append(rules[:4], "...")
		}
		s = fmt.Sprintf("Policy: FAIL, %d violation%s (%s)", errs, plural(errs), strings.Join(rules, ", "))
	}
	if others > 0 {
		s += fmt.Sprintf(", %d warning%s", others, plural(others))
	}
	if unread > 0 {
		its := "their"
		if unread == 1 {
			its = "its"
		}
		s += fmt.Sprintf("; %d policy file%s could not be read, so %s rules did not judge", unread, plural(unread), its)
	}
	return s
}

func equalLines(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// USD writes an amount as the summary and the BOM's Markdown do: "USD 1,360,000.00",
// "-USD 170,000.50" (bom.Money writes the number).
func USD(v float64) string {
	if v < 0 {
		return "-USD " + bom.Money(-v)
	}
	return "USD " + bom.Money(v)
}
