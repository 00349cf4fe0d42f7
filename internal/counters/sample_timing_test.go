package counters

import (
	"context"
	"testing"
	"time"
)

// slowHost is a scriptedHost whose every batch takes `took`, as perfquery runs over a floor do.
type slowHost struct {
	scriptedHost
	took time.Duration
}

func (h *slowHost) Run(ctx context.Context, script string) (string, string, int, error) {
	time.Sleep(h.took)
	return h.scriptedHost.Run(ctx, script)
}

// TestTakeWaitsFromTheFirstReadsStart: with reads of 400 ms and a 600 ms wait, the second read
// begins 600 ms after the first began (not 600 ms after it ended), so the sample takes about
// 600 + 400 ms rather than 400 + 600 + 400; the window between the reads is still at least the
// wait. With reads longer than the wait, the second read follows the first at once.
func TestTakeWaitsFromTheFirstReadsStart(t *testing.T) {
	for _, c := range []struct {
		read, wait time.Duration
	}{
		{400 * time.Millisecond, 600 * time.Millisecond},
		{400 * time.Millisecond, 200 * time.Millisecond},
	} {
		h := &slowHost{scriptedHost: scriptedHost{batches: [][]string{
			{block(2, 39, 7) + block(2, 40, 100), block(5, 1, 0)},
			{block(2, 39, 7) + block(2, 40, 300), block(5, 1, 0)},
		}}, took: c.read}
		began := time.Now()
		s, problems, err := Take(context.Background(), h, "perfquery", sampleQueries, true, c.wait)
		took := time.Since(began)
		if err != nil || len(problems) != 0 || h.calls != 2 {
			t.Fatalf("err %v, problems %v, %d calls", err, problems, h.calls)
		}
		window := s.At.Sub(s.First[0].Read.At)
		if window < c.wait {
			t.Errorf("read %s, wait %s: the reads are %s apart, under the wait", c.read, c.wait, window)
		}
		// The old schedule took read + wait + read; the new one max(read, wait) + read. The
		// bound sits halfway between, so that a loaded machine's delays do not fail it.
		want := max(c.read, c.wait) + c.read
		old := c.read + c.wait + c.read
		if limit := (want + old) / 2; took > limit {
			t.Errorf("read %s, wait %s: the sample took %s, more than %s (max(read, wait) + read is %s)", c.read, c.wait, took, limit, want)
		}
	}
}
