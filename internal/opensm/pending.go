package opensm

// The record of a push that wrote files but did not see OpenSM run on them (PendingMarker).

import (
	"context"
	"errors"
	"fmt"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/remote"
)

// pending is what PendingMarker says: how OpenSM must be told, and which files the interrupted
// write replaced (existed) or created, so that their previous versions (<name>.prev, which
// remote.WriteFiles keeps) can be put back.
type pending struct {
	action Action
	files  []pendingFile
}

type pendingFile struct {
	name    string
	existed bool
}

func (p *pending) parseLine(line string) {
	f := strings.Fields(line)
	switch {
	case len(f) == 2 && f[0] == "action":
		switch f[1] {
		case "sighup":
			p.action = ActionSIGHUP
		default:
			// Anything but a SIGHUP (a restart, or a word from a newer provider) restarts:
			// when in doubt, restart.
			p.action = ActionRestart
		}
	case len(f) == 3 && f[0] == "file":
		p.files = append(p.files, pendingFile{name: f[1], existed: f[2] == "existed"})
	}
}

// render writes the marker. Every file of the write is listed, the marker itself included (it
// did not exist: a Restore removes it).
func (p *pending) render() string {
	var b strings.Builder
	b.WriteString("# Written by terraform-provider-gpucluster with the OpenSM files of a push, removed once OpenSM\n")
	b.WriteString("# runs on them. Still here: the push never saw OpenSM take these files; the next push tells it.\n")
	fmt.Fprintf(&b, "action %s\n", p.action)
	for _, f := range p.files {
		state := "absent"
		if f.existed {
			state = "existed"
		}
		fmt.Fprintf(&b, "file %s %s\n", f.name, state)
	}
	return b.String()
}

// withAction is the marker with the action raised to a (never lowered).
func (p *pending) withAction(a Action) string {
	q := *p
	if a > q.action {
		q.action = a
	}
	return q.render()
}

// withPending adds the marker to a write: old is what the host holds of the file set, and the
// snapshot files are new unless the host already has them (manifest).
func withPending(write map[string]string, old Files, manifest bool, a Action) map[string]string {
	p := pending{action: a}
	names := make([]string, 0, len(write)+1)
	for n := range write {
		names = append(names, n)
	}
	names = append(names, PendingMarker)
	sort.Strings(names)
	for _, n := range names {
		_, existed := old[n]
		if n == OriginalManifest || strings.HasSuffix(n, OriginalSuffix) {
			existed = manifest
		}
		if n == PendingMarker {
			existed = false
		}
		p.files = append(p.files, pendingFile{name: n, existed: existed})
	}
	out := make(map[string]string, len(write)+1)
	for k, v := range write {
		out[k] = v
	}
	out[PendingMarker] = p.render()
	return out
}

// backupMaker is what *remote.Client offers to describe a backup left by an earlier write.
type backupMaker interface {
	BackupOf(dir string, files []remote.BackedUpFile) remote.Backup
}

// backup describes the interrupted write's previous versions as a remote.Backup, for a rollback.
func (p *pending) backup(h Host, dir string) (remote.Backup, error) {
	bm, ok := h.(backupMaker)
	if !ok {
		return remote.Backup{}, errors.New("this host connection cannot describe the previous files of an interrupted push")
	}
	if len(p.files) == 0 {
		return remote.Backup{}, fmt.Errorf("%s lists no files; delete it after checking the files in %s", PendingMarker, dir)
	}
	files := make([]remote.BackedUpFile, 0, len(p.files))
	for _, f := range p.files {
		bf := remote.BackedUpFile{Name: f.name, Existed: f.existed}
		if f.existed {
			bf.Prev = path.Join(dir, f.name+".prev")
		}
		files = append(files, bf)
	}
	return bm.BackupOf(dir, files), nil
}

// clearPending removes the marker once OpenSM runs on the files. A failure is not the push's:
// the files are activated and verified, and the next push only tells OpenSM once more.
func (t *Target) clearPending(ctx context.Context) {
	_, _, _, _ = t.Host.Run(ctx, remote.Command("rm", "-f", "--", path.Join(t.Paths.Dir(), PendingMarker)))
}

// pendingState asks the host whether PendingMarker is there, after a failed rollback: the
// message must not claim a marker the restore removed. It runs when the caller's context may
// have ended, with a bound of its own.
func (t *Target) pendingState(ctx context.Context) PendingState {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	stdout, _, exit, err := t.Host.Run(ctx, fmt.Sprintf("if [ -e %s ]; then echo gpc-pending; else echo gpc-none; fi\n", remote.Quote(path.Join(t.Paths.Dir(), PendingMarker))))
	switch {
	case err != nil || exit != 0:
		return PendingUnknown
	case strings.TrimSpace(stdout) == "gpc-pending":
		return PendingKept
	case strings.TrimSpace(stdout) == "gpc-none":
		return PendingGone
	}
	return PendingUnknown
}
