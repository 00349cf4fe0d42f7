package remote

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/testrig"
)

// smallFS mounts a tmpfs of size bytes at a new directory and unmounts it when the test ends.
func smallFS(t *testing.T, size string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "small")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size+",mode=0755", "tmpfs", dir).CombinedOutput(); err != nil {
		t.Fatalf("mounting a %s tmpfs (the tests run as root): %v: %s", size, err, out)
	}
	t.Cleanup(func() { _ = exec.Command("umount", dir).Run() })
	return dir
}

// TestWriteFilesChecksSpaceFirst (issue 22, item 6): on a 128 KiB file system holding six files
// of 16 KiB, six new files of 16 KiB would fit in place of the old ones (32 KiB free + 96 KiB
// they take) but not next to them, where WriteFiles writes them (the old ones stay as .prev).
// The write is refused before anything is staged, saying how much it needs and why, and the
// directory is exactly as it was; six files of 4 KiB, which fit next to the old ones, are
// written.
func TestWriteFilesChecksSpaceFirst(t *testing.T) {
	testrig.RequirePeers(t)
	s := testrig.StartSSHD(t, testrig.SSHDOptions{})
	c := dialT(t, s)
	dir := smallFS(t, "128k")
	ctx := context.Background()
	set := func(size int, fill string) map[string]string {
		files := map[string]string{}
		for _, n := range []string{"opensm.conf", "partitions.conf", "root_guids.conf", "cn_guids.conf", "node-name-map", "torus-2QoS.conf"} {
			files[n] = strings.Repeat(fill, size)
		}
		return files
	}
	if _, err := c.WriteFiles(ctx, dir, set(16<<10, "a"), 0o644); err != nil {
		t.Fatalf("first write of 96 KiB on 128 KiB: %v", err)
	}
	before := snapshot(t, dir)
	_, err := c.WriteFiles(ctx, dir, set(16<<10, "b"), 0o644)
	if !errors.Is(err, ErrNoSpace) {
		t.Fatalf("second write of 96 KiB next to 96 KiB on 128 KiB: %v; want ErrNoSpace", err)
	}
	for _, want := range []string{"nothing was changed", "the new files take 96 KiB and the file system has 32 KiB free", "current ones (96 KiB, kept as .prev", "free at least 64 KiB"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q: %v", want, err)
		}
	}
	if d := diffSnapshots(before, snapshot(t, dir)); d != "" {
		t.Fatalf("the refused write changed the directory:\n%s", d)
	}
	if _, err := c.WriteFiles(ctx, dir, set(4<<10, "c"), 0o644); err != nil {
		t.Fatalf("a write of 24 KiB with 32 KiB free: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "opensm.conf.prev")); len(b) != 16<<10 || b[0] != 'a' {
		t.Errorf("opensm.conf.prev holds %d bytes", len(b))
	}
}
