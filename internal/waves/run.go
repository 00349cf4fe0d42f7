package waves

import (
	"context"
	"fmt"
	"sync"
)

// Run carries out work wave by wave, as maintenance is done in a window: the devices of one wave
// go down together (work runs for each of them, at most parallel at once), and the next wave
// starts only once every device of this one has returned, so that at no time are devices of two
// waves down together. That is what makes each wave's own proof (Split) the proof of the whole
// rollout. A wave in which some work failed is still finished (its other devices are not left
// half done), and no later wave starts: the fabric stays as that wave's proof allows.
//
// It returns the number of waves finished without error, the work errors by device, and, when a
// wave failed, an error that names it and the waves not started.
func Run(ctx context.Context, waves [][]string, parallel int, work func(ctx context.Context, wave int, device string) error) (finished int, errs map[string]error, err error) {
	if parallel < 1 {
		parallel = 1
	}
	errs = map[string]error{}
	for i, wave := range waves {
		if err := ctx.Err(); err != nil {
			return finished, errs, fmt.Errorf("wave %d of %d not started: %w", i+1, len(waves), err)
		}
		var (
			mu     sync.Mutex
			wg     sync.WaitGroup
			sem    = make(chan struct{}, parallel)
			failed int
		)
		for _, d := range wave {
			wg.Add(1)
			sem <- struct{}{}
			go func(d string) {
				defer wg.Done()
				defer func() { <-sem }()
				if e := work(ctx, i+1, d); e != nil {
					mu.Lock()
					errs[d] = e
					failed++
					mu.Unlock()
				}
			}(d)
		}
		wg.Wait()
		if failed > 0 {
			rest := ""
			switch left := len(waves) - i - 1; {
			case left == 1:
				rest = fmt.Sprintf("; wave %d was not started", i+2)
			case left > 1:
				rest = fmt.Sprintf("; waves %d to %d were not started", i+2, len(waves))
			}
			return finished, errs, fmt.Errorf("wave %d of %d failed on %d of its %d devices%s", i+1, len(waves), failed, len(wave), rest)
		}
		finished++
	}
	return finished, errs, nil
}
