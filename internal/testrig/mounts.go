package testrig

import (
	"os/exec"
	"strconv"
	"sync"
	"syscall"
)

// Faults an SM host's file system can show during a push, made real with mount(8) (the tests
// run as root, as the rig's sshd and OpenSM do). The mounts are made in the machine's mount
// namespace, where the rig's sshd runs, so that the commands it runs see them; each is undone
// when the test ends, failed or not (t.Cleanup; a lazy unmount when something still holds it).

// MountTmpfs mounts a tmpfs of size (mount's syntax: "64k") on the existing directory dir.
func MountTmpfs(t TB, dir, size string) {
	t.Helper()
	Need(t, "mount", "mount")
	mount(t, dir, "-t", "tmpfs", "-o", "size="+size+",mode=0755", "tmpfs", dir)
}

// LimitInodes remounts the tmpfs at dir so that it holds at most extra more files than it holds
// now: creating the next ones fails with ENOSPC ("No space left on device") while bytes remain,
// which is how a disk full of small files looks. A byte count (df) does not foresee it.
func LimitInodes(t TB, dir string, extra uint64) {
	t.Helper()
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		t.Fatalf("statfs %s: %v", dir, err)
	}
	used := st.Files - st.Ffree
	if out, err := exec.Command("mount", "-o", "remount,nr_inodes="+strconv.FormatUint(used+extra, 10), dir).CombinedOutput(); err != nil {
		t.Fatalf("limiting %s to %d more files: %v: %s", dir, extra, err, out)
	}
}

// BindOver bind-mounts file over itself. The file reads and writes as before, but it is now a
// mount point: rename(2) onto it fails with EBUSY ("Device or resource busy") and link(2) from it
// with EXDEV, as on a host whose file is held by a bind mount (a container's or an overlay's).
// A write that replaces it by a rename fails there, after the files before it were renamed.
// undo takes the mount away before the test ends (a destroy must remove the file).
func BindOver(t TB, file string) (undo func()) {
	t.Helper()
	Need(t, "mount", "mount")
	return mount(t, file, "--bind", file, file)
}

// mount runs mount(8) and returns the unmount, which also runs when the test ends (once).
func mount(t TB, target string, args ...string) func() {
	t.Helper()
	if out, err := exec.Command("mount", args...).CombinedOutput(); err != nil {
		t.Fatalf("mount %v: %v: %s", args, err, out)
	}
	var once sync.Once
	undo := func() {
		once.Do(func() {
			if exec.Command("umount", target).Run() != nil {
				_ = exec.Command("umount", "-l", target).Run()
			}
		})
	}
	t.Cleanup(undo)
	return undo
}
