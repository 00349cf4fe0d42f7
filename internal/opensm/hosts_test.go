package opensm

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/remote"
)

// quietHost is an SM host with no snapshot of pre-provider files and an OpenSM whose state reads
// as unknown with no files: enough for UnpushAll to leave it alone and ReadAll to read it.
type quietHost struct{ Host }

func (quietHost) ReadFile(context.Context, string) (string, bool, error) { return "", false, nil }

func (quietHost) Run(context.Context, string) (string, string, int, error) {
	return "gpc-health-end\n", "", 0, nil
}

// TestUnpushAllStandbysFirst: the standbys are restored before the primary, a host without a
// snapshot is kept and does not stop the run, and an unreachable host stops it before the primary.
func TestUnpushAllStandbysFirst(t *testing.T) {
	var opened []int
	down := errors.New("dial tcp: no route to host")
	results, err := UnpushAll(context.Background(), []string{"sm1", "sm2", "sm3"}, func(_ context.Context, i int) (Target, func(), error) {
		opened = append(opened, i)
		if i == 1 {
			return Target{}, nil, down
		}
		return Target{Name: []string{"sm1", "sm2", "sm3"}[i], Host: quietHost{}}, func() {}, nil
	})
	if !slices.Equal(opened, []int{2, 1}) {
		t.Errorf("opened %v, want [2 1]", opened)
	}
	if len(results) != 1 || results[0].Host != "sm3" || !results[0].Kept {
		t.Errorf("results %+v", results)
	}
	var aerr *AllError
	if !errors.As(err, &aerr) || aerr.Index != 1 || !aerr.Open || !slices.Equal(aerr.Done, []string{"sm3"}) || !slices.Equal(aerr.Left, []string{"sm1"}) {
		t.Fatalf("UnpushAll: %v (%+v)", err, aerr)
	}
	if got, want := aerr.Summary(), "Cannot restore the subnet manager host sm2"; got != want {
		t.Errorf("summary %q, want %q", got, want)
	}
}

// TestReadAll: the files come from the first host; a later host that cannot be read is noted and
// skipped, but a refused host key stops the read-back, as does the first host failing.
func TestReadAll(t *testing.T) {
	hosts := []string{"sm1", "sm2", "sm3"}
	down := errors.New("dial tcp: no route to host")
	opener := func(fail map[int]error) Opener {
		return func(_ context.Context, i int) (Target, func(), error) {
			if err := fail[i]; err != nil {
				return Target{}, nil, err
			}
			return Target{Name: hosts[i], Host: quietHost{}}, func() {}, nil
		}
	}
	st, err := ReadAll(context.Background(), hosts, opener(map[int]error{1: down}))
	if err != nil || st.Files == nil || st.Pending || len(st.Sick) != 0 || len(st.Unread) != 1 || st.Unread[0].Host != "sm2" {
		t.Fatalf("ReadAll: %+v, %v", st, err)
	}
	refused := &remote.HostKeyError{Addr: "sm3:22", Err: errors.New("key mismatch")}
	var aerr *AllError
	st, err = ReadAll(context.Background(), hosts, opener(map[int]error{1: down, 2: refused}))
	if !errors.As(err, &aerr) || aerr.Index != 2 || aerr.Err != refused || len(st.Unread) != 1 {
		t.Fatalf("ReadAll with a refused key: %+v, %v", st, err)
	}
	if _, err = ReadAll(context.Background(), hosts, opener(map[int]error{0: down})); !errors.As(err, &aerr) || aerr.Index != 0 || !errors.Is(err, down) {
		t.Fatalf("ReadAll with the first host down: %v", err)
	}
}

// TestAllMessages pins the texts a push and a sweep give for a failure and for a host whose
// OpenSM logged errors.
func TestAllMessages(t *testing.T) {
	e := &AllError{Op: OpSweep, Index: 1, Host: "sm2", Done: []string{"sm1"}, Left: []string{"sm3"}, Err: errors.New("boom")}
	if got, want := e.Summary()+e.Note(), "OpenSM sweep on sm2 failed\n\nAlready swept and verified: sm1.\n\nNot touched: sm3."; got != want {
		t.Errorf("sweep: %q, want %q", got, want)
	}
	e.Op = OpPush
	if got, want := e.Summary()+e.Note(), "OpenSM push to sm2 failed\n\nAlready pushed and verified (they keep the new files): sm1.\n\nNot touched: sm3."; got != want {
		t.Errorf("push: %q, want %q", got, want)
	}
	if got, want := e.Error(), "boom; already pushed and verified: sm1; not touched: sm3"; got != want {
		t.Errorf("push error: %q, want %q", got, want)
	}
	r := Result{Host: "sm1", Verdict: Verdict{Engine: "ftree", Errors: []string{"a", "b", "c", "d"}}}
	if _, _, ok := OpPush.LoggedErrors(r); ok {
		t.Error("a push that wrote nothing warns of errors it did not cause")
	}
	summary, detail, ok := OpSweep.LoggedErrors(r)
	if want := "The sweep was verified (ftree), but OpenSM logged 4 error lines after it, first: a | b | c"; !ok || summary != "OpenSM on sm1 logged errors" || detail != want {
		t.Errorf("sweep warning %q %q", summary, detail)
	}
	r.Written = true
	if _, detail, _ := OpPush.LoggedErrors(r); detail != "Routing was verified (ftree), but OpenSM logged 4 error lines after the change, first: a | b | c" {
		t.Errorf("push warning %q", detail)
	}
}

// TestDuplicateHosts: two spellings of one endpoint are refused at the second, naming the first;
// other ports, unknown hosts and hosts SplitHost refuses are not.
func TestDuplicateHosts(t *testing.T) {
	hosts := []string{"sm01", "SM01.:2222", "sm01:22", "sm02", "sm02:23", "x", "[::1]", "::1", "[0::1]:2222"}
	known := []bool{true, true, true, true, true, false, true, true, true}
	got := DuplicateHosts(hosts, known, 2222)
	want := map[int]string{
		1: `"SM01.:2222" is the same SSH endpoint as hosts[0] "sm01" (host sm01, port 2222)`,
		8: `"[0::1]:2222" is the same SSH endpoint as hosts[7] "::1" (host ::1, port 2222)`,
	}
	if len(got) != len(want) {
		t.Fatalf("got %v", got)
	}
	for i, w := range want {
		if !strings.HasPrefix(got[i], w) {
			t.Errorf("hosts[%d]: %q, want prefix %q", i, got[i], w)
		}
	}
}

// TestHostsStateWarnings pins what a refresh tells: a host not read, then the primary's files
// never taken, then the sick hosts, named together; a stopped read tells only of the hosts not
// read; a healthy, activated set tells nothing.
func TestHostsStateWarnings(t *testing.T) {
	st := HostsState{
		Pending: true,
		Sick: []HostHealth{
			{Host: "sm1", Health: Health{Live: LiveStopped, Why: "its status command (systemctl is-active opensm) exits 3"}},
			{Host: "sm3", Health: Health{Live: LiveUnrouted, Why: "its last routing run as master failed: x"}},
		},
		Unread: []HostError{{Host: "sm2", Err: errors.New("dial tcp: no route to host")}},
	}
	ws := st.Warnings("sm1", "/etc/opensm")
	summaries := make([]string, len(ws))
	for i, w := range ws {
		summaries[i] = w.Summary
	}
	if want := []string{"Cannot read the state of OpenSM on sm2", "OpenSM on sm1 never took the files on its disk",
		"OpenSM does not run as intended on sm1, sm3"}; !slices.Equal(summaries, want) {
		t.Fatalf("summaries %q, want %q", summaries, want)
	}
	if got, want := ws[0].Detail, "dial tcp: no route to host\n\nWhether OpenSM runs there is not seen by this plan."; got != want {
		t.Errorf("unread: %q, want %q", got, want)
	}
	if !strings.Contains(ws[1].Detail, "("+PendingMarker+" is in /etc/opensm)") {
		t.Errorf("pending: %q", ws[1].Detail)
	}
	if got, want := ws[2].Detail, "sm1: OpenSM is not running: its status command (systemctl is-active opensm) exits 3\n"+
		"sm3: OpenSM is running without routes: its last routing run as master failed: x\n\nThe plan shows every OpenSM file as a change"; !strings.HasPrefix(got, want) {
		t.Errorf("sick: %q, want it to start %q", got, want)
	}
	if un := st.UnreadWarnings(); len(un) != 1 || un[0] != ws[0] {
		t.Errorf("UnreadWarnings = %+v", un)
	}
	if ws := (HostsState{Files: Files{}}).Warnings("sm1", "/etc/opensm"); len(ws) != 0 {
		t.Errorf("healthy: %+v", ws)
	}
}
