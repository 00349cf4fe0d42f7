package counters

import (
	"context"
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/remote"
)

// fileHost keeps files in memory, as the SM host keeps them on disk.
type fileHost struct {
	files   map[string]string
	readErr error
	dirs    []string
	modes   []os.FileMode
}

func (h *fileHost) Addr() string { return "sm01:22" }

func (h *fileHost) ReadFile(_ context.Context, p string) (string, bool, error) {
	if h.readErr != nil {
		return "", false, h.readErr
	}
	s, ok := h.files[p]
	return s, ok, nil
}

func (h *fileHost) WriteFiles(_ context.Context, dir string, files map[string]string, mode os.FileMode) (remote.Backup, error) {
	h.dirs, h.modes = append(h.dirs, dir), append(h.modes, mode)
	for name, text := range files {
		h.files[dir+"/"+name] = text
	}
	return remote.Backup{}, nil
}

// TestSnapshotFileRoundTrip: no file yet is no snapshot and no warning; what WriteSnapshotFile
// keeps (in the file's directory, owner-only, a line of its own) reads back as the same snapshot.
func TestSnapshotFileRoundTrip(t *testing.T) {
	ctx := context.Background()
	const file = "/var/lib/gpucluster/port-counters.json"
	h := &fileHost{files: map[string]string{}}
	if prev, warn, err := ReadSnapshotFile(ctx, h, file); prev != nil || warn != "" || err != nil {
		t.Fatalf("no file: %v %q %v", prev, warn, err)
	}
	text, err := NewSnapshot(t0, []Report{{Label: "leaf01:40 <-> spine01:8", Verdict: OK,
		A: EndReport{Name: "leaf01:40", Answered: true, ReadAt: t0, Counters: map[string]uint64{SymbolErrorCounter: 7}}}}).Encode()
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteSnapshotFile(ctx, h, file, text); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(h.dirs, []string{"/var/lib/gpucluster"}) || h.modes[0] != 0o600 || h.files[file] != text+"\n" {
		t.Fatalf("written to %v mode %v: %q", h.dirs, h.modes, h.files[file])
	}
	prev, warn, err := ReadSnapshotFile(ctx, h, file)
	if err != nil || warn != "" || prev == nil || prev.Ports["leaf01:40"].Values[SymbolErrorCounter] != 7 || prev.Links["leaf01:40 <-> spine01:8"].Verdict != OK {
		t.Fatalf("read back: %+v %q %v", prev, warn, err)
	}
}

// TestSnapshotFileNotSnapshot: a file that holds something else is a warning that names the file
// and the host and says the read goes on without it; a file that cannot be read is an error.
func TestSnapshotFileNotSnapshot(t *testing.T) {
	ctx := context.Background()
	h := &fileHost{files: map[string]string{"/k/s.json": "{\n"}}
	prev, warn, err := ReadSnapshotFile(ctx, h, "/k/s.json")
	if prev != nil || err != nil ||
		!strings.HasPrefix(warn, "/k/s.json on sm01:22: not a snapshot of gpucluster_port_counters") ||
		!strings.HasSuffix(warn, ". This read goes without a previous one and replaces the file.") {
		t.Errorf("garbage: %v %q %v", prev, warn, err)
	}
	h.readErr = errors.New("permission denied")
	if prev, warn, err := ReadSnapshotFile(ctx, h, "/k/s.json"); prev != nil || warn != "" || err != h.readErr {
		t.Errorf("unreadable: %v %q %v", prev, warn, err)
	}
}

// TestSuspects: suspect and down cables, sorted by label whatever the reports' order; none is an
// empty list, not nil (an empty `suspect_cables`, not a null one).
func TestSuspects(t *testing.T) {
	rs := []Report{
		{Label: "leaf02:1 <-> spine01:2", Verdict: Down},
		{Label: "leaf01:1 <-> spine01:1", Verdict: OK},
		{Label: "leaf01:40 <-> spine01:8", Verdict: Suspect},
		{Label: "leaf03:1 <-> spine01:3", Verdict: Unread},
		{Label: "leaf00:1 <-> spine01:4", Verdict: Unread},
	}
	if got, want := Suspects(rs), []string{"leaf01:40 <-> spine01:8", "leaf02:1 <-> spine01:2"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Suspects = %q, want %q", got, want)
	}
	// Unread cables are not failed ones (not for failed_cables) but have their own list.
	if got, want := Unreads(rs), []string{"leaf00:1 <-> spine01:4", "leaf03:1 <-> spine01:3"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Unreads = %q, want %q", got, want)
	}
	if got := Unreads(rs[:3]); got == nil || len(got) != 0 {
		t.Errorf("none unread: %#v", got)
	}
	if got := Suspects(rs[1:2]); got == nil || len(got) != 0 {
		t.Errorf("none suspect: %#v", got)
	}
}

// TestReportWindow: the longer end's window, whichever end it is; 0 without one.
func TestReportWindow(t *testing.T) {
	for _, c := range []struct{ a, b, want float64 }{{2, 600, 600}, {600, 2, 600}, {0, 0, 0}, {0, 2, 2}} {
		if got := (Report{A: EndReport{Window: c.a}, B: EndReport{Window: c.b}}).Window(); got != c.want {
			t.Errorf("windows %v, %v: %v, want %v", c.a, c.b, got, c.want)
		}
	}
}
