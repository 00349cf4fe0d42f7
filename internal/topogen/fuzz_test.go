package topogen

import (
	"errors"
	"runtime"
	"testing"
)

// FuzzGenerate: any arguments are refused with an *Error or built into a design that has
// endpoints, never a panic, and within the memory budget (budget_test.go).
// builtinKinds are the kinds of this package, for the fuzzer's kind byte.
var builtinKinds = []string{KindFatTree, KindRailOptimized, KindDragonflyPlus, KindTorus3D}

func FuzzGenerate(f *testing.F) {
	f.Add(uint8(0), 64, 0, 0, 0, 0, 0, 0, 1.0, 0, 0)
	f.Add(uint8(1), 0, 4, 8, 0, 0, 0, 0, 3.0, 3, 0)
	f.Add(uint8(2), 0, 0, 0, 5, 9, 4, 8, 1.0, 0, 0)
	f.Add(uint8(3), 20, 0, 0, 0, 0, 0, 0, 1.0, 5, 4)
	f.Add(uint8(3), 0, 0, 0, 0, 0, 0, 0, 1.0, 100, 1)
	f.Fuzz(func(t *testing.T, kind uint8, nodes, sus, planned, groups, plannedGroups, leaves, spines int, over float64, dim, eps int) {
		p := Params{
			Kind: builtinKinds[int(kind)%len(builtinKinds)], Nodes: nodes, ScalableUnits: sus, Oversubscription: over,
			Groups: groups, PlannedGroups: plannedGroups, LeavesPerGroup: leaves, SpinesPerGroup: spines,
			TorusDims: [3]int{dim, dim/2 + 2, 3}, EndpointsPerSwitch: eps,
		}
		// Each kind gets the arguments it reads; the others are refused (TestArgumentsOfOtherKinds).
		switch p.Kind {
		case KindFatTree:
			p.PlannedNodes = planned
			p.ScalableUnits, p.Groups, p.PlannedGroups, p.LeavesPerGroup, p.SpinesPerGroup, p.TorusDims, p.EndpointsPerSwitch = 0, 0, 0, 0, 0, [3]int{}, 0
		case KindRailOptimized:
			p.PlannedScalableUnits = planned
			p.Groups, p.PlannedGroups, p.LeavesPerGroup, p.SpinesPerGroup, p.TorusDims, p.EndpointsPerSwitch = 0, 0, 0, 0, [3]int{}, 0
		case KindDragonflyPlus:
			p.ScalableUnits, p.TorusDims, p.EndpointsPerSwitch = 0, [3]int{}, 0
		case KindTorus3D:
			p.ScalableUnits, p.Oversubscription, p.Groups, p.PlannedGroups, p.LeavesPerGroup, p.SpinesPerGroup = 0, 0, 0, 0, 0, 0
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		d, err := Generate(p, cat)
		runtime.ReadMemStats(&after)
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > budgetBytes {
			t.Fatalf("%+v allocated %d MB", p, alloc>>20)
		}
		var e *Error
		switch {
		case err == nil && d.Summary.Endpoints == 0:
			t.Fatalf("%+v: a design without endpoints", p)
		case err != nil && !errors.As(err, &e):
			t.Fatalf("%+v: not a refusal: %v", p, err)
		}
	})
}
