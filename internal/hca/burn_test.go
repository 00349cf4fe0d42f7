package hca

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// writeImage writes an image file as the double reads it: the fields flint -i IMAGE q prints.
func writeImage(t *testing.T, dir, name string, fw *dFirmware) string {
	t.Helper()
	b, err := json.Marshal(fw)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// newerImage is 28.43.1014 for the Sample 1 card (same PSID); MFT 4.24's CX7 version is
// 28.37.1014 and later releases count up (wave4-facts 5.4).
func newerImage(psid string) *dFirmware {
	fw := *sample1Firmware
	fw.FWVersion, fw.ProductVersion, fw.FWReleaseDate, fw.PSID = "28.43.1014", "28.43.1014", "12.12.2024", psid
	fw.BaseGUID, fw.BaseMAC, fw.RunningVersion = "", "", ""
	return &fw
}

// TestFlintDoubleErrorsAreMstflints runs Debian's real mstflint (4.21, installed by make deps)
// and the double with the same arguments, in the same directory, where no card exists, and
// requires the same stdout, stderr and exit code: the texts of a missing image, an image that is
// not one, and a device that is not there, in the order the real tool checks them.
func TestFlintDoubleErrorsAreMstflints(t *testing.T) {
	mstflint, err := exec.LookPath("mstflint")
	if err != nil || !strings.HasPrefix(mstflint, "/usr/") {
		t.Fatalf("Debian's mstflint is needed to compare the double with (apt-get install mstflint; make deps does): %v", err)
	}
	double := filepath.Join(buildDouble(t), "mstflint")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "zero.bin"), make([]byte, 4096), 0o644); err != nil {
		t.Fatal(err)
	}
	state := filepath.Join(dir, "state.json")
	writeState(t, state, gpuNodeState())
	run := func(prog string, args []string) doubleRun {
		cmd := exec.Command(prog, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "MLXCONFIG_DOUBLE_STATE="+state)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		r := doubleRun{stdout: out.String(), stderr: errb.String()}
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			r.exit = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return r
	}
	for _, args := range [][]string{
		{"-i", "missing.bin", "q"},
		{"-i", filepath.Join(dir, "missing.bin"), "query"},
		{"-i", "zero.bin", "q"},
		{"-d", "0000:ff:1f.7", "q"},
		{"-d", "0000:ff:1f.7", "-i", "missing.bin", "-y", "b"}, // the image is opened first
		{"-d", "0000:ff:1f.7", "-i", "zero.bin", "-y", "b"},    // then the device
	} {
		want, got := run(mstflint, args), run(double, args)
		if got != want {
			t.Errorf("mstflint %s:\nreal   %d %q %q\ndouble %d %q %q", strings.Join(args, " "),
				want.exit, want.stdout, want.stderr, got.exit, got.stdout, got.stderr)
		}
		if want.exit == 0 {
			t.Errorf("mstflint %s succeeded on a machine without a card", strings.Join(args, " "))
		}
	}
}

// TestFlintDoubleBurnText holds the double's burn to the texts of mstflint v4.21.0-1's source,
// written out here from flint/subcommands.cpp and flint/err_msgs.h (checkFwVersion's two lines,
// checkPSID's blank line and FLINT_PSID_ERROR, advProgressFunc's stages, the reset advice of
// flint_base.h), not from the double.
func TestFlintDoubleBurnText(t *testing.T) {
	dir := t.TempDir()
	state := filepath.Join(dir, "state.json")
	writeState(t, state, gpuNodeState())
	good := writeImage(t, dir, "fw-good.bin", newerImage("MT_0000001244"))
	other := writeImage(t, dir, "fw-other.bin", newerImage("MT_0000000834"))

	r := runDouble(t, state, "", "mstflint", "-d", "3b:00.0", "-i", other, "-y", "b")
	want := "\n    Current FW version on flash:  28.42.1000\n    New FW version:               28.43.1014\n\n" +
		"\n-E- PSID mismatch. The PSID on flash (MT_0000001244) differs from the PSID in the given image (MT_0000000834).\n"
	if r.exit != 1 || r.stdout != want || r.stderr != "" {
		t.Errorf("PSID mismatch: %d %q %q, want 1 %q", r.exit, r.stdout, r.stderr, want)
	}
	if fw := readState(t, state).Devices[0].Firmware; fw.FWVersion != "28.42.1000" || fw.RunningVersion != "" {
		t.Errorf("a refused burn changed the card: %+v", fw)
	}

	r = runDouble(t, state, "", "flint", "-d", dev, "-i", good, "-y", "b")
	if r.exit != 0 || !strings.HasPrefix(r.stdout, "\n    Current FW version on flash:  28.42.1000\n    New FW version:               28.43.1014\n\n"+
		"\rInitializing image partition -   OK\n") ||
		!strings.HasSuffix(r.stdout, "\rWriting Boot image component - 100%\rWriting Boot image component -   OK\n-I- To load new FW run mlxfwreset or reboot machine.\n") {
		t.Errorf("burn: %d %q %q", r.exit, r.stdout, r.stderr)
	}
	// The flash holds the new image, the card runs the old one until a reset.
	r = runDouble(t, state, "", "flint", "-d", dev, "q")
	if !strings.HasPrefix(r.stdout, "Image type:            FS4\nFW Version:            28.43.1014\nFW Version(Running):   28.42.1000\nFW Release Date:       12.12.2024\n") {
		t.Errorf("query after burn:\n%s", r.stdout)
	}
	// Burning it again: the same version asks first (checkFwVersion), and -y answers.
	r = runDouble(t, state, "", "mstflint", "-d", "3b:00.0", "-i", good, "-y", "b")
	if !strings.Contains(r.stdout, "New FW version:               28.43.1014\n\n    Note: The new FW version is the same as the current FW version on flash.\n\n Do you want to continue ? (y/n) [n] : y\n\n") ||
		!strings.HasSuffix(r.stdout, "-I- To load new FW run mstfwreset or reboot machine.\n") {
		t.Errorf("same-version burn: %q", r.stdout)
	}
	r = runDouble(t, state, "n\n", "mstflint", "-d", "3b:00.0", "-i", good, "b")
	if r.exit != 7 || !strings.HasSuffix(r.stdout, " Do you want to continue ? (y/n) [n] : -E- Aborted by user\n") {
		t.Errorf("declined burn: %d %q", r.exit, r.stdout)
	}
	// A firmware reset loads it.
	if r = runDouble(t, state, "", "mlxfwreset", "-d", dev, "-l", "3", "-y", "reset"); r.exit != 0 {
		t.Fatalf("reset: %d %q", r.exit, r.stdout)
	}
	if r = runDouble(t, state, "", "flint", "-d", dev, "q"); strings.Contains(r.stdout, "Running") {
		t.Errorf("still a running version after the reset:\n%s", r.stdout)
	}
	// The image query prints the image's fields in the card's layout.
	r = runDouble(t, state, "", "flint", "-i", good, "q")
	if r.exit != 0 || !strings.Contains(r.stdout, "FW Version:            28.43.1014\n") || !strings.Contains(r.stdout, "PSID:                  MT_0000001244\n") {
		t.Errorf("image query: %d %q", r.exit, r.stdout)
	}
}

func TestUpdateFirmware(t *testing.T) {
	e := newApplyEnv(t)
	dir := t.TempDir()
	good := writeImage(t, dir, "fw-good.bin", newerImage("MT_0000001244"))
	other := writeImage(t, dir, "fw-other.bin", newerImage("MT_0000000834"))
	calls := func() string {
		b, _ := os.ReadFile(e.log)
		return string(b)
	}

	// A PSID mismatch is refused before any burn: the log shows the two queries only.
	res, err := UpdateFirmware(e.ctx, e.r, ToolMlxconfig, dev, other)
	var pm *PSIDMismatchError
	if !errors.As(err, &pm) || pm.CardPSID != "MT_0000001244" || pm.ImagePSID != "MT_0000000834" || res.Burned {
		t.Fatalf("PSID mismatch: %v %+v", err, res)
	}
	if want := "PSID mismatch. The PSID on flash (MT_0000001244) differs from the PSID in the given image (MT_0000000834)."; err.Error() != want {
		t.Errorf("mismatch text %q", err)
	}
	if c := calls(); strings.Contains(c, " b\n") || strings.Contains(c, " burn\n") || strings.Count(c, "\n") != 2 {
		t.Errorf("calls after a refused update:\n%s", c)
	}

	// A missing image: flint's own words.
	_, err = UpdateFirmware(e.ctx, e.r, ToolMstconfig, "3b:00.0", filepath.Join(dir, "nope.bin"))
	var te *ToolError
	if !errors.As(err, &te) || te.Exit != 1 || !strings.HasPrefix(te.Message, "Cannot open Image: "+filepath.Join(dir, "nope.bin")+". Can not open file") {
		t.Errorf("missing image: %v", err)
	}

	res, err = UpdateFirmware(e.ctx, e.r, ToolMlxconfig, dev, good)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Burned || !res.ResetPending || res.Before.FWVersion != "28.42.1000" || res.After.FWVersion != "28.43.1014" || res.After.RunningVersion != "28.42.1000" {
		t.Errorf("update: burned %v pending %v before %s after %s running %s", res.Burned, res.ResetPending, res.Before.FWVersion, res.After.FWVersion, res.After.RunningVersion)
	}
	if got := readState(t, e.state).Devices[0].Firmware.FWVersion; got != "28.43.1014" {
		t.Errorf("the double's flash holds %s", got)
	}
	if res.Commands[2] != "flint -d "+dev+" -i "+good+" -y burn" {
		t.Errorf("commands %q", res.Commands)
	}

	// Again: already there, no burn, but the reset is still pending.
	n := strings.Count(calls(), "\n")
	res, err = UpdateFirmware(e.ctx, e.r, ToolMlxconfig, dev, good)
	if err != nil || res.Burned || !res.ResetPending || len(res.Commands) != 2 || strings.Count(calls(), "\n") != n+2 {
		t.Errorf("second update: %v burned %v pending %v %q", err, res.Burned, res.ResetPending, res.Commands)
	}
}

func TestCheckPSID(t *testing.T) {
	for _, c := range []struct {
		card, image string
		ok          bool
	}{{"MT_0000001244", "MT_0000001244", true}, {"MT_0000001244", "MT_0000000834", false}, {"", "MT_0000000834", true}, {"MT_0000001244", "", true}} {
		if err := CheckPSID(dev, "x.bin", c.card, c.image); (err == nil) != c.ok {
			t.Errorf("CheckPSID(%q, %q) = %v", c.card, c.image, err)
		}
	}
}

// TestUpdateFirmwareBurnFails: a burn that fails while writing (the double's burn_error fault,
// flint's FLINT_FSX_BURN_ERROR text after an unfinished progress line) is a ToolError carrying
// flint's message, the card keeps its image, and nothing is read back as burned.
func TestUpdateFirmwareBurnFails(t *testing.T) {
	e := newApplyEnv(t)
	st := gpuNodeState()
	st.Devices[0].BurnError = "Error while erasing the flash"
	writeState(t, e.state, st)
	good := writeImage(t, t.TempDir(), "fw-good.bin", newerImage("MT_0000001244"))
	res, err := UpdateFirmware(e.ctx, e.r, ToolMlxconfig, dev, good)
	var te *ToolError
	if !errors.As(err, &te) || te.Exit != 1 || te.Message != "Burning FS4 image failed: Error while erasing the flash" || te.Tool != "flint" {
		t.Fatalf("failed burn: %v", errText(err))
	}
	if !strings.Contains(res.Output, "Writing Boot image component -  30%-E- Burning FS4 image failed: Error while erasing the flash\n") {
		t.Errorf("output %q", res.Output)
	}
	if res.Burned || res.After.FWVersion != "28.42.1000" {
		t.Errorf("burned %v after %s", res.Burned, res.After.FWVersion)
	}
	if fw := readState(t, e.state).Devices[0].Firmware; fw.FWVersion != "28.42.1000" || fw.RunningVersion != "" {
		t.Errorf("the flash changed: %+v", fw)
	}
}
