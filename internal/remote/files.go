package remote

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// commitTimeout bounds the remote commit and restore scripts. They are not cancelled with the
// caller's context: stopping one halfway is exactly what they exist to prevent, and they only
// rename and link files, so they finish in milliseconds.
const commitTimeout = 2 * time.Minute

// stageParallel bounds the sessions one WriteFiles opens at once; OpenSSH allows 10 per
// connection (MaxSessions), and other callers share the connection.
const stageParallel = 4

// cleanupTimeout bounds removing staged temporaries after a failure, also past ctx's end.
const cleanupTimeout = 30 * time.Second

// Backup says where WriteFiles left the previous versions, for Restore.
type Backup struct {
	Addr  string // host:port the files live on (the lock key); Restore refuses another host
	Dir   string
	Files []BackedUpFile // sorted by Name
}

// BackedUpFile is one file of a Backup.
type BackedUpFile struct {
	Name    string
	Existed bool   // false: WriteFiles created it, and Restore removes it
	Prev    string // absolute path of the previous version when Existed: normally Dir/Name.prev
}

// ReadFile returns the content of a remote file (any bytes), exists false if there is nothing
// at path. A path that exists but cannot be read (a directory, no permission) is an error.
func (c *Client) ReadFile(ctx context.Context, p string) (content string, exists bool, err error) {
	if p == "" || strings.ContainsRune(p, 0) {
		return "", false, fmt.Errorf("remote: ReadFile: invalid path %q", p)
	}
	q := Quote(p)
	// Exit status 3 means "absent"; cat only ever fails with 1.
	script := "if [ -e " + q + " ] || [ -L " + q + " ]; then exec cat -- " + q + "; fi; exit 3"
	stdout, stderr, exit, err := c.Run(ctx, script)
	switch {
	case err != nil:
		return "", false, err
	case exit == 0:
		return stdout, true, nil
	case exit == 3 && stdout == "":
		return "", false, nil
	default:
		return "", false, fmt.Errorf("remote: reading %s on %s: exit status %d: %s", p, c.addr, exit, strings.TrimSpace(stderr))
	}
}

// WriteFiles replaces files (name -> content) in the absolute directory dir, all or nothing,
// with mode (permission bits). Each new file is staged as a temporary file in dir, through the
// session's stdin and checked for length; then one remote script links every existing file to a
// backup name, fsyncs, and renames every temporary into place. If any step fails, the script
// puts back what it had renamed (the original inodes), removes its temporaries and backups, and
// the directory is exactly as before. On success the previous versions are kept as <name>.prev.
// Atomicity is rename(2)'s: POSIX.1-2017 (IEEE Std 1003.1) has rename replace its target in one
// step, so a reader opens the old file or the new one, never a part.
//
// Targets that are symbolic links or not regular files are refused, so a link is never
// silently replaced by a file. New files belong to the SSH user. WriteFiles holds the host's
// lock unless ctx already does (see LockHost).
func (c *Client) WriteFiles(ctx context.Context, dir string, files map[string]string, mode os.FileMode) (Backup, error) {
	names, err := checkWrite(dir, files)
	if err != nil {
		return Backup{}, err
	}
	ctx, release, err := c.Lock(ctx)
	if err != nil {
		return Backup{}, err
	}
	defer release()

	dir = path.Clean(dir)
	id, err := newID()
	if err != nil {
		return Backup{}, err
	}
	ops := make([]fileOp, len(names))
	for i, name := range names {
		ops[i] = fileOp{
			name: name,
			path: path.Join(dir, name),
			prev: path.Join(dir, name+".prev"),
			tmp:  path.Join(dir, "."+name+".gpc-"+id+".new"),
			old:  path.Join(dir, "."+name+".gpc-"+id+".old"),
		}
	}

	if err := c.checkSpace(ctx, dir, ops, files); err != nil {
		return Backup{}, err
	}

	// Stage, a few files at a time (each session costs a remote login shell start). Nothing
	// visible changes yet; on failure only our temporaries need removing.
	stageErrs := make([]error, len(ops))
	sem := make(chan struct{}, stageParallel)
	var wg sync.WaitGroup
	for i, op := range ops {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			stageErrs[i] = c.stage(ctx, op.tmp, files[op.name], mode)
		}()
	}
	wg.Wait()
	for i, err := range stageErrs {
		if err != nil {
			c.removeTemps(ctx, ops)
			return Backup{}, fmt.Errorf("remote: writing %s on %s: nothing was changed: %w", ops[i].path, c.addr, err)
		}
	}

	// Commit.
	runCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), commitTimeout)
	defer cancel()
	stdout, stderr, exit, err := c.RunWithInput(runCtx, "exec /bin/sh -s", strings.NewReader(commitScript(dir, ops, testFailAfterRenames)))
	if err != nil {
		// The script ignores hangups and finishes on its own; what it left is unknown here.
		return Backup{}, fmt.Errorf("remote: committing %s on %s: the outcome is unknown (the remote script keeps running to completion or rollback; inspect the directory): %w", strings.Join(names, ", "), c.addr, err)
	}
	switch exit {
	case 0:
	case 1:
		return Backup{}, fmt.Errorf("remote: writing %s in %s on %s failed; every file was left as it was: %s", strings.Join(names, ", "), dir, c.addr, scriptError(stderr))
	case 2:
		return Backup{}, fmt.Errorf("remote: writing %s in %s on %s failed AND ROLLBACK WAS INCOMPLETE; the previous versions of the files named below are kept as .<name>.gpc-%s.old in that directory: %s",
			strings.Join(names, ", "), dir, c.addr, id, scriptError(stderr))
	default:
		// Not one of the script's own statuses: the shell itself failed or was killed.
		return Backup{}, fmt.Errorf("remote: writing %s in %s on %s: the commit script ended with status %d; the outcome is unknown (inspect the directory for .gpc-%s. files): %s",
			strings.Join(names, ", "), dir, c.addr, exit, id, scriptError(stderr))
	}

	b := Backup{Addr: c.lockKey, Dir: dir, Files: make([]BackedUpFile, len(ops))}
	seen := make([]bool, len(ops))
	sc := bufio.NewScanner(strings.NewReader(stdout))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 4 || f[0] != "gpc-file" {
			continue
		}
		i, err := strconv.Atoi(f[1])
		if err != nil || i < 0 || i >= len(ops) {
			continue
		}
		seen[i] = true
		b.Files[i] = BackedUpFile{Name: ops[i].name, Existed: f[2] == "1"}
		switch f[3] {
		case "prev":
			b.Files[i].Prev = ops[i].prev
		case "kept":
			// The old version could not be moved to .prev; it stays under its backup name.
			b.Files[i].Prev = ops[i].old
		}
	}
	for i, ok := range seen {
		if !ok {
			return b, fmt.Errorf("remote: the new files are in place in %s on %s, but the report on %s's previous version is missing; Restore cannot be trusted for it", dir, c.addr, ops[i].name)
		}
	}
	return b, nil
}

// BackupOf describes, for Restore, the previous versions an earlier WriteFiles left in dir on
// this host (<name>.prev for the files that existed, none for those it created): the way back
// after a push whose connection was lost before it could use the Backup WriteFiles returned.
func (c *Client) BackupOf(dir string, files []BackedUpFile) Backup {
	out := append([]BackedUpFile(nil), files...)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return Backup{Addr: c.lockKey, Dir: path.Clean(dir), Files: out}
}

// Restore puts the previous versions recorded in b back (copied from the .prev files, with
// their mode and owner, each replaced by a rename) and removes the files that did not exist
// before. The .prev files stay, so Restore can be repeated. Each file is staged before any is
// replaced, so a missing backup changes nothing. Restore holds the host's lock unless ctx
// already does.
func (c *Client) Restore(ctx context.Context, b Backup) error {
	if b.Addr != c.lockKey {
		return fmt.Errorf("remote: the backup is of %s, but this client is connected to %s", b.Addr, c.lockKey)
	}
	if len(b.Files) == 0 {
		return nil
	}
	if !path.IsAbs(b.Dir) || strings.ContainsRune(b.Dir, 0) {
		return fmt.Errorf("remote: Restore: backup directory %q is not an absolute path", b.Dir)
	}
	ops := make([]fileOp, len(b.Files))
	id, err := newID()
	if err != nil {
		return err
	}
	for i, f := range b.Files {
		if err := checkName(f.Name); err != nil {
			return err
		}
		if f.Existed && (!path.IsAbs(f.Prev) || strings.ContainsRune(f.Prev, 0)) {
			return fmt.Errorf("remote: Restore: backup of %s has no usable previous version path %q", f.Name, f.Prev)
		}
		ops[i] = fileOp{
			name:    f.Name,
			path:    path.Join(b.Dir, f.Name),
			prev:    f.Prev,
			tmp:     path.Join(b.Dir, "."+f.Name+".gpc-"+id+".new"),
			existed: f.Existed,
		}
	}
	ctx, release, err := c.Lock(ctx)
	if err != nil {
		return err
	}
	defer release()
	runCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), commitTimeout)
	defer cancel()
	_, stderr, exit, err := c.RunWithInput(runCtx, "exec /bin/sh -s", strings.NewReader(restoreScript(b.Dir, ops)))
	switch {
	case err != nil:
		return fmt.Errorf("remote: restoring %s on %s: the outcome is unknown: %w", b.Dir, c.addr, err)
	case exit == 1:
		return fmt.Errorf("remote: restoring %s on %s failed; nothing was changed: %s", b.Dir, c.addr, scriptError(stderr))
	case exit == 2:
		return fmt.Errorf("remote: restoring %s on %s was INCOMPLETE: %s", b.Dir, c.addr, scriptError(stderr))
	case exit != 0:
		return fmt.Errorf("remote: restoring %s on %s: the restore script ended with status %d; the outcome is unknown: %s", b.Dir, c.addr, exit, scriptError(stderr))
	}
	return nil
}

// spaceBlock is the allocation unit each file is rounded up to when the space a write needs is
// counted: 4 KiB, the block of ext4 and xfs by default and the page of tmpfs.
const spaceBlock = 4096

// ErrNoSpace marks a write refused because the file system cannot hold it (errors.Is).
var ErrNoSpace = errors.New("not enough space")

// checkSpace refuses a write the directory's file system cannot hold, before anything is
// staged (issue 22: a host with room for the new files in place of the old ones, but not next to
// them, failed halfway). A write holds, at its peak, every new file (staged) next to the current
// ones, which it keeps as .prev (a hard link: their blocks stay allocated) and the older .prev
// files (freed only at the end): it needs room for the new files, whatever the current ones
// take. (Where the file system cannot link, the commit copies the current files too, and refuses
// cleanly, with everything left as it was, if that copy does not fit.) df -P reports the space
// available to the SSH user.
func (c *Client) checkSpace(ctx context.Context, dir string, ops []fileOp, files map[string]string) error {
	var script strings.Builder
	fmt.Fprintf(&script, "df -Pk -- %s | awk 'NR==2 {print \"gpc-avail \" $4}'\n", Quote(dir))
	for i, op := range ops {
		fmt.Fprintf(&script, "if [ -f %s ]; then echo \"gpc-size %d $(wc -c < %s)\"; fi\n", Quote(op.path), i, Quote(op.path))
	}
	stdout, _, exit, err := c.Run(ctx, script.String())
	if err != nil {
		return fmt.Errorf("remote: writing in %s on %s: nothing was changed: %w", dir, c.addr, err)
	}
	avail := int64(-1)
	var current int64
	for _, line := range strings.Split(stdout, "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) == 2 && f[0] == "gpc-avail":
			if n, err := strconv.ParseInt(f[1], 10, 64); err == nil {
				avail = n * 1024
			}
		case len(f) == 3 && f[0] == "gpc-size":
			if n, err := strconv.ParseInt(f[2], 10, 64); err == nil {
				current += blocks(n)
			}
		}
	}
	if exit != 0 || avail < 0 {
		return nil // no df on the host (or none that speaks -P): the write finds out for itself
	}
	var staged int64
	for _, op := range ops {
		staged += blocks(int64(len(files[op.name])))
	}
	if staged > avail {
		names := make([]string, len(ops))
		for i, op := range ops {
			names[i] = op.name
		}
		return fmt.Errorf("remote: writing %s in %s on %s: nothing was changed: %w: the new files take %s and the file system has %s free for this user; they are written next to the current ones (%s, kept as .prev for a rollback, so not freed), so free at least %s there or move config_dir",
			strings.Join(names, ", "), dir, c.addr, ErrNoSpace, kib(staged), kib(avail), kib(current), kib(staged-avail))
	}
	return nil
}

// blocks is n bytes rounded up to whole spaceBlocks, in bytes.
func blocks(n int64) int64 { return (n + spaceBlock - 1) / spaceBlock * spaceBlock }

func kib(n int64) string { return strconv.FormatInt((n+1023)/1024, 10) + " KiB" }

type fileOp struct {
	name    string
	path    string // the live file
	prev    string // where the previous version is kept
	tmp     string // the staged new content
	old     string // backup link to the previous version while committing
	existed bool   // Restore: the file existed before WriteFiles
}

// stage writes content to tmp through stdin. noclobber makes the shell refuse a tmp that
// somebody already created (a planted symlink, for one); umask 077 keeps the content private
// until chmod gives it its final mode; wc -c proves every byte arrived.
func (c *Client) stage(ctx context.Context, tmp, content string, mode os.FileMode) error {
	q := Quote(tmp)
	script := fmt.Sprintf("umask 077 && set -C && cat > %s && chmod %04o %s && wc -c < %s", q, mode.Perm(), q, q)
	stdout, stderr, exit, err := c.RunWithInput(ctx, script, strings.NewReader(content))
	if err != nil {
		return err
	}
	if exit != 0 {
		return fmt.Errorf("exit status %d: %s", exit, strings.TrimSpace(stderr))
	}
	if n, err := strconv.Atoi(strings.TrimSpace(stdout)); err != nil || n != len(content) {
		return fmt.Errorf("staged %q bytes of %d", strings.TrimSpace(stdout), len(content))
	}
	return nil
}

// removeTemps deletes staged temporaries, even after ctx has ended (best effort).
func (c *Client) removeTemps(ctx context.Context, ops []fileOp) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cleanupTimeout)
	defer cancel()
	args := []string{"rm", "-f", "--"}
	for _, op := range ops {
		args = append(args, op.tmp)
	}
	_, _, _, _ = c.Run(ctx, Command(args...))
}

// testFailAfterRenames, when >= 0, makes the commit script fail after that many renames: the
// tests use it to exercise the rollback of a commit that fails halfway.
var testFailAfterRenames = -1

// commitScript is the remote half of WriteFiles. It never exits without either finishing or
// rolling back: hangups and broken pipes are ignored, so losing the connection cannot stop it.
// Exit 0: done, one "gpc-file <i> <existed 0|1> <prev|kept|none>" line per file on stdout.
// Exit 1: failed and rolled back. Exit 2: failed and some rollback step failed too (stderr says
// which; the backup links are then kept).
func commitScript(dir string, ops []fileOp, failAfter int) string {
	var s strings.Builder
	w := func(format string, a ...any) { fmt.Fprintf(&s, format+"\n", a...) }
	q := Quote
	msg := func(text string) string { return q(text) }

	w("trap '' HUP PIPE")
	for i := range ops {
		w("e%d=0 r%d=0", i, i)
	}
	w("bad=")
	w("rollback() {")
	for i := len(ops) - 1; i >= 0; i-- {
		op := ops[i]
		// Undo in reverse order: put the original inode back, or remove a file that is new.
		w("  if [ $r%d = 1 ]; then", i)
		w("    if [ $e%d = 1 ]; then mv -f -- %s %s || bad=\"$bad \"%s; else rm -f -- %s || bad=\"$bad \"%s; fi", i, q(op.old), q(op.path), q(op.path), q(op.path), q(op.path))
		w("  else rm -f -- %s %s; fi", q(op.tmp), q(op.old))
	}
	w("}")
	w("fail() {")
	w("  rollback")
	w("  printf 'gpc-error: %%s\\n' \"$1\" >&2")
	w("  if [ -n \"$bad\" ]; then printf 'gpc-error: could not restore:%%s\\n' \"$bad\" >&2; exit 2; fi")
	w("  exit 1")
	w("}")

	// Preflight: refuse before touching anything.
	w("[ -d %s ] || fail %s", q(dir), msg(dir+" is not a directory"))
	for _, op := range ops {
		for _, p := range []string{op.path, op.prev} {
			w("[ -L %s ] && fail %s", q(p), msg(p+" is a symbolic link; refusing to replace it"))
			w("[ -e %s ] && [ ! -f %s ] && fail %s", q(p), q(p), msg(p+" exists and is not a regular file"))
		}
		w("[ -f %s ] || fail %s", q(op.tmp), msg("the staged "+op.tmp+" is missing"))
	}

	// Keep the previous versions: a hard link keeps the very inode (content, mode, owner) for
	// rollback; cp -p covers file systems without hard links.
	for i, op := range ops {
		w("if [ -f %s ]; then e%d=1; ln -- %s %s 2>/dev/null || cp -p -- %s %s || fail %s; fi",
			q(op.path), i, q(op.path), q(op.old), q(op.path), q(op.old), msg("cannot keep a backup of "+op.path))
	}

	// Data reaches the disk before the renames make it live (best effort: sync(1) of single
	// files is a coreutils/busybox feature; a plain sync is the fallback).
	tmps := make([]string, len(ops))
	for i, op := range ops {
		tmps[i] = q(op.tmp)
	}
	w("sync -- %s 2>/dev/null || sync 2>/dev/null || :", strings.Join(tmps, " "))

	for i, op := range ops {
		if i == failAfter {
			w("fail %s", msg(fmt.Sprintf("injected failure after %d renames (test hook)", i)))
		}
		w("mv -f -- %s %s || fail %s", q(op.tmp), q(op.path), msg("cannot move the new "+op.path+" into place"))
		w("r%d=1", i)
	}
	if failAfter >= len(ops) {
		w("fail %s", msg(fmt.Sprintf("injected failure after %d renames (test hook)", len(ops))))
	}

	// Committed. Move the backups to .prev; if that fails the backup stays where it is and the
	// report says so. mv refuses when .prev is already the same inode (after a Restore made by
	// hand with ln): then .prev already holds the previous version.
	w("sync -- %s 2>/dev/null || :", q(dir))
	for i, op := range ops {
		w("if [ $e%d = 1 ]; then", i)
		w("  if mv -f -- %s %s 2>/dev/null; then echo 'gpc-file %d 1 prev'", q(op.old), q(op.prev), i)
		w("  elif [ %s -ef %s ]; then rm -f -- %s; echo 'gpc-file %d 1 prev'", q(op.old), q(op.prev), q(op.old), i)
		w("  else echo 'gpc-file %d 1 kept'; fi", i)
		w("else echo 'gpc-file %d 0 none'; fi", i)
	}
	w("exit 0")
	return s.String()
}

// restoreScript is the remote half of Restore: check, stage every previous version, then
// rename them into place and remove the files that were new. Exit 1: nothing was changed.
// Exit 2: some files could not be put back (stderr says which).
func restoreScript(dir string, ops []fileOp) string {
	var s strings.Builder
	w := func(format string, a ...any) { fmt.Fprintf(&s, format+"\n", a...) }
	q := Quote

	w("trap '' HUP PIPE")
	var tmps []string
	for _, op := range ops {
		if op.existed {
			tmps = append(tmps, q(op.tmp))
		}
	}
	rmTmps := ":"
	if len(tmps) > 0 {
		rmTmps = "rm -f -- " + strings.Join(tmps, " ")
	}
	w("fail() { %s; printf 'gpc-error: %%s\\n' \"$1\" >&2; exit 1; }", rmTmps)
	w("[ -d %s ] || fail %s", q(dir), q(dir+" is not a directory"))
	for _, op := range ops {
		w("[ -L %s ] && fail %s", q(op.path), q(op.path+" is a symbolic link; refusing to replace it"))
		w("[ -e %s ] && [ ! -f %s ] && fail %s", q(op.path), q(op.path), q(op.path+" exists and is not a regular file"))
		if op.existed {
			w("[ -f %s ] && [ ! -L %s ] || fail %s", q(op.prev), q(op.prev), q("the previous version "+op.prev+" is missing"))
		}
	}
	for _, op := range ops {
		if op.existed {
			w("cp -p -- %s %s || fail %s", q(op.prev), q(op.tmp), q("cannot copy "+op.prev))
		}
	}
	if len(tmps) > 0 {
		w("sync -- %s 2>/dev/null || sync 2>/dev/null || :", strings.Join(tmps, " "))
	}
	w("bad=")
	for _, op := range ops {
		if op.existed {
			w("mv -f -- %s %s || bad=\"$bad \"%s", q(op.tmp), q(op.path), q(op.path))
		} else {
			w("rm -f -- %s || bad=\"$bad \"%s", q(op.path), q(op.path))
		}
	}
	w("%s", rmTmps)
	w("sync -- %s 2>/dev/null || :", q(dir))
	w("if [ -n \"$bad\" ]; then printf 'gpc-error: could not restore:%%s\\n' \"$bad\" >&2; exit 2; fi")
	w("exit 0")
	return s.String()
}

// scriptError puts the scripts' own messages first, then what the failing commands said
// (mv's "Operation not permitted", for one).
func scriptError(stderr string) string {
	var msgs, other []string
	for _, line := range strings.Split(stderr, "\n") {
		if m, ok := strings.CutPrefix(line, "gpc-error: "); ok {
			msgs = append(msgs, m)
		} else if line = strings.TrimSpace(line); line != "" {
			other = append(other, line)
		}
	}
	out := strings.Join(msgs, "; ")
	if len(other) > 0 {
		if out != "" {
			out += " "
		}
		out += "(" + strings.Join(other, "; ") + ")"
	}
	return out
}

func checkWrite(dir string, files map[string]string) ([]string, error) {
	if !path.IsAbs(dir) || strings.ContainsRune(dir, 0) {
		return nil, fmt.Errorf("remote: WriteFiles: directory %q must be an absolute path", dir)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("remote: WriteFiles: no files to write in %s", dir)
	}
	names := make([]string, 0, len(files))
	for name := range files {
		if err := checkName(name); err != nil {
			return nil, err
		}
		if _, clash := files[name+".prev"]; clash {
			return nil, fmt.Errorf("remote: WriteFiles: %q and %q cannot be written together: the second keeps the first's previous version", name, name+".prev")
		}
		names = append(names, name)
	}
	sort.Strings(names)
	return names, nil
}

// checkName accepts a plain file name: the files of one call share a directory, and a name is
// embedded in temporary names within NAME_MAX.
func checkName(name string) error {
	if name == "" || name == "." || name == ".." || len(name) > 200 || strings.ContainsAny(name, "/\x00") {
		return fmt.Errorf("remote: %q is not a plain file name", name)
	}
	for _, r := range name {
		if r < 0x20 || r == 0x7f {
			return fmt.Errorf("remote: file name %q contains a control character", name)
		}
	}
	return nil
}

func newID() (string, error) {
	b := make([]byte, 6)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("remote: generating a temporary name: %w", err)
	}
	return hex.EncodeToString(b), nil
}
