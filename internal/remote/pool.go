package remote

import (
	"context"
	"crypto/sha256"
	"errors"
	"sync"
	"time"
)

// keepaliveTimeout bounds the liveness check of a pooled connection before reuse.
const keepaliveTimeout = 5 * time.Second

// Pool shares one connection per host, user and credential among callers (the resources of one
// provider run), so that each operation does not pay for a TCP and SSH handshake. A connection
// found dead is dialled again, host key check included. The zero value is ready to use.
type Pool struct {
	mu    sync.Mutex
	conns map[poolKey]*poolEntry
}

// poolKey identifies a connection. The credential is held as a hash, so the pool keeps no copy
// of the secret beyond what x/crypto's signer holds, and a changed key or known_hosts file gets
// a connection of its own.
type poolKey struct {
	addr, user, knownHosts string
	credential             [sha256.Size]byte
}

type poolEntry struct {
	mu sync.Mutex // serialises dialling for one key; other keys proceed
	c  *Client
}

// Get returns a connected Client for cfg, reusing a live one. The Client belongs to the pool:
// callers must not Close it (Pool.Close does).
func (p *Pool) Get(ctx context.Context, cfg Config) (*Client, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	key := poolKey{
		addr:       cfg.Addr(),
		user:       cfg.User,
		knownHosts: cfg.KnownHostsFile,
		credential: sha256.Sum256([]byte(cfg.PrivateKeyPEM + "\x00" + cfg.Passphrase)),
	}
	p.mu.Lock()
	if p.conns == nil {
		p.conns = map[poolKey]*poolEntry{}
	}
	e := p.conns[key]
	if e == nil {
		e = &poolEntry{}
		p.conns[key] = e
	}
	p.mu.Unlock()

	e.mu.Lock()
	defer e.mu.Unlock()
	if e.c != nil {
		if e.c.alive() {
			return e.c, nil
		}
		e.c.Close()
		e.c = nil
	}
	c, err := Dial(ctx, cfg)
	if err != nil {
		return nil, err
	}
	e.c = c
	return c, nil
}

// Close closes every pooled connection.
func (p *Pool) Close() error {
	p.mu.Lock()
	entries := p.conns
	p.conns = nil
	p.mu.Unlock()
	var errs []error
	for _, e := range entries {
		e.mu.Lock()
		if e.c != nil {
			if err := e.c.Close(); err != nil {
				errs = append(errs, err)
			}
			e.c = nil
		}
		e.mu.Unlock()
	}
	return errors.Join(errs...)
}

// alive sends an OpenSSH keepalive request; any reply, even a refusal, proves the connection
// works. A hung connection counts as dead after keepaliveTimeout.
func (c *Client) alive() bool {
	done := make(chan error, 1)
	go func() {
		_, _, err := c.conn.SendRequest("keepalive@openssh.com", true, nil)
		done <- err
	}()
	select {
	case err := <-done:
		return err == nil
	case <-time.After(keepaliveTimeout):
		return false
	}
}
