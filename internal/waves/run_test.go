package waves

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"sync"
	"testing"
)

// event is one call of the work, as a log in the order the calls happened (a sequence, not a
// clock).
type event struct {
	start  bool
	wave   int
	device string
}

// TestRunOrder checks Run against what a wave rollout must be, computed independently from the
// waves themselves: on random waves and bounds, every device's work runs exactly once with its
// own wave's number; no work of wave k+1 starts before every work of wave k has ended; at most
// parallel works are in flight at once; and a rendezvous shows that a wave's devices do run
// together (min(parallel, wave size) of them are in flight at once).
func TestRunOrder(t *testing.T) {
	rng := rand.New(rand.NewSource(31))
	for trial := 0; trial < 200; trial++ {
		var waves [][]string
		want := map[string]int{}
		for w, n := 0, 1+rng.Intn(4); w < n; w++ {
			var wave []string
			for d, m := 0, 1+rng.Intn(5); d < m; d++ {
				name := fmt.Sprintf("n%d-%d", w, d)
				wave = append(wave, name)
				want[name] = w + 1
			}
			waves = append(waves, wave)
		}
		parallel := 1 + rng.Intn(4)

		var mu sync.Mutex
		var log []event
		inFlight, peak := 0, 0
		// The rendezvous: each work waits until min(parallel, len(wave)) works of its wave are
		// in flight, or its wave has fewer left to start. A Run that serialised a wave would
		// hang here, caught by the test's timeout, not by a clock.
		arrived := map[int]int{}
		cond := sync.NewCond(&mu)
		finished, errs, err := Run(context.Background(), waves, parallel, func(_ context.Context, wave int, d string) error {
			mu.Lock()
			log = append(log, event{true, wave, d})
			inFlight++
			if inFlight > peak {
				peak = inFlight
			}
			arrived[wave]++
			need := min(parallel, len(waves[wave-1]))
			for arrived[wave] < need {
				cond.Wait()
			}
			cond.Broadcast()
			inFlight--
			log = append(log, event{false, wave, d})
			mu.Unlock()
			return nil
		})
		if err != nil || finished != len(waves) || len(errs) != 0 {
			t.Fatalf("trial %d: finished %d of %d, errs %v, err %v", trial, finished, len(waves), errs, err)
		}
		starts, ends := map[string]int{}, map[string]int{}
		lastEnd := map[int]int{}    // wave -> index of its last end
		firstStart := map[int]int{} // wave -> index of its first start
		for i, e := range log {
			if e.wave != want[e.device] {
				t.Fatalf("trial %d: %s ran as wave %d, it is in wave %d", trial, e.device, e.wave, want[e.device])
			}
			if e.start {
				starts[e.device]++
				if _, ok := firstStart[e.wave]; !ok {
					firstStart[e.wave] = i
				}
			} else {
				ends[e.device]++
				lastEnd[e.wave] = i
			}
		}
		for d := range want {
			if starts[d] != 1 || ends[d] != 1 {
				t.Fatalf("trial %d: %s ran %d times (%d ended)", trial, d, starts[d], ends[d])
			}
		}
		for w := 1; w < len(waves); w++ {
			if firstStart[w+1] < lastEnd[w] {
				t.Fatalf("trial %d: wave %d started (event %d) before wave %d ended (event %d): %v", trial, w+1, firstStart[w+1], w, lastEnd[w], log)
			}
		}
		if peak > parallel {
			t.Fatalf("trial %d: %d works in flight, parallel %d", trial, peak, parallel)
		}
	}
}

// TestRunStopsAfterFailedWave: a failure finishes its own wave (every device of it runs) and no
// later wave starts; the error names the wave and the waves not started.
func TestRunStopsAfterFailedWave(t *testing.T) {
	waves := [][]string{{"a", "b"}, {"c", "d"}, {"e"}, {"f"}}
	var mu sync.Mutex
	ran := map[string]bool{}
	finished, errs, err := Run(context.Background(), waves, 1, func(_ context.Context, _ int, d string) error {
		mu.Lock()
		ran[d] = true
		mu.Unlock()
		if d == "c" {
			return errors.New("task ended in Exception")
		}
		return nil
	})
	if finished != 1 || err == nil || err.Error() != "wave 2 of 4 failed on 1 of its 2 devices; waves 3 to 4 were not started" {
		t.Fatalf("finished %d, err %v", finished, err)
	}
	if len(errs) != 1 || errs["c"] == nil {
		t.Fatalf("errs %v", errs)
	}
	for _, d := range []string{"a", "b", "c", "d"} {
		if !ran[d] {
			t.Fatalf("%s of a finished or failing wave did not run", d)
		}
	}
	if ran["e"] || ran["f"] {
		t.Fatalf("a wave after the failed one ran: %v", ran)
	}
}
