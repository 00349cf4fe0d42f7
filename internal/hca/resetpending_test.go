package hca

import (
	"reflect"
	"strings"
	"testing"
)

// pendingState is the GPU node's card with LINK_TYPE_P1 set to IB but not loaded yet, and the
// reset levels the card reports (nil: the double's default, 3 and 4).
func pendingState(levels []int) *dState {
	st := gpuNodeState()
	st.Devices[0].Params[0].Current, st.Devices[0].Params[0].Next = "ETH(2)", "IB(1)"
	st.Devices[0].ResetLevels = levels
	return st
}

// TestResetPending walks the cases: nothing pending, the default level, a level asked for, only
// a reboot level, no level at all, a level the card refuses, and firmware without Current values.
// Each is checked on the commands run and on the card's state after, not on the result alone.
func TestResetPending(t *testing.T) {
	const q, rq = "mlxconfig -d " + dev + " -e query", "mlxfwreset -d " + dev + " query"
	cases := []struct {
		name      string
		state     *dState
		opts      ResetPendingOptions
		cmds      []string
		reboot    bool
		loaded    bool   // LINK_TYPE_P1 is Current IB after
		errSubstr string // "" for no error
	}{
		{name: "nothing pending", state: gpuNodeState(), cmds: []string{q}},
		{name: "default level", state: pendingState(nil), loaded: true,
			cmds: []string{q, rq, "mlxfwreset -d " + dev + " -l 3 -y reset", q}},
		{name: "live patch asked", state: pendingState([]int{0, 3, 4}), opts: ResetPendingOptions{Level: 0, LevelSet: true}, loaded: true,
			cmds: []string{q, rq, "mlxfwreset -d " + dev + " -l 0 -y reset", q}},
		{name: "only a reboot", state: pendingState([]int{4}), reboot: true, cmds: []string{q, rq}},
		{name: "no level", state: pendingState([]int{}), reboot: true, cmds: []string{q, rq}},
		{name: "level refused", state: pendingState(nil), opts: ResetPendingOptions{Level: 0, LevelSet: true}, cmds: []string{q, rq},
			errSubstr: "reset level 0 is not supported by the card now; it supports 3 (Driver restart and PCI reset), 4 (Warm Reboot)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newApplyEnv(t)
			writeState(t, e.state, c.state)
			res, err := ResetPending(e.ctx, e.r, ToolMlxconfig, dev, c.opts)
			switch {
			case c.errSubstr == "" && err != nil:
				t.Fatal(err)
			case c.errSubstr != "" && (err == nil || !strings.Contains(err.Error(), c.errSubstr)):
				t.Fatalf("error %v, want %q", err, c.errSubstr)
			}
			if !reflect.DeepEqual(res.Commands, c.cmds) {
				t.Errorf("commands\n%q\nwant\n%q", res.Commands, c.cmds)
			}
			if res.RebootNeeded != c.reboot || res.Reset != c.loaded {
				t.Errorf("result %+v", res)
			}
			if got := e.param(t, "LINK_TYPE_P1").Current; (got == "IB(1)") != c.loaded {
				t.Errorf("LINK_TYPE_P1 current %q after", got)
			}
			if c.name != "nothing pending" && !reflect.DeepEqual(res.Pending, []string{"LINK_TYPE_P1"}) {
				t.Errorf("pending %q", res.Pending)
			}
		})
	}

	t.Run("no current column", func(t *testing.T) {
		e := newApplyEnv(t)
		st := gpuNodeState()
		st.Devices[0].NoDefaultCurrent = true
		writeState(t, e.state, st)
		res, err := ResetPending(e.ctx, e.r, ToolMlxconfig, dev, ResetPendingOptions{})
		if err != nil || !res.Unknown || !res.Reset || res.Level != 3 {
			t.Fatalf("%+v %v", res, err)
		}
	})
}
