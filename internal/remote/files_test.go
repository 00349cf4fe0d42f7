package remote

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/testrig"
)

// The test sshd runs on this machine, so the tests inspect the remote directory directly.

type entry struct {
	content string // "" for a directory; the target for a symlink
	mode    os.FileMode
	ino     uint64
	nlink   uint64
}

// snapshot records every entry of dir (hidden ones too) down to the inode, so "left exactly as
// it was" can be checked exactly.
func snapshot(t *testing.T, dir string) map[string]entry {
	t.Helper()
	des, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	snap := map[string]entry{}
	for _, de := range des {
		p := filepath.Join(dir, de.Name())
		fi, err := os.Lstat(p)
		if err != nil {
			t.Fatal(err)
		}
		st, ok := fi.Sys().(*syscall.Stat_t)
		if !ok {
			t.Fatalf("%s: no syscall.Stat_t", fi.Name())
		}
		e := entry{mode: fi.Mode(), ino: st.Ino, nlink: uint64(st.Nlink)} //nolint:unconvert // Nlink is uint32 on linux/arm64
		switch {
		case fi.Mode()&os.ModeSymlink != 0:
			e.content, _ = os.Readlink(p)
		case fi.Mode().IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			e.content = string(b)
		}
		snap[de.Name()] = e
	}
	return snap
}

func diffSnapshots(before, after map[string]entry) string {
	var d []string
	for name, b := range before {
		a, ok := after[name]
		switch {
		case !ok:
			d = append(d, "removed "+name)
		case a != b:
			d = append(d, fmt.Sprintf("changed %s: %+v -> %+v", name, b, a))
		}
	}
	for name := range after {
		if _, ok := before[name]; !ok {
			d = append(d, "added "+name)
		}
	}
	sort.Strings(d)
	return strings.Join(d, "\n")
}

func names(snap map[string]entry) []string {
	var n []string
	for k := range snap {
		n = append(n, k)
	}
	sort.Strings(n)
	return n
}

func writeLocal(t *testing.T, path, content string, mode os.FileMode) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil { // past the umask
		t.Fatal(err)
	}
}

func TestReadFile(t *testing.T) {
	testrig.RequirePeers(t)
	s := testrig.StartSSHD(t, testrig.SSHDOptions{})
	c := dialT(t, s)
	ctx := context.Background()
	dir := filepath.Join(s.Dir, "it's a dir")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}

	binary := "line\x00nul \xff\xfe\r\nno newline at end"
	writeLocal(t, filepath.Join(dir, "f $x"), binary, 0o644)
	got, ok, err := c.ReadFile(ctx, filepath.Join(dir, "f $x"))
	if err != nil || !ok || got != binary {
		t.Fatalf("ReadFile of a binary file = (%q, %v, %v)", got, ok, err)
	}

	writeLocal(t, filepath.Join(dir, "empty"), "", 0o644)
	if got, ok, err := c.ReadFile(ctx, filepath.Join(dir, "empty")); err != nil || !ok || got != "" {
		t.Fatalf("ReadFile of an empty file = (%q, %v, %v), want (\"\", true, nil)", got, ok, err)
	}

	if got, ok, err := c.ReadFile(ctx, filepath.Join(dir, "absent")); err != nil || ok || got != "" {
		t.Fatalf("ReadFile of an absent file = (%q, %v, %v), want (\"\", false, nil)", got, ok, err)
	}

	if _, ok, err := c.ReadFile(ctx, dir); err == nil || ok {
		t.Fatalf("ReadFile of a directory = (%v, %v), want an error", ok, err)
	}

	if err := os.Symlink(filepath.Join(dir, "absent"), filepath.Join(dir, "dangling")); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := c.ReadFile(ctx, filepath.Join(dir, "dangling")); err == nil || ok {
		t.Fatalf("ReadFile of a dangling symlink = (%v, %v), want an error: something is there", ok, err)
	}
}

func TestWriteFilesKeepsPreviousVersionsAndRestoreBringsThemBack(t *testing.T) {
	testrig.RequirePeers(t)
	s := testrig.StartSSHD(t, testrig.SSHDOptions{})
	c := dialT(t, s)
	ctx := context.Background()
	dir := filepath.Join(s.Dir, "etc opensm")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}

	// 1. Into an empty directory: files are created, there is nothing to keep.
	v1 := map[string]string{"opensm.conf": "routing_engine ftree\n", "partitions.conf": "Default=0x7fff, ipoib : ALL=full;\n"}
	b1, err := c.WriteFiles(ctx, dir, v1, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	want1 := Backup{Addr: "127.0.0.1:" + fmt.Sprint(s.Port), Dir: dir, Files: []BackedUpFile{{Name: "opensm.conf"}, {Name: "partitions.conf"}}}
	if fmt.Sprint(b1) != fmt.Sprint(want1) {
		t.Fatalf("first backup = %+v, want %+v", b1, want1)
	}
	snap := snapshot(t, dir)
	if got := names(snap); fmt.Sprint(got) != "[opensm.conf partitions.conf]" {
		t.Fatalf("after the first write the directory holds %q; temporaries left behind?", got)
	}
	for name, content := range v1 {
		if snap[name].content != content || snap[name].mode != 0o644 {
			t.Fatalf("%s = %q mode %v", name, snap[name].content, snap[name].mode)
		}
	}

	// A file put there by someone else, private, that the next write replaces.
	writeLocal(t, filepath.Join(dir, "node-name-map"), "0x1 old\n", 0o600)
	before := snapshot(t, dir)

	// 2. Replace all three, one with binary content and one large.
	large := make([]byte, 3<<20)
	if _, err := rand.Read(large); err != nil {
		t.Fatal(err)
	}
	v2 := map[string]string{"opensm.conf": "routing_engine updn\n", "partitions.conf": string(large), "node-name-map": "0x1 \"leaf01\"\x00\n"}
	b2, err := c.WriteFiles(ctx, dir, v2, 0o640)
	if err != nil {
		t.Fatal(err)
	}
	after := snapshot(t, dir)
	if got := names(after); fmt.Sprint(got) != "[node-name-map node-name-map.prev opensm.conf opensm.conf.prev partitions.conf partitions.conf.prev]" {
		t.Fatalf("after the second write the directory holds %q", got)
	}
	for _, f := range b2.Files {
		if !f.Existed || f.Prev != filepath.Join(dir, f.Name+".prev") {
			t.Fatalf("backup entry %+v: want Existed and Prev %s", f, filepath.Join(dir, f.Name+".prev"))
		}
		if after[f.Name].content != v2[f.Name] || after[f.Name].mode != 0o640 {
			t.Fatalf("%s: new content wrong (%d bytes) or mode %v", f.Name, len(after[f.Name].content), after[f.Name].mode)
		}
		// The previous version is the very file that was there: same inode, content and mode.
		if prev := after[f.Name+".prev"]; prev.ino != before[f.Name].ino || prev.content != before[f.Name].content || prev.mode != before[f.Name].mode || prev.nlink != 1 {
			t.Fatalf("%s.prev = %+v, want the old file %+v", f.Name, prev, before[f.Name])
		}
	}
	if got, ok, err := c.ReadFile(ctx, filepath.Join(dir, "partitions.conf")); err != nil || !ok || !bytes.Equal([]byte(got), large) {
		t.Fatalf("ReadFile of the large binary file: ok=%v err=%v equal=%v", ok, err, got == string(large))
	}

	// 3. Restore: the old versions are back, with their modes; .prev stays, so it can be repeated.
	for i := 0; i < 2; i++ {
		if err := c.Restore(ctx, b2); err != nil {
			t.Fatalf("Restore #%d: %v", i+1, err)
		}
		restored := snapshot(t, dir)
		for _, name := range []string{"opensm.conf", "partitions.conf", "node-name-map"} {
			if restored[name].content != before[name].content || restored[name].mode != before[name].mode {
				t.Fatalf("Restore #%d: %s = %q mode %v, want %q mode %v", i+1, name, restored[name].content, restored[name].mode, before[name].content, before[name].mode)
			}
		}
		if len(restored) != 6 {
			t.Fatalf("Restore #%d left %q", i+1, names(restored))
		}
	}

	// 4. A write that creates a file: Restore removes it again.
	b3, err := c.WriteFiles(ctx, dir, map[string]string{"opensm.conf": "routing_engine minhop\n", "guid2lid": "new\n"}, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if b3.Files[0].Name != "guid2lid" || b3.Files[0].Existed {
		t.Fatalf("backup of a new file: %+v", b3.Files[0])
	}
	if err := c.Restore(ctx, b3); err != nil {
		t.Fatal(err)
	}
	final := snapshot(t, dir)
	if _, ok := final["guid2lid"]; ok {
		t.Fatalf("Restore left the file the write created")
	}
	if final["opensm.conf"].content != before["opensm.conf"].content {
		t.Fatalf("opensm.conf after the second Restore = %q", final["opensm.conf"].content)
	}

	// 5. Restore with a .prev gone changes nothing.
	if _, err := c.WriteFiles(ctx, dir, map[string]string{"opensm.conf": "x\n", "partitions.conf": "y\n"}, 0o644); err != nil {
		t.Fatal(err)
	}
	b4 := Backup{Addr: b2.Addr, Dir: dir, Files: []BackedUpFile{
		{Name: "opensm.conf", Existed: true, Prev: filepath.Join(dir, "opensm.conf.prev")},
		{Name: "partitions.conf", Existed: true, Prev: filepath.Join(dir, "partitions.conf.gone")},
	}}
	before = snapshot(t, dir)
	if err := c.Restore(ctx, b4); err == nil || !strings.Contains(err.Error(), "nothing was changed") || !strings.Contains(err.Error(), "missing") {
		t.Fatalf("Restore with a missing previous version: %v", err)
	}
	if d := diffSnapshots(before, snapshot(t, dir)); d != "" {
		t.Fatalf("a failed Restore changed the directory:\n%s", d)
	}

	// 6. A backup is tied to its host.
	other := testrig.StartSSHD(t, testrig.SSHDOptions{Host: "127.0.0.2", Share: s})
	if err := dialT(t, other).Restore(ctx, b2); err == nil || !strings.Contains(err.Error(), "connected to") {
		t.Fatalf("Restore of another host's backup: %v", err)
	}
}

// setupFailureDir fills a directory with three existing files, an old .prev of one of them,
// and a stray file, and returns the write that replaces the three and creates a fourth.
func setupFailureDir(t *testing.T, dir string) map[string]string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	writeLocal(t, filepath.Join(dir, "a.conf"), "a old\n", 0o644)
	writeLocal(t, filepath.Join(dir, "a.conf.prev"), "a older\n", 0o600)
	writeLocal(t, filepath.Join(dir, "b.conf"), "b old\n", 0o600)
	writeLocal(t, filepath.Join(dir, "c.conf"), "c old\n", 0o644)
	writeLocal(t, filepath.Join(dir, "unrelated"), "keep me\n", 0o644)
	return map[string]string{"a.conf": "a new\n", "b.conf": "b new\n", "c.conf": "c new\n", "d.conf": "d new\n"}
}

func TestWriteFilesFailingMidwayLeavesEverythingAsItWas(t *testing.T) {
	testrig.RequirePeers(t)
	s := testrig.StartSSHD(t, testrig.SSHDOptions{})
	c := dialT(t, s)
	ctx := context.Background()

	// Every point of the commit: before the first rename, between renames, after the last.
	t.Cleanup(func() { testFailAfterRenames = -1 })
	for k := 0; k <= 4; k++ {
		dir := filepath.Join(s.Dir, fmt.Sprintf("inject-%d", k))
		files := setupFailureDir(t, dir)
		before := snapshot(t, dir)
		testFailAfterRenames = k
		_, err := c.WriteFiles(ctx, dir, files, 0o644)
		testFailAfterRenames = -1
		if err == nil || !strings.Contains(err.Error(), "every file was left as it was") || !strings.Contains(err.Error(), "injected failure") {
			t.Fatalf("failure after %d renames: %v", k, err)
		}
		if d := diffSnapshots(before, snapshot(t, dir)); d != "" {
			t.Fatalf("failure after %d renames changed the directory:\n%s", k, d)
		}
		if k == 2 {
			t.Logf("error after 2 renames reads: %v", err)
		}
	}

	// A target that is a directory: refused before anything is touched.
	dir := filepath.Join(s.Dir, "dir-target")
	files := setupFailureDir(t, dir)
	if err := os.Mkdir(filepath.Join(dir, "d.conf"), 0o755); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, dir)
	if _, err := c.WriteFiles(ctx, dir, files, 0o644); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Fatalf("WriteFiles over a directory: %v", err)
	}
	if d := diffSnapshots(before, snapshot(t, dir)); d != "" {
		t.Fatalf("WriteFiles over a directory changed the directory:\n%s", d)
	}

	// A target that is a symlink: refused, the link is not replaced by a file.
	dir = filepath.Join(s.Dir, "link-target")
	files = setupFailureDir(t, dir)
	if err := os.Symlink("a.conf", filepath.Join(dir, "d.conf")); err != nil {
		t.Fatal(err)
	}
	before = snapshot(t, dir)
	if _, err := c.WriteFiles(ctx, dir, files, 0o644); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Fatalf("WriteFiles over a symlink: %v", err)
	}
	if d := diffSnapshots(before, snapshot(t, dir)); d != "" {
		t.Fatalf("WriteFiles over a symlink changed the directory:\n%s", d)
	}

	// A real refusal by the kernel halfway through: c.conf is immutable, so a.conf and b.conf
	// have been renamed into place when the rename onto c.conf fails (EPERM, even for root).
	dir = filepath.Join(s.Dir, "immutable")
	files = setupFailureDir(t, dir)
	immutable := filepath.Join(dir, "c.conf")
	if out, err := exec.Command("chattr", "+i", immutable).CombinedOutput(); err != nil {
		t.Fatalf("chattr +i (needs root and e2fsprogs, as the test rig runs): %v: %s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("chattr", "-i", immutable).Run() })
	before = snapshot(t, dir)
	_, err := c.WriteFiles(ctx, dir, files, 0o644)
	if err == nil || !strings.Contains(err.Error(), "every file was left as it was") || !strings.Contains(err.Error(), "c.conf") {
		t.Fatalf("WriteFiles over an immutable file: %v", err)
	}
	if d := diffSnapshots(before, snapshot(t, dir)); d != "" {
		t.Fatalf("a write that failed on its third rename changed the directory:\n%s", d)
	}
	t.Logf("error from the immutable file reads: %v", err)

	// A directory that does not exist: nothing is created.
	missing := filepath.Join(s.Dir, "missing")
	if _, err := c.WriteFiles(ctx, missing, files, 0o644); err == nil || !strings.Contains(err.Error(), "nothing was changed") {
		t.Fatalf("WriteFiles into a missing directory: %v", err)
	}
	if _, err := os.Stat(missing); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("WriteFiles created %s", missing)
	}

	// Invalid requests are refused before any connection is used.
	for _, bad := range []struct {
		dir   string
		files map[string]string
	}{
		{"relative/dir", map[string]string{"a": "x"}},
		{dir, map[string]string{"../escape": "x"}},
		{dir, map[string]string{"a": "x", "a.prev": "y"}},
		{dir, map[string]string{"new\nline": "x"}},
		{dir, map[string]string{}},
	} {
		if _, err := c.WriteFiles(ctx, bad.dir, bad.files, 0o644); err == nil {
			t.Errorf("WriteFiles(%q, %q) succeeded", bad.dir, bad.files)
		}
	}
}

func TestWriteFilesHoldsOneLockPerHost(t *testing.T) {
	testrig.RequirePeers(t)
	a := testrig.StartSSHD(t, testrig.SSHDOptions{})
	b := testrig.StartSSHD(t, testrig.SSHDOptions{Host: "127.0.0.2", Share: a})
	ca, cb := dialT(t, a), dialT(t, b)
	ctx := context.Background()
	files := map[string]string{"opensm.conf": "x\n"}

	// A push to host a holds its lock across several calls.
	locked, release, err := ca.Lock(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ca.WriteFiles(locked, a.Dir, files, 0o644); err != nil {
		t.Fatalf("WriteFiles under the caller's own lock: %v", err)
	}
	// Meanwhile another writer to host a waits (here: until its deadline)...
	short, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	if _, err := ca.WriteFiles(short, a.Dir, files, 0o644); !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "lock") {
		t.Fatalf("WriteFiles to a locked host: %v; want it to wait for the lock", err)
	}
	// ...even over another connection to the same host...
	ca2 := dialT(t, a)
	if err := ca2.Restore(short, Backup{Addr: ca2.lockKey, Dir: a.Dir, Files: []BackedUpFile{{Name: "x"}}}); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Restore to a locked host over a second connection: %v", err)
	}
	// ...while host b is free.
	if _, err := cb.WriteFiles(ctx, b.Dir, files, 0o644); err != nil {
		t.Fatalf("WriteFiles to the other host: %v", err)
	}
	release()

	// Concurrent writers to one host all succeed, one after the other.
	errs := make(chan error, 6)
	for i := 0; i < 6; i++ {
		go func(i int) {
			cl := ca
			if i%2 == 1 {
				cl = cb
			}
			_, err := cl.WriteFiles(ctx, map[bool]string{true: a.Dir, false: b.Dir}[i%2 == 0], map[string]string{"opensm.conf": fmt.Sprintf("writer %d\n", i)}, 0o644)
			errs <- err
		}(i)
	}
	for i := 0; i < 6; i++ {
		if err := <-errs; err != nil {
			t.Fatalf("concurrent WriteFiles: %v", err)
		}
	}
	for _, dir := range []string{a.Dir, b.Dir} {
		for _, name := range names(snapshot(t, dir)) {
			if strings.HasPrefix(name, ".") {
				t.Fatalf("temporary %s left in %s", name, dir)
			}
		}
	}
}

// Whenever the caller's context ends, WriteFiles either finished (every file new) or changed
// nothing: cancellation lands in different phases depending on the deadline.
func TestWriteFilesCancelledIsAllOrNothing(t *testing.T) {
	testrig.RequirePeers(t)
	s := testrig.StartSSHD(t, testrig.SSHDOptions{})
	c := dialT(t, s)
	for _, d := range []time.Duration{time.Millisecond, 50 * time.Millisecond, 150 * time.Millisecond, 300 * time.Millisecond, 600 * time.Millisecond, 5 * time.Second} {
		dir := filepath.Join(s.Dir, "cancel-"+d.String())
		files := setupFailureDir(t, dir)
		before := snapshot(t, dir)
		ctx, cancel := context.WithTimeout(context.Background(), d)
		_, err := c.WriteFiles(ctx, dir, files, 0o644)
		cancel()
		after := snapshot(t, dir)
		t.Logf("deadline %s: err %v", d, err)
		if err != nil {
			if diff := diffSnapshots(before, after); diff != "" {
				t.Fatalf("deadline %s: WriteFiles failed (%v) but changed the directory:\n%s", d, err, diff)
			}
			continue
		}
		for name, content := range files {
			if after[name].content != content {
				t.Fatalf("deadline %s: WriteFiles succeeded but %s = %q", d, name, after[name].content)
			}
		}
		for _, name := range names(after) {
			if strings.HasPrefix(name, ".") {
				t.Fatalf("deadline %s: temporary %s left behind", d, name)
			}
		}
	}
}
