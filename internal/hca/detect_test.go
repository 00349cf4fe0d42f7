package hca

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/remote"
)

// nodeWith is a node (a local shell) whose PATH holds only the named programs of the double:
// what a node with MFT alone, mstflint alone, both or neither looks like to a command run over
// SSH. The real mstflint of this machine (/usr/bin) is not on that PATH.
func nodeWith(t *testing.T, e *applyEnv, progs ...string) LocalRunner {
	t.Helper()
	double := buildDouble(t)
	dir := t.TempDir()
	for _, p := range progs {
		if err := os.Symlink(filepath.Join(double, p), filepath.Join(dir, p)); err != nil {
			t.Fatal(err)
		}
	}
	return LocalRunner{Env: []string{"PATH=" + dir, "MLXCONFIG_DOUBLE_STATE=" + e.state, "MLXCONFIG_DOUBLE_LOG=" + e.log}}
}

var (
	mftProgs = []string{"mlxconfig", "flint", "mlxfwreset"}
	mstProgs = []string{"mstconfig", "mstflint", "mstfwreset"}
)

// scriptRunner keeps the command line it is given and fails it, for tests of the command built.
type scriptRunner struct{ script string }

func (s *scriptRunner) Run(_ context.Context, cmd string) (string, string, int, error) {
	s.script = cmd
	return "", "", 0, errors.New("not run")
}

// TestAutoToolCommand: with ToolAuto the batch is the probe, then each command written for both
// families behind the probe's own test; a known tool runs its commands alone. The expected
// command lines are written out here, not built by the code under test.
func TestAutoToolCommand(t *testing.T) {
	sr := &scriptRunner{}
	_, _ = Read(context.Background(), sr, ToolAuto, "mlx5_0", map[string]string{"SRIOV_EN": "1"})
	want := []string{
		"command -v flint || command -v mstflint",
		"if command -v flint >/dev/null 2>&1; then mlxconfig -d mlx5_0 -e query SRIOV_EN; else mstconfig -d mlx5_0 -e query SRIOV_EN; fi",
		"if command -v flint >/dev/null 2>&1; then flint -d mlx5_0 query; else mstflint -d mlx5_0 query; fi",
	}
	at := 0
	for _, w := range want {
		i := strings.Index(sr.script[at:], remote.Quote(w))
		if i < 0 {
			t.Fatalf("the batch lacks %q after offset %d:\n%s", w, at, sr.script)
		}
		at += i + len(w)
	}
	if n := strings.Count(sr.script, "gpc-batch "); n != 3 {
		t.Errorf("the batch runs %d commands, want 3 (probe, query, flint):\n%s", n, sr.script)
	}
	_, _ = Read(context.Background(), sr, ToolMstconfig, "mlx5_0", map[string]string{"SRIOV_EN": "1"})
	if strings.Contains(sr.script, "command -v") || !strings.Contains(sr.script, remote.Quote("mstflint -d mlx5_0 query")) {
		t.Errorf("a known tool is probed for, or not run as it is:\n%s", sr.script)
	}
}

// TestParseProbe: what `command -v flint || command -v mstflint` prints, as dash and bash print
// it (the path, exit 0; nothing, exit 1 or 127), a login shell's greeting before it included.
func TestParseProbe(t *testing.T) {
	for _, c := range []struct {
		out      string
		exit     int
		want     string
		noTool   bool
		anyError bool
	}{
		{out: "/usr/bin/flint\n", want: ToolMlxconfig},
		{out: "/opt/mellanox/mft/bin/flint\n", want: ToolMlxconfig},
		{out: "/usr/bin/mstflint\n", want: ToolMstconfig},
		{out: "Welcome to gpu001\n/usr/sbin/mstflint\n", want: ToolMstconfig},
		{out: "", exit: 1, noTool: true},
		{out: "", exit: 127, noTool: true},
		{out: "/usr/bin/flint2\n", anyError: true},
		{out: "flint\n", anyError: true}, // a function or alias named flint: not a program to run
	} {
		got, err := parseProbe(remote.Result{Stdout: c.out, Exit: c.exit})
		var nt *NoToolError
		switch {
		case c.noTool && !errors.As(err, &nt):
			t.Errorf("%q exit %d: %q %v, want a NoToolError", c.out, c.exit, got, err)
		case c.anyError && (err == nil || errors.As(err, &nt)):
			t.Errorf("%q: %q %v, want an error that is not NoToolError", c.out, got, err)
		case !c.noTool && !c.anyError && (err != nil || got != c.want):
			t.Errorf("%q: %q %v, want %q", c.out, got, err, c.want)
		}
	}
}

// TestAutoToolFindsTheNodes runs each entry point with ToolAuto on a node with MFT only, with
// mstflint only and with both: it uses the family the node has (MFT when both), says so, calls
// the tools exactly as the same entry point called with that family does (the double's log),
// finds the same, and costs one command on the node, as with a known tool.
func TestAutoToolFindsTheNodes(t *testing.T) {
	have := map[string]string{"SRIOV_EN": "0", "LINK_TYPE_P1": "ETH"}
	for _, c := range []struct {
		name  string
		progs []string
		want  string
	}{
		{"MFT only", mftProgs, ToolMlxconfig},
		{"mstflint only", mstProgs, ToolMstconfig},
		{"both", append(append([]string(nil), mstProgs...), mftProgs...), ToolMlxconfig},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newApplyEnv(t)
			r := nodeWith(t, e, c.progs...)
			calls := func() []string { return strings.Split(strings.TrimSpace(readFileT(t, e.log)), "\n") }

			wantRd, err := Read(e.ctx, r, c.want, dev, have)
			if err != nil {
				t.Fatal(err)
			}
			n0 := len(calls())
			cr := &countingRunner{r: r}
			rd, err := Read(e.ctx, cr, ToolAuto, dev, have)
			if err != nil {
				t.Fatal(err)
			}
			if rd.Tool != c.want || !reflect.DeepEqual(rd, wantRd) {
				t.Errorf("Read with ToolAuto: %+v, want %+v", rd, wantRd)
			}
			if got := calls()[n0:]; !reflect.DeepEqual(got, calls()[:n0]) {
				t.Errorf("tool calls %q, want %q", got, calls()[:n0])
			}
			if cr.n.Load() != 1 {
				t.Errorf("Read with ToolAuto ran %d commands on the node, want 1", cr.n.Load())
			}
			fi, err := QueryFirmware(e.ctx, r, ToolAuto, dev)
			if err != nil || fi.Tool != c.want || fi.FWVersion != wantRd.Firmware.FWVersion {
				t.Errorf("QueryFirmware: %+v %v", fi, err)
			}
			res, err := Apply(e.ctx, r, ToolAuto, dev, map[string]string{"LINK_TYPE_P1": "IB"}, &ApplyOptions{Firmware: true})
			if err != nil || res.Tool != c.want || len(res.Changes) != 1 || res.Firmware == nil || res.Firmware.Tool != c.want {
				t.Fatalf("Apply: %+v %v", res, err)
			}
			fam, _ := toolsFor(c.want)
			for _, cmd := range res.Commands {
				if !strings.HasPrefix(cmd, fam.config+" ") && !strings.HasPrefix(cmd, fam.flint+" ") {
					t.Errorf("Apply reports command %q, not one of %s's", cmd, c.want)
				}
			}
			if p := e.param(t, "LINK_TYPE_P1"); p.Next != "IB(1)" {
				t.Errorf("LINK_TYPE_P1 next %s after the set", p.Next)
			}
			// The reset that loads it: the family's own mlxfwreset or mstfwreset.
			rp, err := ResetPending(e.ctx, r, ToolAuto, dev, ResetPendingOptions{})
			if err != nil || !rp.Reset {
				t.Fatalf("ResetPending: %+v %v", rp, err)
			}
			var resets int
			for _, c := range calls() {
				if strings.HasPrefix(c, fam.reset+" ") && strings.HasSuffix(c, " reset") {
					resets++
				}
			}
			if resets != 1 {
				t.Errorf("%d resets with %s, want 1: %q", resets, fam.reset, calls())
			}
		})
	}
}

// TestAutoToolBurnsWithMstflint: on a node with mstflint alone, the card and the image are read
// and the image burned with mstflint, and the card reads back the image's version.
func TestAutoToolBurnsWithMstflint(t *testing.T) {
	e := newApplyEnv(t)
	r := nodeWith(t, e, mstProgs...)
	img := writeImage(t, t.TempDir(), "fw.bin", newerImage(sample1Firmware.PSID))
	res, err := UpdateFirmware(e.ctx, r, ToolAuto, dev, img)
	if err != nil {
		t.Fatal(err)
	}
	if res.Tool != ToolMstconfig || !res.Burned || res.After.FWVersion != newerImage("").FWVersion || res.After.Tool != ToolMstconfig {
		t.Fatalf("UpdateFirmware: tool %q burned %t after %+v", res.Tool, res.Burned, res.After)
	}
	var burns []string
	for _, l := range strings.Split(strings.TrimSpace(readFileT(t, e.log)), "\n") {
		if strings.HasSuffix(l, " burn") {
			burns = append(burns, l)
		}
	}
	if want := []string{"mstflint -d " + dev + " -i " + img + " -y burn"}; !reflect.DeepEqual(burns, want) {
		t.Errorf("burns %q, want %q", burns, want)
	}
	cards, _, err := QueryCards(e.ctx, r, ToolAuto, []string{dev}, "")
	if err != nil || cards[0].Tool != ToolMstconfig || cards[0].FWVersion != newerImage("").FWVersion {
		t.Errorf("QueryCards: %+v %v", cards, err)
	}
}

// TestAutoToolNeither: a node with neither tool fails every entry point with a NoToolError that
// names both tools and what to install, and nothing is run after the probe.
func TestAutoToolNeither(t *testing.T) {
	e := newApplyEnv(t)
	r := nodeWith(t, e)
	check := func(what string, err error) {
		t.Helper()
		var nt *NoToolError
		if !errors.As(err, &nt) {
			t.Errorf("%s: %v, want a NoToolError", what, err)
			return
		}
		for _, w := range []string{"flint", "mstflint", "NVIDIA MFT", "apt-get install mstflint", "absolute path"} {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %q does not say %q", what, err, w)
			}
		}
	}
	_, err := Read(e.ctx, r, ToolAuto, dev, map[string]string{"SRIOV_EN": "0"})
	check("Read", err)
	_, err = QueryFirmware(e.ctx, r, ToolAuto, dev)
	check("QueryFirmware", err)
	_, _, _, err = QueryCardAndImage(e.ctx, r, ToolAuto, dev, "/srv/fw.bin")
	check("QueryCardAndImage", err)
	_, err = UpdateFirmware(e.ctx, r, ToolAuto, dev, "/srv/fw.bin")
	check("UpdateFirmware", err)
	_, err = Apply(e.ctx, r, ToolAuto, dev, map[string]string{"SRIOV_EN": "0"}, nil)
	check("Apply", err)
	_, err = ResetPending(e.ctx, r, ToolAuto, dev, ResetPendingOptions{})
	check("ResetPending", err)
	if _, err := os.Stat(e.log); !os.IsNotExist(err) {
		t.Errorf("a tool ran: %s", readFileT(t, e.log))
	}
}
