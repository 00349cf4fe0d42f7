package topogen

import (
	"math"
	"testing"
)

func TestArgRangeProblem(t *testing.T) {
	count := &Arg{Name: "node_count", Type: ArgInt, Least: 1, Default: "the kind's own size"}
	ratio := &Arg{Name: "oversubscription", Type: ArgFloat, Least: 1, Most: 8.5}
	for _, tc := range []struct {
		a    *Arg
		v    float64
		want string
	}{
		{count, 4, ""},
		{count, 1, ""},
		{count, 0, "node_count = 0 is out of range: it takes at least 1; leave it unset (null) for the default (the kind's own size)"},
		{count, 2.5, "node_count = 2.5 is not valid: it takes a whole number, at least 1; leave it unset (null) for the default (the kind's own size)"},
		{count, 1e21, ""},
		{ratio, 2.5, ""},
		{ratio, 8.5, ""},
		{ratio, 9, "oversubscription = 9 is out of range: it takes 1 to 8.5; leave it unset (null) for the default"},
		{ratio, 0.25, "oversubscription = 0.25 is out of range: it takes 1 to 8.5; leave it unset (null) for the default"},
		{ratio, math.NaN(), "oversubscription = NaN is not valid: it takes a number, 1 to 8.5; leave it unset (null) for the default"},
		{ratio, math.Inf(1), "oversubscription = +Inf is not valid: it takes a number, 1 to 8.5; leave it unset (null) for the default"},
	} {
		if got := tc.a.RangeProblem(tc.v); got != tc.want {
			t.Errorf("%s %v: %q, want %q", tc.a.Name, tc.v, got, tc.want)
		}
	}
}

func TestGroupDoc(t *testing.T) {
	if got, want := GroupDoc("limits"), "Arguments of limits."; got != want {
		t.Errorf("%q, want %q", got, want)
	}
	if got := GroupDoc("prefixes"); got[:14] != "Name prefixes." {
		t.Errorf("prefixes: %q", got)
	}
}

// TestArgGroups: every argument is in exactly one place, top-level or in its group, in the
// table's order.
func TestArgGroups(t *testing.T) {
	top, nested := ArgGroups()
	n := len(top)
	for _, a := range top {
		if a.Group != "" {
			t.Errorf("%s is top-level but in group %q", a.Path(), a.Group)
		}
	}
	for g, as := range nested {
		n += len(as)
		for _, a := range as {
			if a.Group != g {
				t.Errorf("%s is under %q", a.Path(), g)
			}
		}
	}
	if n != len(Args()) {
		t.Errorf("%d arguments placed, the table has %d", n, len(Args()))
	}
	if len(nested["prefixes"]) == 0 || top[0] != Args()[0] {
		t.Errorf("want the prefixes group and the table's first argument first; got %d prefixes, first %s", len(nested["prefixes"]), top[0].Path())
	}
}
