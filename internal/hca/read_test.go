package hca

import (
	"context"
	"fmt"
	"os"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
)

// countingRunner counts the commands (sessions, on a node) its runner is given.
type countingRunner struct {
	r Runner
	n atomic.Int64
}

func (c *countingRunner) Run(ctx context.Context, cmd string) (string, string, int, error) {
	c.n.Add(1)
	return c.r.Run(ctx, cmd)
}

func errText(err error) string {
	if err == nil {
		return "<nil>"
	}
	return fmt.Sprintf("%T %v", err, err)
}

// TestReadIsQueryAndFirmwareInOneCommand: Read gives what ReadSettings and QueryFirmware give
// run one after the other (the independent computation), errors included, with one command to
// the runner instead of two, and the tools called exactly as those two call them.
func TestReadIsQueryAndFirmwareInOneCommand(t *testing.T) {
	e := newApplyEnv(t)
	if _, err := Apply(e.ctx, e.r, ToolMlxconfig, dev, fabricSettings, ResetOptions("none")); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, tool, device string
		have               map[string]string
	}{
		{"pending settings", ToolMlxconfig, dev, map[string]string{"SRIOV_EN": "1", "NUM_OF_VFS": "8", "LINK_TYPE_P1": "ib"}},
		{"mstflint's tools", ToolMstconfig, dev, map[string]string{"LINK_TYPE_P1": "IB"}},
		{"a parameter the card lacks", ToolMlxconfig, dev, map[string]string{"LINK_TYPE_P2": "IB", "SRIOV_EN": "1"}},
		{"no such device", ToolMlxconfig, "/dev/mst/mt4129_pciconf7", map[string]string{"SRIOV_EN": "1"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			calls := func() []string { return strings.Split(strings.TrimSpace(readFileT(t, e.log)), "\n") }
			before := len(calls())
			wantOut, wantPending, wantKnown, wantSErr := ReadSettings(e.ctx, e.r, c.tool, c.device, c.have)
			wantFW, wantFErr := QueryFirmware(e.ctx, e.r, c.tool, c.device)
			alone := calls()[before:]

			cr := &countingRunner{r: e.r}
			rd, err := Read(e.ctx, cr, c.tool, c.device, c.have)
			if err != nil {
				t.Fatalf("Read: %v", err)
			}
			if n := cr.n.Load(); n != 1 {
				t.Errorf("Read ran %d commands, want 1", n)
			}
			if batched := calls()[before+len(alone):]; !reflect.DeepEqual(batched, alone) {
				t.Errorf("tool calls of Read:\n%q\nwant those of the two alone:\n%q", batched, alone)
			}
			if !reflect.DeepEqual(rd.Settings, wantOut) || rd.Pending != wantPending || rd.PendingKnown != wantKnown || errText(rd.SettingsErr) != errText(wantSErr) {
				t.Errorf("settings: %v %t %t %s\nwant       %v %t %t %s", rd.Settings, rd.Pending, rd.PendingKnown, errText(rd.SettingsErr), wantOut, wantPending, wantKnown, errText(wantSErr))
			}
			if !reflect.DeepEqual(rd.Firmware, wantFW) || errText(rd.FirmwareErr) != errText(wantFErr) {
				t.Errorf("firmware: %+v %s\nwant      %+v %s", rd.Firmware, errText(rd.FirmwareErr), wantFW, errText(wantFErr))
			}
		})
	}

	if _, err := Read(e.ctx, e.r, "/usr/bin/ethtool", dev, fabricSettings); err == nil {
		t.Error("Read with an unknown tool: no error")
	}
	done, cancel := context.WithCancel(e.ctx)
	cancel()
	if rd, err := Read(done, e.r, ToolMlxconfig, dev, fabricSettings); err == nil || rd != nil {
		t.Errorf("Read with an ended context: %+v, %v", rd, err)
	}
}

// TestApplyReadsTheFirmwareWithItsFirstQuery: with ApplyOptions.Firmware, an apply with nothing
// to change is one command, and its firmware is what QueryFirmware reads.
func TestApplyReadsTheFirmwareWithItsFirstQuery(t *testing.T) {
	e := newApplyEnv(t)
	opts := ResetOptions("none")
	opts.Firmware = true
	cr := &countingRunner{r: e.r}
	res, err := Apply(e.ctx, cr, ToolMlxconfig, dev, fabricSettings, opts)
	if err != nil {
		t.Fatal(err)
	}
	want, err := QueryFirmware(e.ctx, e.r, ToolMlxconfig, dev)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(res.Firmware, want) || res.FirmwareErr != nil {
		t.Errorf("firmware %+v, %v; want %+v", res.Firmware, res.FirmwareErr, want)
	}
	// query+flint in one, set, query again.
	if n := cr.n.Load(); n != 3 || len(res.Commands) != 4 || !strings.HasPrefix(res.Commands[1], "flint -d "+dev+" query") {
		t.Errorf("%d commands run, recorded %q", n, res.Commands)
	}
	cr.n.Store(0)
	res, err = Apply(e.ctx, cr, ToolMlxconfig, dev, fabricSettings, opts)
	if err != nil || len(res.Changes) != 0 || cr.n.Load() != 1 || res.Firmware == nil {
		t.Errorf("second apply: %v, changes %v, %d commands, firmware %+v", err, res.Changes, cr.n.Load(), res.Firmware)
	}
}

func readFileT(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return string(b)
}
