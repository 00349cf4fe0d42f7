package remote

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
)

// hostLocks maps host:port to a one-slot channel: a mutex whose acquisition can wait on a
// context. Entries are never removed; a provider talks to a bounded set of hosts.
var hostLocks sync.Map

// heldLock marks, in a context, that the caller holds the lock of one host.
type heldLock string

func lockKey(host string, port int) string {
	return strings.ToLower(strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")) + ":" + strconv.Itoa(port)
}

// LockHost takes the process-wide lock of host:port, waiting at most until ctx ends, so that
// two resources never push to the same host at once. It returns a context that records the
// lock: WriteFiles and Restore called with it (or a context derived from it) do not lock again,
// so a caller can hold the lock across a whole push (write, reload, verify, restore) without
// deadlocking. If ctx already holds the lock, LockHost returns at once with a no-op release.
// release is idempotent.
//
// The key is the name as configured: one host reached under two names gets two locks.
func LockHost(ctx context.Context, host string, port int) (locked context.Context, release func(), err error) {
	if port == 0 {
		port = 22
	}
	return lockByKey(ctx, lockKey(host, port))
}

// Lock is LockHost for the host this client is connected to.
func (c *Client) Lock(ctx context.Context) (locked context.Context, release func(), err error) {
	return lockByKey(ctx, c.lockKey)
}

func lockByKey(ctx context.Context, key string) (context.Context, func(), error) {
	if ctx.Value(heldLock(key)) != nil {
		return ctx, func() {}, nil
	}
	v, _ := hostLocks.LoadOrStore(key, make(chan struct{}, 1))
	slot, ok := v.(chan struct{})
	if !ok {
		return ctx, func() {}, fmt.Errorf("internal error: the lock of %s is a %T", key, v)
	}
	select {
	case slot <- struct{}{}:
	case <-ctx.Done():
		return ctx, func() {}, fmt.Errorf("remote: waiting for the lock on %s (another push to that host is running): %w", key, ctx.Err())
	}
	var once sync.Once
	return context.WithValue(ctx, heldLock(key), true), func() { once.Do(func() { <-slot }) }, nil
}
