package counters

import (
	"context"
	"testing"
	"time"
)

// slowHost is a scriptedHost whose every batch takes `took` on a fake clock, as perfquery runs
// over a floor do.
type slowHost struct {
	scriptedHost
	took time.Duration
	now  *time.Time
}

func (h *slowHost) Run(ctx context.Context, script string) (string, string, int, error) {
	*h.now = h.now.Add(h.took)
	return h.scriptedHost.Run(ctx, script)
}

// TestTakeWaitsFromTheFirstReadsStart: with reads of 400 ms and a 600 ms wait, the second read
// begins 600 ms after the first began (not 600 ms after it ended), so the sample takes 600 + 400
// ms rather than 400 + 600 + 400; the window between the reads is still at least the wait. With
// reads longer than the wait, the second read follows the first at once. The clock is a fake one
// that only the reads and the wait advance, so the schedule is exact, whatever the machine's load.
func TestTakeWaitsFromTheFirstReadsStart(t *testing.T) {
	saved := clock
	t.Cleanup(func() { clock = saved })
	for _, c := range []struct {
		read, wait time.Duration
	}{
		{400 * time.Millisecond, 600 * time.Millisecond},
		{400 * time.Millisecond, 200 * time.Millisecond},
	} {
		now := time.Date(2026, 12, 6, 12, 0, 0, 0, time.UTC)
		began := now
		var slept []time.Duration
		clock.now = func() time.Time { return now }
		clock.after = func(d time.Duration) <-chan time.Time {
			slept = append(slept, d)
			now = now.Add(d)
			ch := make(chan time.Time, 1)
			ch <- now
			return ch
		}
		h := &slowHost{scriptedHost: scriptedHost{batches: [][]string{
			{block(2, 39, 7) + block(2, 40, 100), block(5, 1, 0)},
			{block(2, 39, 7) + block(2, 40, 300), block(5, 1, 0)},
		}}, took: c.read, now: &now}
		s, problems, err := Take(context.Background(), h, "perfquery", sampleQueries, true, c.wait)
		if err != nil || len(problems) != 0 || h.calls != 2 {
			t.Fatalf("err %v, problems %v, %d calls", err, problems, h.calls)
		}
		if window := s.At.Sub(s.First[0].Read.At); window != max(c.read, c.wait) {
			t.Errorf("read %s, wait %s: the reads began %s apart, want max(read, wait) = %s", c.read, c.wait, window, max(c.read, c.wait))
		}
		// The old schedule took read + wait + read; this one max(read, wait) + read.
		if took, want := now.Sub(began), max(c.read, c.wait)+c.read; took != want {
			t.Errorf("read %s, wait %s: the sample took %s, want %s (slept %v)", c.read, c.wait, took, want, slept)
		}
	}
}
