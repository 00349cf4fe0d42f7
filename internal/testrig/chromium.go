package testrig

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"
)

// chromiumFlags keep a headless Chromium off the network and away from any profile: its own
// user-data dir per run, no sandbox (root in a container), no GPU, no background traffic.
var chromiumFlags = []string{
	"--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
	"--disable-component-update", "--disable-sync", "--no-first-run", "--hide-scrollbars",
}

// runChromium runs Debian's chromium once with args after the fixed flags, in its own process
// group (killed with the group after a minute), and returns its stdout.
func runChromium(t TB, args ...string) []byte {
	t.Helper()
	bin := Need(t, "chromium", "chromium")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	full := append(append([]string{}, chromiumFlags...), "--user-data-dir="+t.TempDir())
	full = append(full, args...)
	cmd := exec.CommandContext(ctx, bin, full...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	var stderr syncBuffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium %v: %v\n%s", args, err, stderr.String())
	}
	return out
}

// ChromiumDumpDOM opens file in headless Chromium and returns the DOM it rendered, serialized.
func ChromiumDumpDOM(t TB, file string) string {
	t.Helper()
	abs, err := filepath.Abs(file)
	if err != nil {
		t.Fatal(err)
	}
	return string(runChromium(t, "--dump-dom", "file://"+abs))
}

// ChromiumScreenshot opens file in headless Chromium with a window of width x height and returns
// the PNG it wrote.
func ChromiumScreenshot(t TB, file string, width, height int) []byte {
	t.Helper()
	abs, err := filepath.Abs(file)
	if err != nil {
		t.Fatal(err)
	}
	png := filepath.Join(t.TempDir(), "screenshot.png")
	runChromium(t, "--screenshot="+png, "--window-size="+strconv.Itoa(width)+","+strconv.Itoa(height), "file://"+abs)
	b, err := os.ReadFile(png)
	if err != nil {
		t.Fatalf("chromium wrote no screenshot: %v", err)
	}
	return b
}
