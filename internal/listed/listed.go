// Package listed names the first items of a list and counts the rest, so that a message built
// from a list that grows with the input (hosts, devices, cables) stays a few lines long: the one
// wording of such lists ("a, b, c and 7 more"), as plan.MoreDetail is the one wording of the
// diagnostics a plan leaves out.
package listed

import (
	"fmt"
	"strings"
)

// Few is how many items a message names before it counts the rest; the plan shows as many
// problems of one cause (plan.MaxPerCause).
const Few = 5

// First joins the first n items with sep and counts the rest: "a, b and 3 more" (n = 2, sep
// ", "). n < 1 names one.
func First(items []string, n int, sep string) string {
	n = max(n, 1)
	if len(items) <= n {
		return strings.Join(items, sep)
	}
	return fmt.Sprintf("%s and %d more", strings.Join(items[:n], sep), len(items)-n)
}
