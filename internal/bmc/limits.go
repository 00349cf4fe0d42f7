package bmc

import (
	"context"
	"sync"
)

// DefaultMaxSessions bounds the BMC sessions open at once in this process. BMCs allow only a
// few sessions each and a management network a few hundred; a 256-node apply must queue rather
// than open 256 sessions together.
const DefaultMaxSessions = 16

// limiter is a counting semaphore whose size can change while it is in use (the tests'
// SetMaxSessions), which golang.org/x/sync/semaphore cannot do. Waiters wait on a channel that is
// closed, and replaced, whenever a slot frees or the limit grows.
type limiter struct {
	mu          sync.Mutex
	max, inUse  int
	peak        int // largest inUse seen since the last resetPeak; for tests
	wake        chan struct{}
	acquisition int // total successful acquisitions; for tests
}

var sessionSlots = &limiter{max: DefaultMaxSessions, wake: make(chan struct{})}

// MaxSessions returns the current bound.
func MaxSessions() int {
	sessionSlots.mu.Lock()
	defer sessionSlots.mu.Unlock()
	return sessionSlots.max
}

func (l *limiter) broadcast() {
	close(l.wake)
	l.wake = make(chan struct{})
}

func (l *limiter) acquire(ctx context.Context) error {
	for {
		l.mu.Lock()
		if l.inUse < l.max {
			l.inUse++
			l.acquisition++
			if l.inUse > l.peak {
				l.peak = l.inUse
			}
			l.mu.Unlock()
			return nil
		}
		wake := l.wake
		l.mu.Unlock()
		select {
		case <-wake:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

func (l *limiter) release() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.inUse--
	l.broadcast()
}

// bmcLocks holds one lock per BMC (endpoint:port), so that two resources of one apply never
// drive the same BMC at the same time: BMCs serialise badly (ETag conflicts, busy responses,
// a power action overtaken by another). Entries are reference-counted and removed when unused,
// so the map does not grow with every BMC ever seen.
var bmcLocks = struct {
	sync.Mutex
	m map[string]*bmcLock
}{m: map[string]*bmcLock{}}

type bmcLock struct {
	ch   chan struct{} // holds one token while locked
	refs int
}

func lockBMC(ctx context.Context, key string) (unlock func(), err error) {
	bmcLocks.Lock()
	l := bmcLocks.m[key]
	if l == nil {
		l = &bmcLock{ch: make(chan struct{}, 1)}
		bmcLocks.m[key] = l
	}
	l.refs++
	bmcLocks.Unlock()

	drop := func() {
		bmcLocks.Lock()
		l.refs--
		if l.refs == 0 {
			delete(bmcLocks.m, key)
		}
		bmcLocks.Unlock()
	}
	select {
	case l.ch <- struct{}{}:
	case <-ctx.Done():
		drop()
		return nil, ctx.Err()
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			<-l.ch
			drop()
		})
	}, nil
}
