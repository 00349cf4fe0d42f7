package hca

import (
	"context"
	"errors"
	"fmt"
	"net"
	"reflect"
	"strings"
	"syscall"
	"testing"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/remote"
)

func TestReadBack(t *testing.T) {
	param := func(cur, next string) Param { return Param{Current: NewValue(cur), Next: NewValue(next)} }
	withCurrent := &Config{Columns: []string{"Default", "Current", "Next Boot"}, Params: map[string]Param{
		"LINK_TYPE_P1": param("IB(1)", "IB(1)"),
		"LINK_TYPE_P2": param("IB(1)", "ETH(2)"), // set, waits for a reboot
		"NUM_OF_VFS":   param("8", "16"),
		"SRIOV_EN":     param("True(1)", "N/A"),
	}}
	cases := []struct {
		name         string
		have         map[string]string
		q            *Config
		want         map[string]string
		pending      bool
		pendingKnown bool
	}{
		{"same meaning keeps the user's spelling", map[string]string{"LINK_TYPE_P1": "ib"}, withCurrent,
			map[string]string{"LINK_TYPE_P1": "ib"}, false, true},
		{"drift shows the card's value", map[string]string{"NUM_OF_VFS": "8"}, withCurrent,
			map[string]string{"NUM_OF_VFS": "16"}, true, true},
		{"pending but as asked", map[string]string{"LINK_TYPE_P2": "eth"}, withCurrent,
			map[string]string{"LINK_TYPE_P2": "eth"}, true, true},
		{"no value on the card keeps the recorded one", map[string]string{"SRIOV_EN": "1"}, withCurrent,
			map[string]string{"SRIOV_EN": "1"}, false, true},
		{"absent parameter keeps the recorded one", map[string]string{"NOT_THERE": "3"}, withCurrent,
			map[string]string{"NOT_THERE": "3"}, false, true},
		{"parameters not asked for do not count as pending", map[string]string{"LINK_TYPE_P1": "IB"}, withCurrent,
			map[string]string{"LINK_TYPE_P1": "IB"}, false, true},
		{"no Current column", map[string]string{"LINK_TYPE_P1": "ETH"},
			&Config{Columns: []string{"Next Boot"}, Params: map[string]Param{"LINK_TYPE_P1": {Next: NewValue("IB(1)")}}},
			map[string]string{"LINK_TYPE_P1": "IB(1)"}, false, false},
		{"nothing recorded", map[string]string{}, withCurrent, map[string]string{}, false, true},
	}
	for _, c := range cases {
		got, pending, known := ReadBack(c.have, c.q)
		if !reflect.DeepEqual(got, c.want) || pending != c.pending || known != c.pendingKnown {
			t.Errorf("%s: ReadBack = %v, %v, %v; want %v, %v, %v", c.name, got, pending, known, c.want, c.pending, c.pendingKnown)
		}
	}
}

func TestResetPendingWords(t *testing.T) {
	levels := &ResetLevels{Levels: []ResetLevel{
		{Level: 0, Supported: false}, {Level: 3, Supported: true}, {Level: 4, Supported: true},
	}}
	cases := []struct {
		name            string
		r               ResetPendingResult
		waiting, levels string
	}{
		{"reboot needed, no levels", ResetPendingResult{Pending: []string{"LINK_TYPE_P1", "NUM_OF_VFS"}, RebootNeeded: true},
			"LINK_TYPE_P1, NUM_OF_VFS", "none"},
		{"reboot needed, levels", ResetPendingResult{Pending: []string{"SRIOV_EN"}, RebootNeeded: true, Levels: levels},
			"SRIOV_EN", "3, 4"},
		{"reboot needed, unknown", ResetPendingResult{Unknown: true, RebootNeeded: true},
			"the settings (the firmware cannot show whether any wait)", "none"},
		{"reset, unknown", ResetPendingResult{Unknown: true, Reset: true, Level: 3, Levels: levels},
			"whatever was pending (the firmware cannot show it)", "3, 4"},
		{"reset", ResetPendingResult{Pending: []string{"NUM_OF_VFS"}, Reset: true, Level: 3, Levels: levels},
			"NUM_OF_VFS", "3, 4"},
		{"nothing pending", ResetPendingResult{Level: -1}, "", "none"},
	}
	for _, c := range cases {
		if got := c.r.Waiting(); got != c.waiting {
			t.Errorf("%s: Waiting = %q, want %q", c.name, got, c.waiting)
		}
		if got := c.r.LevelsText(); got != c.levels {
			t.Errorf("%s: LevelsText = %q, want %q", c.name, got, c.levels)
		}
	}
}

func TestSSHHint(t *testing.T) {
	unreach := "The node did not answer over SSH: check that it is up and that ssh_host is right, or raise the HCA's timeouts."
	cases := []struct {
		name string
		err  error
		want string
	}{
		{"host key", fmt.Errorf("dial: %w", &remote.HostKeyError{}), ""},
		{"refused", &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}, unreach},
		{"deadline", fmt.Errorf("handshake: %w", context.DeadlineExceeded), unreach},
		{"no route", fmt.Errorf("dial: %w", syscall.EHOSTUNREACH), unreach},
		{"other", errors.New("mlxconfig: exit status 3"), ""},
		{"key text alone is not enough", errors.New("did not accept the private key"), ""},
	}
	for _, c := range cases {
		if got := SSHHint(c.err); got != c.want {
			t.Errorf("%s: SSHHint = %q, want %q", c.name, got, c.want)
		}
	}
}

func TestToolAndParamNames(t *testing.T) {
	for s, ok := range map[string]bool{
		"mlxconfig": true, "mstconfig": true, "/opt/mellanox/mft/bin/mlxconfig": true, "/usr/bin/mstconfig": true,
		"flint": false, "bin/mlxconfig": false, "/usr/bin/mlxconfig; reboot": false, "/usr/bin/ethtool": false, "": false,
	} {
		if ToolRE.MatchString(s) != ok {
			t.Errorf("tool %q: accepted %t", s, !ok)
		}
	}
	for s, ok := range map[string]bool{
		"LINK_TYPE_P1": true, "MODULE_SPLIT_M0[3]": true, "num_of_vfs": true,
		"": false, "LINK TYPE": false, "X[]": false, "X[1]Y": false, "A;reboot": false,
	} {
		if ParamNameRE.MatchString(s) != ok {
			t.Errorf("parameter name %q: accepted %t", s, !ok)
		}
	}
}

// TestResetOptions: none or unset resets nothing; a level resets at that level, 0 included.
func TestResetOptions(t *testing.T) {
	for reset, want := range map[string]ApplyOptions{
		"": {}, "none": {},
		"0": {Reset: true, ResetLevelSet: true}, "3": {Reset: true, ResetLevel: 3, ResetLevelSet: true},
	} {
		if got := ResetOptions(reset); *got != want {
			t.Errorf("ResetOptions(%q) = %+v, want %+v", reset, *got, want)
		}
	}
}

// TestFailure: the detail names the HCA, its device, node and tool, quotes what the tool printed
// and the commands run, and ends with what to do about an unreachable node.
func TestFailure(t *testing.T) {
	te := &ToolError{Tool: "mlxconfig", Device: "mlx5_0", Command: "set", Exit: 1, Output: "-E- bad\n"}
	d := Failure("gpu001/mlx5_0", "mlx5_0", "10.0.0.11:22", "mlxconfig", te, []string{"mlxconfig query", "mlxconfig set"})
	for _, want := range []string{`HCA "gpu001/mlx5_0" (device mlx5_0 on 10.0.0.11:22, mlxconfig): `, "\n\nThe tool printed:\n-E- bad\n\nCommands run, in order:\n  mlxconfig query\n  mlxconfig set"} {
		if !strings.Contains(d, want) {
			t.Errorf("tool error detail %q lacks %q", d, want)
		}
	}
	down := &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
	if d := Failure("h", "mlx5_0", "a:22", "mlxconfig", fmt.Errorf("dial: %w", down), nil); !strings.HasSuffix(d, "\n\nThe node did not answer over SSH: check that it is up and that ssh_host is right, or raise the HCA's timeouts.") || strings.Contains(d, "Commands run") {
		t.Errorf("unreachable detail %q", d)
	}
}
