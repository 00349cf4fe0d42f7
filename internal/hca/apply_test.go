package hca

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// gpuNodeState is one single-port ConnectX-7 of an HGX node in Ethernet mode,
// SR-IOV off: what a fresh card looks like before the provider configures it
// for an InfiniBand fabric.
func gpuNodeState() *dState {
	maxVFs := uint64(127)
	return &dState{Devices: []*dDevice{{
		Device: "/dev/mst/mt4129_pciconf0", Aliases: []string{"0000:3b:00.0"},
		DeviceType: "ConnectX7", Name: "MCX75310AAS-NEA_Ax", Description: cx7OSFP,
		Firmware: sample1Firmware,
		Params: []*dParam{
			{Name: "LINK_TYPE_P1", Next: "ETH(2)"},
			{Name: "KEEP_IB_LINK_UP_P1", Next: "False(0)"},
			{Name: "SRIOV_EN", Next: "False(0)"},
			{Name: "NUM_OF_VFS", Next: "0", Max: &maxVFs},
			{Name: "ADVANCED_PCI_SETTINGS", Next: "False(0)"},
			{Name: "PCI_WR_ORDERING", Next: "per_mkey(0)"},
			{Name: "ATS_ENABLED", Next: "False(0)"},
			{Name: "MAX_ACC_OUT_READ", Next: "0"},
		},
	}}}
}

type applyEnv struct {
	state string
	log   string
	r     LocalRunner
	ctx   context.Context
}

// newApplyEnv puts the double first on PATH and gives it a fresh state.
func newApplyEnv(t *testing.T) *applyEnv {
	t.Helper()
	dir := buildDouble(t)
	tmp := t.TempDir()
	e := &applyEnv{state: filepath.Join(tmp, "state.json"), log: filepath.Join(tmp, "calls.log")}
	writeState(t, e.state, gpuNodeState())
	e.r = LocalRunner{Env: append(os.Environ(),
		"PATH="+dir+string(os.PathListSeparator)+os.Getenv("PATH"),
		"MLXCONFIG_DOUBLE_STATE="+e.state,
		"MLXCONFIG_DOUBLE_LOG="+e.log)}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	e.ctx = ctx
	return e
}

func (e *applyEnv) param(t *testing.T, name string) *dParam {
	t.Helper()
	for _, p := range readState(t, e.state).Devices[0].Params {
		if p.Name == name {
			return p
		}
	}
	t.Fatalf("%s not in state", name)
	return nil
}

const dev = "/dev/mst/mt4129_pciconf0"

// fabricSettings is what a gpucluster_hca resource asks for: InfiniBand,
// SR-IOV with 16 VFs, relaxed ordering left as it is.
var fabricSettings = map[string]string{
	"LINK_TYPE_P1":    "IB",
	"SRIOV_EN":        "1",
	"NUM_OF_VFS":      "16",
	"PCI_WR_ORDERING": "per_mkey", // already so: must not be set
}

func TestApplySetsOnlyWhatDiffers(t *testing.T) {
	e := newApplyEnv(t)
	res, err := Apply(e.ctx, e.r, ToolMlxconfig, dev, fabricSettings, nil)
	if err != nil {
		t.Fatal(err)
	}
	wantCmds := []string{
		"mlxconfig -d /dev/mst/mt4129_pciconf0 -e query LINK_TYPE_P1 NUM_OF_VFS PCI_WR_ORDERING SRIOV_EN",
		"mlxconfig -d /dev/mst/mt4129_pciconf0 -y set LINK_TYPE_P1=IB NUM_OF_VFS=16 SRIOV_EN=True",
		"mlxconfig -d /dev/mst/mt4129_pciconf0 -e query LINK_TYPE_P1 NUM_OF_VFS PCI_WR_ORDERING SRIOV_EN",
	}
	if !reflect.DeepEqual(res.Commands, wantCmds) {
		t.Errorf("commands:\n%s\nwant\n%s", strings.Join(res.Commands, "\n"), strings.Join(wantCmds, "\n"))
	}
	var changed []string
	for _, c := range res.Changes {
		changed = append(changed, c.Param+":"+c.From.Raw+"->"+c.To)
	}
	if want := []string{"LINK_TYPE_P1:ETH(2)->IB", "NUM_OF_VFS:0->16", "SRIOV_EN:False(0)->1"}; !reflect.DeepEqual(changed, want) {
		t.Errorf("changes %q, want %q", changed, want)
	}
	if !res.PendingReboot || !reflect.DeepEqual(res.Pending, []string{"LINK_TYPE_P1", "NUM_OF_VFS", "SRIOV_EN"}) {
		t.Errorf("pending %v %q", res.PendingReboot, res.Pending)
	}
	if res.Message != "Please reboot machine to load new configurations." {
		t.Errorf("message %q", res.Message)
	}
	// The card's Next Boot values moved; Current waits for a reboot.
	if p := e.param(t, "LINK_TYPE_P1"); p.Next != "IB(1)" || p.Current != "ETH(2)" {
		t.Errorf("LINK_TYPE_P1 on the card: %+v", p)
	}
	if p := e.param(t, "PCI_WR_ORDERING"); p.Next != "per_mkey(0)" || p.Current != "" {
		t.Errorf("PCI_WR_ORDERING was touched: %+v", p)
	}

	// Again: nothing differs, only the query runs, the reboot is still due.
	res, err = Apply(e.ctx, e.r, ToolMlxconfig, dev, fabricSettings, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Changes) != 0 || len(res.Commands) != 1 || !strings.Contains(res.Commands[0], " query ") {
		t.Errorf("second apply: changes %v, commands %q", res.Changes, res.Commands)
	}
	if !res.PendingReboot {
		t.Error("second apply forgot the pending reboot")
	}

	// Other spellings of the same values change nothing either.
	same := map[string]string{"LINK_TYPE_P1": "ib", "SRIOV_EN": "True(1)", "NUM_OF_VFS": "0x10", "PCI_WR_ORDERING": "0"}
	if res, err = Apply(e.ctx, e.r, ToolMlxconfig, dev, same, nil); err != nil || len(res.Changes) != 0 {
		t.Errorf("same values spelled differently: %v, %v", res.Changes, err)
	}

	log, err := os.ReadFile(e.log)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(log), " set "); n != 1 {
		t.Errorf("%d set calls, want 1:\n%s", n, log)
	}
}

func TestApplySeesOutOfBandDrift(t *testing.T) {
	e := newApplyEnv(t)
	if _, err := Apply(e.ctx, e.r, ToolMlxconfig, dev, fabricSettings, nil); err != nil {
		t.Fatal(err)
	}
	// Someone runs mlxconfig by hand on the node: back to Ethernet.
	st := readState(t, e.state)
	for _, p := range st.Devices[0].Params {
		if p.Name == "LINK_TYPE_P1" {
			p.Next = "ETH(2)"
		}
	}
	writeState(t, e.state, st)

	// A read (what Terraform's refresh does) shows the drift ...
	cfg, err := Query(e.ctx, e.r, ToolMlxconfig, dev, sortedKeys(fabricSettings)...)
	if err != nil {
		t.Fatal(err)
	}
	drift := Plan(cfg, fabricSettings)
	if len(drift) != 1 || drift[0].Param != "LINK_TYPE_P1" || drift[0].From.Raw != "ETH(2)" || drift[0].Arg != "IB" {
		t.Fatalf("drift = %+v", drift)
	}
	// ... and the next apply repairs that one parameter only.
	res, err := Apply(e.ctx, e.r, ToolMlxconfig, dev, fabricSettings, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Changes) != 1 || !strings.HasSuffix(res.Commands[1], "-y set LINK_TYPE_P1=IB") {
		t.Errorf("repair: %+v\n%q", res.Changes, res.Commands)
	}
}

func TestApplyReportsTheToolsRefusal(t *testing.T) {
	e := newApplyEnv(t)
	cases := []struct {
		settings map[string]string
		param    string
		message  string
	}{
		// Not in the tool's database at all.
		{map[string]string{"FOO_BAR": "1", "SRIOV_EN": "1"}, "FOO_BAR", "Unknown Parameter: FOO_BAR"},
		// Known, but this single-port card has no port 2.
		{map[string]string{"LINK_TYPE_P2": "IB"}, "LINK_TYPE_P2", "The Device doesn't support LINK_TYPE_P2 parameter"},
		// A value the tool rejects when setting.
		{map[string]string{"LINK_TYPE_P1": "INFINIBAND"}, "LINK_TYPE_P1", "Unknown value INFINIBAND"},
		// Above what this card's capabilities allow, refused while applying.
		{map[string]string{"NUM_OF_VFS": "200"}, "NUM_OF_VFS", "Parameter NUM_OF_VFS' value is larger than maximum allowed 127"},
	}
	for _, c := range cases {
		_, err := Apply(e.ctx, e.r, ToolMlxconfig, dev, c.settings, nil)
		var te *ToolError
		if !errors.As(err, &te) {
			t.Errorf("%v: error %T %v, want *ToolError", c.settings, err, err)
			continue
		}
		if te.Device != dev || te.Exit != 3 || te.Message != c.message || !reflect.DeepEqual(te.Params, []string{c.param}) {
			t.Errorf("%v: %+v", c.settings, te)
		}
		for _, s := range []string{dev, c.param, c.message} {
			if !strings.Contains(err.Error(), s) {
				t.Errorf("error %q does not mention %q", err, s)
			}
		}
	}
	// Nothing was changed on the card by the refused applies.
	if p := e.param(t, "SRIOV_EN"); p.Next != "False(0)" {
		t.Errorf("SRIOV_EN changed: %+v", p)
	}
	// A device that is not there.
	_, err := Query(e.ctx, e.r, ToolMlxconfig, "/dev/mst/mt4129_pciconf7")
	var te *ToolError
	if !errors.As(err, &te) || te.Message != "Failed to open the device" || te.Exit != 3 || te.Device != "/dev/mst/mt4129_pciconf7" {
		t.Errorf("missing device: %v", err)
	}
	// Tools that are not installed.
	r := LocalRunner{Env: []string{"PATH=/nonexistent"}}
	if _, err := Query(e.ctx, r, ToolMlxconfig, dev); err == nil || !strings.Contains(err.Error(), "not found") {
		t.Errorf("missing tool: %v", err)
	}
	if _, err := Apply(e.ctx, e.r, "ethtool", dev, fabricSettings, nil); err == nil {
		t.Error("unknown tool accepted")
	}
}

func TestApplyWithFirmwareReset(t *testing.T) {
	e := newApplyEnv(t)
	// mstflint's tools, addressing the card by PCI address.
	res, err := Apply(e.ctx, e.r, ToolMstconfig, "0000:3b:00.0", fabricSettings, &ApplyOptions{Reset: true})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Reset || res.PendingReboot || len(res.Pending) != 0 {
		t.Errorf("after reset: reset %v pending %v %q", res.Reset, res.PendingReboot, res.Pending)
	}
	if !reflect.DeepEqual(res.Commands[1:3], []string{
		"mstconfig -d 0000:3b:00.0 -y set LINK_TYPE_P1=IB NUM_OF_VFS=16 SRIOV_EN=True",
		"mstconfig -d 0000:3b:00.0 -e query LINK_TYPE_P1 NUM_OF_VFS PCI_WR_ORDERING SRIOV_EN",
	}) || res.Commands[3] != "mstfwreset -d 0000:3b:00.0 -l 3 -y reset" || len(res.Commands) != 5 {
		t.Errorf("commands %q", res.Commands)
	}
	if p := e.param(t, "LINK_TYPE_P1"); p.Current != "IB(1)" {
		t.Errorf("reset did not load the new configuration: %+v", p)
	}
	// Nothing pending, nothing to do: no reset either.
	res, err = Apply(e.ctx, e.r, ToolMstconfig, "0000:3b:00.0", fabricSettings, &ApplyOptions{Reset: true})
	if err != nil || res.Reset || len(res.Commands) != 1 {
		t.Errorf("idle apply with reset: %v %q", err, res.Commands)
	}
	if err := Reset(e.ctx, e.r, ToolMlxconfig, "/dev/mst/none", 3); err == nil || !strings.Contains(err.Error(), "Cannot open Device") {
		t.Errorf("reset of a missing device: %v", err)
	}
}

func TestQueryFirmware(t *testing.T) {
	e := newApplyEnv(t)
	for _, tool := range []string{ToolMlxconfig, ToolMstconfig} {
		fi, err := QueryFirmware(e.ctx, e.r, tool, dev)
		if err != nil {
			t.Fatal(err)
		}
		if fi.FWVersion != "28.42.1000" || fi.PSID != "MT_0000001244" || len(fi.RomInfo) != 2 {
			t.Errorf("%s: %+v", tool, fi)
		}
	}
	_, err := QueryFirmware(e.ctx, e.r, ToolMstconfig, "3c:00.0")
	var te *ToolError
	if !errors.As(err, &te) || te.Tool != "mstflint" || te.Exit != 1 || !strings.Contains(te.Message, "Cannot open Device: 3c:00.0") {
		t.Errorf("flint on a missing device: %v", err)
	}
}

func TestPlanComparesByMeaning(t *testing.T) {
	cfg, err := ParseQuery(sample(t, "sample1-filtered.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{"ETH", "eth", "ETH(2)", "2", "0x2"} {
		if ch := Plan(cfg, map[string]string{"LINK_TYPE_P1": v, "NUM_OF_VFS": "8", "SRIOV_EN": "true"}); len(ch) != 0 {
			t.Errorf("LINK_TYPE_P1=%s: %+v", v, ch)
		}
	}
	ch := Plan(cfg, map[string]string{"LINK_TYPE_P1": "IB(1)", "NEW_PARAM": "1"})
	if len(ch) != 2 || ch[0].Param != "LINK_TYPE_P1" || ch[0].Arg != "IB" || !ch[1].Missing || ch[1].Arg != "1" {
		t.Errorf("plan = %+v", ch)
	}
	if ch := Plan(nil, map[string]string{"X": "ENABLED(1)"}); len(ch) != 1 || ch[0].Arg != "1" {
		t.Errorf("plan without a query = %+v", ch)
	}
}

// TestReadSettingsAfterApply: after a set, the refresh queries the recorded names in order, keeps
// the recorded spelling of values equal in meaning, shows drift in the card's spelling, and tells
// that the set values wait for a reboot; SetText words the set as its arguments.
func TestReadSettingsAfterApply(t *testing.T) {
	e := newApplyEnv(t)
	res, err := Apply(e.ctx, e.r, ToolMlxconfig, dev, fabricSettings, ResetOptions("none"))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := res.SetText(), "LINK_TYPE_P1=IB NUM_OF_VFS=16 SRIOV_EN=True"; got != want {
		t.Errorf("SetText %q, want %q", got, want)
	}
	have := map[string]string{"SRIOV_EN": "1", "NUM_OF_VFS": "8", "LINK_TYPE_P1": "ib"}
	out, pending, known, err := ReadSettings(e.ctx, e.r, ToolMlxconfig, dev, have)
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]string{"SRIOV_EN": "1", "NUM_OF_VFS": "16", "LINK_TYPE_P1": "ib"}; !reflect.DeepEqual(out, want) || !pending || !known {
		t.Errorf("ReadSettings = %v, %t, %t; want %v, pending and known", out, pending, known, want)
	}
	log, err := os.ReadFile(e.log)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(strings.TrimSpace(string(log)), "query LINK_TYPE_P1 NUM_OF_VFS SRIOV_EN") {
		t.Errorf("the refresh's query is not the last call, in name order:\n%s", log)
	}
}
