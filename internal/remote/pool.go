package remote

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/crypto/ssh"
)

const (
	// DefaultMaxSessions is OpenSSH's MaxSessions default (sshd_config(5)): the sessions one
	// connection may have open at once. A server that allows fewer refuses the extra ones.
	DefaultMaxSessions = 10
	// DefaultIdleTimeout is how long a Pool keeps a connection that no command uses.
	DefaultIdleTimeout = time.Minute
)

// PoolOptions tune a Pool; the zero value takes the defaults.
type PoolOptions struct {
	// MaxSessions is the number of sessions the servers allow per connection (sshd's
	// MaxSessions); 0 means DefaultMaxSessions. Commands use all but two of them: one is kept for
	// killing a cancelled command, and one is slack, because sshd may count a session the client
	// has just closed a moment longer than the client does.
	MaxSessions int
	// IdleTimeout closes a connection no command has used for that long; 0 means
	// DefaultIdleTimeout. The next command dials again.
	IdleTimeout time.Duration
}

// Pool shares one SSH connection per host among the callers of one process: an operation asks
// it for a Client instead of dialling (Dial), and the commands of every caller of that host run
// as sessions on the one connection (SSH multiplexes channels on a connection: RFC 4254 section
// 5). A refresh of many HCAs of one node thus pays one TCP and SSH handshake, not one per HCA.
//
// A connection is shared only by callers that would have dialled the same thing: the key is the
// host (as Dial's per-host lock spells it), the port, the user, the private key and passphrase
// (by their SHA-256, so the key holds no secret) and the known_hosts file (its path, size and
// modification time, so that an edited file is consulted by a new connection, as a fresh Dial
// would). Host keys are checked when the connection is made, by dial, exactly as Dial checks
// them; a refused key is never cached, so each caller meets the refusal.
//
// Concurrent callers of one host wait for the same handshake (its result, an error included,
// goes to every caller waiting on it, and a later caller dials again). The sessions on a
// connection are bounded (PoolOptions.MaxSessions). A connection found dead (it closed, or it
// cannot open a session within the dial timeout) is dropped and dialled again once, before any
// command ran on it; a command that was running when the connection died fails as it would on
// Dial's connection, and is not run again (it may have changed something).
//
// Close ends every connection; the provider calls it when its server stops, and a connection
// left idle for PoolOptions.IdleTimeout is closed anyway.
type Pool struct {
	maxRuns int
	idle    time.Duration
	closed  atomic.Bool
	dials   atomic.Int64

	mu      sync.Mutex
	entries map[poolKey]*pooled
}

// poolKey is what two callers must share to share a connection.
type poolKey struct {
	host, user string
	port       int
	identity   [sha256.Size]byte
	knownHosts string
	khSize     int64
	khModified int64
}

// pooled is the Pool's connection to one key: at most one live *ssh.Client at a time.
type pooled struct {
	pool          *Pool
	addr, lockKey string
	runs          chan struct{} // a slot per command session
	kills         chan struct{} // the slot kept for killing a cancelled command

	mu      sync.Mutex
	cfg     Config      // the last caller's: a redial uses its timeout
	conn    *ssh.Client // nil: not connected
	dialing *dialCall   // the handshake under way, if any
	busy    int         // sessions open or being opened
	idle    *time.Timer // closes the connection once idle
	lastUse time.Time   // when busy last fell to zero
}

// dialCall is one handshake that concurrent callers wait for together.
type dialCall struct {
	done chan struct{}
	conn *ssh.Client
	err  error
}

// errPoolClosed is what a closed Pool answers.
var errPoolClosed = errors.New("remote: the SSH connection pool is closed (the provider is stopping)")

// NewPool returns an empty Pool.
func NewPool(o PoolOptions) *Pool {
	maxSessions := o.MaxSessions
	if maxSessions <= 0 {
		maxSessions = DefaultMaxSessions
	}
	idle := o.IdleTimeout
	if idle <= 0 {
		idle = DefaultIdleTimeout
	}
	return &Pool{maxRuns: max(1, maxSessions-2), idle: idle, entries: map[poolKey]*pooled{}}
}

// Client returns a Client on the Pool's connection for cfg, connecting (with the host key
// checked against cfg.KnownHostsFile, as Dial does) if there is none. Its errors are Dial's:
// a *HostKeyError, Unreachable and KeyRefused classify them alike. Closing the Client does not
// close the connection.
func (p *Pool) Client(ctx context.Context, cfg Config) (*Client, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	e, err := p.entry(cfg)
	if err != nil {
		return nil, err
	}
	if _, err := e.connected(ctx); err != nil {
		return nil, cfg.scrub(err)
	}
	return &Client{pooled: e, addr: e.addr, lockKey: e.lockKey}, nil
}

// Dials is the number of connections the Pool has made (handshakes that succeeded).
func (p *Pool) Dials() int64 { return p.dials.Load() }

// Close ends every connection of the Pool and the sessions on them; the Pool then refuses new
// clients. It is safe to call more than once.
func (p *Pool) Close() error {
	p.closed.Store(true)
	p.mu.Lock()
	entries := make([]*pooled, 0, len(p.entries))
	for _, e := range p.entries {
		entries = append(entries, e)
	}
	p.mu.Unlock()
	for _, e := range entries {
		e.mu.Lock()
		c := e.conn
		e.conn = nil
		if e.idle != nil {
			e.idle.Stop()
		}
		e.mu.Unlock()
		if c != nil {
			_ = c.Close()
		}
	}
	return nil
}

func (p *Pool) entry(cfg Config) (*pooled, error) {
	if p.closed.Load() {
		return nil, errPoolClosed
	}
	k := poolKey{
		host:       strings.ToLower(strings.TrimSuffix(strings.TrimPrefix(cfg.Host, "["), "]")),
		user:       cfg.User,
		port:       cfg.port(),
		identity:   sha256.Sum256([]byte(cfg.PrivateKeyPEM + "\x00" + cfg.Passphrase)),
		knownHosts: cfg.KnownHostsFile,
	}
	// A file that cannot be read now is left to dial, which refuses it with its own message.
	if st, err := os.Stat(cfg.KnownHostsFile); err == nil {
		k.khSize, k.khModified = st.Size(), st.ModTime().UnixNano()
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	e := p.entries[k]
	if e == nil {
		e = &pooled{
			pool: p, addr: cfg.Addr(), lockKey: lockKey(cfg.Host, cfg.port()),
			runs: make(chan struct{}, p.maxRuns), kills: make(chan struct{}, 1),
		}
		p.entries[k] = e
	}
	e.mu.Lock()
	e.cfg = cfg
	e.mu.Unlock()
	return e, nil
}

// connected returns the live connection, dialling one if there is none. Callers that come while
// a handshake is under way wait for that one. The handshake is not cancelled with the caller's
// ctx (others may be waiting for it); cfg.Timeout bounds it, and a caller whose ctx ends stops
// waiting.
func (e *pooled) connected(ctx context.Context) (*ssh.Client, error) {
	if e.pool.closed.Load() {
		return nil, errPoolClosed
	}
	e.mu.Lock()
	if e.conn != nil {
		c := e.conn
		e.mu.Unlock()
		return c, nil
	}
	call := e.dialing
	if call == nil {
		call = &dialCall{done: make(chan struct{})}
		e.dialing = call
		go e.dial(context.WithoutCancel(ctx), e.cfg, call)
	}
	e.mu.Unlock()
	select {
	case <-call.done:
		return call.conn, call.err
	case <-ctx.Done():
		return nil, fmt.Errorf("remote: connecting to %s: %w", e.addr, ctx.Err())
	}
}

func (e *pooled) dial(ctx context.Context, cfg Config, call *dialCall) {
	c, err := dial(ctx, cfg)
	e.mu.Lock()
	e.dialing = nil
	if err == nil && e.pool.closed.Load() {
		_ = c.conn.Close()
		err = errPoolClosed
	}
	if err == nil {
		call.conn = c.conn
		e.conn = c.conn
		e.pool.dials.Add(1)
		e.lastUse = time.Now()
		e.armIdle()
		go e.watch(c.conn)
	}
	call.err = err
	e.mu.Unlock()
	close(call.done)
}

// watch forgets the connection when it ends (the server closed it, the network dropped it, or
// it was closed here), so that the next command dials a new one.
func (e *pooled) watch(c *ssh.Client) {
	_ = c.Wait()
	e.mu.Lock()
	if e.conn == c {
		e.conn = nil
	}
	e.mu.Unlock()
}

// drop closes a connection found dead, if it is still the current one.
func (e *pooled) drop(c *ssh.Client) {
	e.mu.Lock()
	if e.conn == c {
		e.conn = nil
	}
	e.mu.Unlock()
	_ = c.Close()
}

// armIdle (e.mu held) starts the idle clock of a connection no session uses.
func (e *pooled) armIdle() {
	if e.busy > 0 || e.conn == nil {
		return
	}
	if e.idle == nil {
		e.idle = time.AfterFunc(e.pool.idle, e.closeIfIdle)
		return
	}
	e.idle.Reset(e.pool.idle)
}

func (e *pooled) closeIfIdle() {
	e.mu.Lock()
	c := e.conn
	if c == nil || e.busy > 0 || time.Since(e.lastUse) < e.pool.idle {
		e.mu.Unlock()
		return
	}
	e.conn = nil
	e.mu.Unlock()
	_ = c.Close()
}

// session opens a session for one command: it waits for a slot (PoolOptions.MaxSessions), then
// opens the session on the live connection, dialling if there is none; a connection that turns
// out dead is dropped and dialled again, once. A server's refusal to open the session (an
// *ssh.OpenChannelError: the connection is alive) is returned as it is.
func (e *pooled) session(ctx context.Context) (*ssh.Session, *ssh.Client, func(), error) {
	select {
	case e.runs <- struct{}{}:
	case <-ctx.Done():
		return nil, nil, nil, fmt.Errorf("remote: waiting for a session on %s: %w", e.addr, ctx.Err())
	}
	e.mu.Lock()
	e.busy++
	cfg := e.cfg
	e.mu.Unlock()
	var once sync.Once
	release := func() {
		once.Do(func() {
			e.mu.Lock()
			e.busy--
			if e.busy == 0 {
				e.lastUse = time.Now()
				e.armIdle()
			}
			e.mu.Unlock()
			<-e.runs
		})
	}
	for attempt := 0; ; attempt++ {
		c, err := e.connected(ctx)
		if err != nil {
			release()
			return nil, nil, nil, cfg.scrub(err)
		}
		sess, err := openSession(ctx, c, cfg.timeout())
		if err == nil {
			return sess, c, release, nil
		}
		var refused *ssh.OpenChannelError
		if errors.As(err, &refused) || ctx.Err() != nil || attempt > 0 {
			release()
			return nil, nil, nil, fmt.Errorf("remote: opening a session on %s: %w", e.addr, err)
		}
		e.drop(c)
	}
}

// openSession opens a session on c, giving up on a connection that cannot open one within
// stall (a peer gone without closing the TCP connection): c is then closed, which also ends the
// attempt.
func openSession(ctx context.Context, c *ssh.Client, stall time.Duration) (*ssh.Session, error) {
	type opened struct {
		sess *ssh.Session
		err  error
	}
	ch := make(chan opened, 1)
	go func() {
		s, err := c.NewSession()
		ch <- opened{s, err}
	}()
	t := time.NewTimer(stall)
	defer t.Stop()
	select {
	case o := <-ch:
		return o.sess, o.err
	case <-t.C:
		_ = c.Close()
		if o := <-ch; o.sess != nil {
			_ = o.sess.Close()
		}
		return nil, fmt.Errorf("no session opened within %s", stall)
	case <-ctx.Done():
		go func() {
			if o := <-ch; o.sess != nil {
				_ = o.sess.Close()
			}
		}()
		return nil, ctx.Err()
	}
}
