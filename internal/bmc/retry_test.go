package bmc

import (
	"context"
	"errors"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/testrig"
)

// TestRedfishBusyIsRetried: a BMC that answers 503 is retried. With Retry-After: 1 the session
// waits a second between attempts and then opens and reads; without Retry-After the waits grow
// from 250 ms; a Retry-After longer than the operation's timeout fails within that timeout with
// the BMC's 503 named, rather than waiting it out.
func TestRedfishBusyIsRetried(t *testing.T) {
	rig := testrig.StartRedfish(t, testrig.RedfishOptions{})
	ctx := context.Background()

	rig.Busy(2, "1")
	start := time.Now()
	s := mustOpen(t, rfConfig(rig, nil))
	st := mustRead(t, s)
	if st.Vendor != "NVIDIA" || st.PowerState != "off" {
		t.Fatalf("read after 503s: %+v", st)
	}
	n, times := rig.BusyServed()
	if n != 2 {
		t.Fatalf("the rig answered 503 %d times, want 2", n)
	}
	if gap := times[1].Sub(times[0]); gap < 900*time.Millisecond {
		t.Fatalf("Retry-After: 1 not honoured: %s between the 503s", gap)
	}
	if d := time.Since(times[1]); d < 900*time.Millisecond || time.Since(start) > 8*time.Second {
		t.Fatalf("retry after the last 503 came %s later (open took %s)", d, time.Since(start))
	}

	// No Retry-After in the middle of a session: backed off, never hammered.
	rig.Busy(3, "")
	if err := s.SetPower(ctx, "on"); err != nil {
		t.Fatalf("power on through 503s: %v", err)
	}
	n, times = rig.BusyServed()
	if n != 5 || rig.PowerState() != "On" {
		t.Fatalf("503s %d, power %s", n, rig.PowerState())
	}
	for i := 3; i < 5; i++ {
		if g := times[i].Sub(times[i-1]); g < 200*time.Millisecond {
			t.Fatalf("503 %d came %s after the one before: no backoff", i+1, g)
		}
	}
	_ = s.Close()

	// Retry-After beyond the timeout: give up in time, saying the BMC is busy.
	cfg := rfConfig(rig, nil)
	cfg.Timeout = 2 * time.Second
	rig.Busy(1000, "30")
	start = time.Now()
	_, err := Open(ctx, cfg)
	if d := time.Since(start); d > cfg.Timeout+time.Second {
		t.Fatalf("busy BMC took %s with a %s timeout", d, cfg.Timeout)
	}
	if err == nil || !strings.Contains(err.Error(), "503") {
		t.Fatalf("busy BMC: %v, want an error naming the 503", err)
	}
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("not an *Error: %v", err)
	}
	rig.Busy(0, "")
	waitSlotsFree(t)
}

func TestRetryAfterForms(t *testing.T) {
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	for v, want := range map[string]time.Duration{
		"3": 3 * time.Second, "0": 0, "Tue, 01 Dec 2026 10:00:05 GMT": 5 * time.Second,
		"Tue, 01 Dec 2026 09:00:00 GMT": 0, "99999": time.Hour,
	} {
		if got, ok := retryAfter(v, now); !ok || got != want {
			t.Errorf("retryAfter(%q) = %s, %v; want %s", v, got, ok, want)
		}
	}
	for _, v := range []string{"", "-1", "soon", "1.5"} {
		if _, ok := retryAfter(v, now); ok {
			t.Errorf("retryAfter(%q) should be ignored", v)
		}
	}
}

// fakeBMC answers from a list of statuses, recording nothing but the count.
type fakeBMC struct {
	statuses []int
	retry    string
	calls    int
}

func (f *fakeBMC) RoundTrip(req *http.Request) (*http.Response, error) {
	st := http.StatusOK
	if f.calls < len(f.statuses) {
		st = f.statuses[f.calls]
	}
	f.calls++
	h := http.Header{}
	if f.retry != "" {
		h.Set("Retry-After", f.retry)
	}
	return &http.Response{StatusCode: st, Header: h, Body: io.NopCloser(strings.NewReader("{}")), Request: req}, nil
}

// TestRetryTransportBackoff: waits double from 250 ms up to 8 s, Retry-After replaces them, a
// request body is sent again, and a wait beyond the request's deadline returns the 503 at once.
func TestRetryTransportBackoff(t *testing.T) {
	var waits []time.Duration
	fake := &fakeBMC{statuses: []int{503, 503, 429, 503, 503, 503, 503}}
	rt := &retryTransport{next: fake, sleep: func(_ context.Context, d time.Duration) bool { waits = append(waits, d); return true }}
	req, _ := http.NewRequest(http.MethodPatch, "https://bmc/redfish/v1/Systems/1", strings.NewReader(`{"a":1}`))
	resp, err := rt.RoundTrip(req)
	if err != nil || resp.StatusCode != 200 || fake.calls != 8 {
		t.Fatalf("status %v, calls %d, err %v", resp, fake.calls, err)
	}
	var want []time.Duration
	for _, ms := range []int{250, 500, 1000, 2000, 4000, 8000, 8000} {
		want = append(want, time.Duration(ms)*time.Millisecond)
	}
	if !reflect.DeepEqual(waits, want) {
		t.Fatalf("waits %v, want %v", waits, want)
	}

	waits = nil
	fake = &fakeBMC{statuses: []int{503}, retry: "2"}
	rt.next = fake
	if resp, _ := rt.RoundTrip(req); resp.StatusCode != 200 || len(waits) != 1 || waits[0] != 2*time.Second {
		t.Fatalf("Retry-After: waits %v", waits)
	}

	fake = &fakeBMC{statuses: []int{503, 503}, retry: "60"}
	rt.next = fake
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	resp, err = rt.RoundTrip(req.WithContext(ctx))
	if err != nil || resp.StatusCode != 503 || fake.calls != 1 {
		t.Fatalf("Retry-After beyond the deadline: %v %v after %d calls", resp, err, fake.calls)
	}
}
