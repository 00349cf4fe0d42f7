package firstlight

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// sortWalk orders rows as a technician walks the hall: by the first end's row of racks, rack
// (position, then name), unit, cage and split, then by the row's label, so the same floor always
// gives the same list.
func sortWalk(rows []Row) {
	sort.SliceStable(rows, func(i, j int) bool {
		a, b := rows[i].A, rows[j].A
		if a == b {
			return rows[i].Label < rows[j].Label
		}
		return walkLess(a, b)
	})
}

// walkLess orders two places by the technician's walk: row of racks, rack, unit, cage, split.
func walkLess(a, b Where) bool {
	switch {
	case a.Row != b.Row:
		return a.Row < b.Row
	case a.Pos != b.Pos:
		return a.Pos < b.Pos
	case a.Rack != b.Rack:
		return a.Rack < b.Rack
	case a.U != b.U:
		return a.U < b.U
	case a.Cage != b.Cage:
		return a.Cage < b.Cage
	case a.Split != b.Split:
		return a.Split < b.Split
	case a.Box != b.Box:
		return a.Box < b.Box
	}
	return a.End < b.End
}

// PunchListHeader is the header of PunchListCSV.
var PunchListHeader = []string{
	"action", "verdict", "label",
	"a", "a_row", "a_rack", "a_u", "a_cage", "a_split", "a_floor_name",
	"b", "b_row", "b_rack", "b_u", "b_cage", "b_split", "b_floor_name",
	"also_takes_down", "detail",
}

func num(n int) string {
	if n == 0 {
		return ""
	}
	return strconv.Itoa(n)
}

func whereFields(w Where) []string {
	return []string{w.End, num(w.Row), w.Rack, num(w.U), num(w.Cage), num(w.Split), w.Floor}
}

// PunchListCSV renders rows (already in walk order) as RFC 4180 text with PunchListHeader.
func PunchListCSV(rows []Row) (string, error) {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	if err := w.Write(PunchListHeader); err != nil {
		return "", err
	}
	for _, r := range rows {
		rec := []string{r.Action, r.Verdict, r.Label}
		rec = append(rec, whereFields(r.A)...)
		rec = append(rec, whereFields(r.B)...)
		rec = append(rec, strings.Join(r.Also, "; "), r.Detail)
		if err := w.Write(rec); err != nil {
			return "", err
		}
	}
	w.Flush()
	return buf.String(), w.Error()
}

// WhereText is a row's two ends as a technician walks to them.
func (r Row) WhereText() string {
	if r.B.End == "" {
		return r.A.String()
	}
	return r.A.String() + " <-> " + r.B.String()
}

// Line is a row in one line: "swap leaf01:1 <-> leaf01:2 (rack01 U40 ...): detail".
func (r Row) Line() string {
	s := fmt.Sprintf("%s %s: %s", r.Action, r.WhereText(), r.Detail)
	if len(r.Also) > 0 {
		s += "; also takes down " + shortList(r.Also, 3)
	}
	return s
}

// ReportRows is how many rows Report lists.
const ReportRows = 5

// Report is a short text for a check block's error_message: the counts, then the first rows.
func Report(s Summary, rows []Row) string {
	var b strings.Builder
	verdict := "passed"
	if !s.Passed() {
		verdict = "failed"
	}
	fmt.Fprintf(&b, "first light %s: %d of %d link(s) ok; %d missing, %d miswired, %d swapped, %d unexpected, %d degraded, %d noisy",
		verdict, s.OK, s.Expected, s.Missing, s.Miswired, s.Swapped, s.Unexpected, s.Degraded, s.Noisy)
	if s.OutsideScope > 0 {
		fmt.Fprintf(&b, "; %d link(s) outside the work order not judged", s.OutsideScope)
	}
	b.WriteString("\n")
	for i, r := range rows {
		if i == ReportRows {
			fmt.Fprintf(&b, "... and %d more row(s) in punch_list_csv\n", len(rows)-ReportRows)
			break
		}
		fmt.Fprintf(&b, "%d. %s\n", i+1, r.Line())
	}
	return b.String()
}
