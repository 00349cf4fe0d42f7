package listed

import (
	"fmt"
	"strings"
	"testing"
)

// TestFirst: every length around the cap, against the items counted one by one: the first n are
// named in order, and the figure is how many were not.
func TestFirst(t *testing.T) {
	for total := 0; total <= 12; total++ {
		items := make([]string, total)
		for i := range items {
			items[i] = fmt.Sprintf("x%02d", i)
		}
		got := First(items, Few, ", ")
		named, left := 0, 0
		for _, it := range items {
			if strings.Contains(got, it) {
				named++
			}
		}
		if _, err := fmt.Sscanf(got[strings.LastIndex(got, " and ")+1:], "and %d more", &left); err != nil && total > Few {
			t.Fatalf("%d items: %q counts nothing", total, got)
		}
		if named != min(total, Few) || named+left != total {
			t.Errorf("%d items: %q names %d and counts %d", total, got, named, left)
		}
	}
}
