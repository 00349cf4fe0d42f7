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

// TestResetPendingLevel: unset lets the tool choose; a level is asked for, 0 included (the zero
// value must not read as unset).
func TestResetPendingLevel(t *testing.T) {
	for level, want := range map[string]ResetPendingOptions{
		"": {}, "0": {Level: 0, LevelSet: true}, "1": {Level: 1, LevelSet: true}, "3": {Level: 3, LevelSet: true},
	} {
		if got := ResetPendingLevel(level); got != want {
			t.Errorf("ResetPendingLevel(%q) = %+v, want %+v", level, got, want)
		}
	}
}

// TestResetPendingOutcome pins the three outcomes' words: reset, nothing pending, and only a
// reboot, which alone warns, naming the node to reboot, the levels the card supports and how.
func TestResetPendingOutcome(t *testing.T) {
	reset := &ResetPendingResult{Pending: []string{"LINK_TYPE_P1", "SRIOV_EN"}, Level: 3, Reset: true}
	if line, s, _ := reset.Outcome("gpu001/mlx5_0", "gpu001", "mlx5_0", "10.0.0.1:22"); line != "mlxfwreset at level 3 loaded LINK_TYPE_P1, SRIOV_EN" || s != "" {
		t.Errorf("reset: %q, warning %q", line, s)
	}
	if line, s, _ := (&ResetPendingResult{Level: -1}).Outcome("gpu001/mlx5_0", "gpu001", "mlx5_0", "10.0.0.1:22"); line != "no firmware setting waits; nothing to reset" || s != "" {
		t.Errorf("nothing: %q, warning %q", line, s)
	}
	reboot := &ResetPendingResult{Pending: []string{"LINK_TYPE_P1"}, Level: -1, RebootNeeded: true,
		Levels: &ResetLevels{Levels: []ResetLevel{{Level: 3}, {Level: 4, Supported: true}}}}
	line, s, d := reboot.Outcome("gpu001/mlx5_0", "gpu001", "mlx5_0", "10.0.0.1:22")
	if line != "LINK_TYPE_P1 wait for a reboot; no firmware reset short of one is supported now" {
		t.Errorf("reboot line: %q", line)
	}
	if s != "HCA gpu001/mlx5_0: reboot node gpu001 to load its firmware settings" {
		t.Errorf("reboot summary: %q", s)
	}
	if want := `HCA "gpu001/mlx5_0" (device mlx5_0 on 10.0.0.1:22): LINK_TYPE_P1 wait for a reboot, and the card supports no mlxfwreset level short of one now (supported levels: 4). Nothing was reset.`; !strings.HasPrefix(d, want) ||
		!strings.Contains(d, `power = "graceful_restart"`) {
		t.Errorf("reboot detail: %q", d)
	}
}
