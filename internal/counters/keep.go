package counters

import (
	"context"
	"fmt"
	"os"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/remote"
)

// FileHost is where a snapshot file lives between reads: the fabric host the counters are read
// on (the provider's SSH client), so that the history stays with the fabric whichever machine
// plans.
type FileHost interface {
	ReadFile(ctx context.Context, path string) (content string, exists bool, err error)
	WriteFiles(ctx context.Context, dir string, files map[string]string, mode os.FileMode) (remote.Backup, error)
	Addr() string
}

var _ FileHost = (*remote.Client)(nil)

// snapshotFileMode keeps the file to its owner: it names every port and cable of the fabric.
const snapshotFileMode = 0o600

// ReadSnapshotFile reads the snapshot kept in file (an absolute path) on h: nil, without a word,
// when there is none yet. A file that holds no snapshot, or one whose clock cannot be right
// (Snapshot.CheckClock against now), does not stop the read, which goes on without one and
// replaces it; notSnapshot then says so, for a warning. err is only h failing to
// read the file.
func ReadSnapshotFile(ctx context.Context, h FileHost, file string) (prev *Snapshot, notSnapshot string, err error) {
	text, exists, err := h.ReadFile(ctx, file)
	if err != nil || !exists {
		return nil, "", err
	}
	prev, err = DecodeSnapshot(strings.TrimSpace(text))
	if err == nil {
		err = prev.CheckClock(time.Now())
	}
	if err != nil {
		return nil, fmt.Sprintf("%s on %s: %v. This read goes without a previous one and replaces the file.", file, h.Addr(), err), nil
	}
	return prev, "", nil
}

// WriteSnapshotFile replaces file on h with snapshot (Encode's text), atomically: a read that
// fails half-way leaves the last snapshot whole.
func WriteSnapshotFile(ctx context.Context, h FileHost, file, snapshot string) error {
	_, err := h.WriteFiles(ctx, path.Dir(file), map[string]string{path.Base(file): snapshot + "\n"}, snapshotFileMode)
	return err
}

// Suspects are the labels of the cables judged suspect or down, sorted, never nil: what to
// record in gpucluster_fabric.failed_cables, and the same list from the same reads whatever order
// the cables came in. Cabled links only: an absent cable was never cabled, and belongs in
// absent_cables. An unread cable is not among them either (nothing says it failed): Unreads
// lists those.
func Suspects(reports []Report) []string {
	return labelsOf(reports, func(v Verdict) bool { return v == Suspect || v == Down })
}

// Unreads are the labels of the cables judged unread, sorted, never nil: the cables no verdict
// could be given for, which a check must not pass as healthy.
func Unreads(reports []Report) []string {
	return labelsOf(reports, func(v Verdict) bool { return v == Unread })
}

func labelsOf(reports []Report, want func(Verdict) bool) []string {
	out := []string{}
	for _, r := range reports {
		if want(r.Verdict) {
			out = append(out, r.Label)
		}
	}
	sort.Strings(out)
	return out
}

// Window is the seconds the cable's rates cover: the longer of its ends' windows (an end read
// once, against an older snapshot, covers more than the two reads), 0 when neither has one.
func (r Report) Window() float64 { return max(0, r.A.Window, r.B.Window) }
