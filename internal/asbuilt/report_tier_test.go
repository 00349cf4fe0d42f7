package asbuilt

import (
	"strings"
	"testing"
)

// Issue 32: a link between switches no node reaches (level -1) was named "level--1-1" in the
// fit's tiers and its summary. Every pair with an unreached end is TierUnreached; the named tiers
// stay as topogen names them, and a pair topogen does not name is "level-a-b" with both levels
// whole numbers.
func TestTierNameUnreached(t *testing.T) {
	for a := int8(-1); a <= 4; a++ {
		for b := int8(-1); b <= 4; b++ {
			got := tierName(a, b)
			switch {
			case a < 0 || b < 0:
				if got != TierUnreached {
					t.Errorf("tierName(%d, %d) = %q, want %q", a, b, got, TierUnreached)
				}
			case strings.Contains(got, "--"):
				t.Errorf("tierName(%d, %d) = %q", a, b, got)
			}
		}
	}
}
