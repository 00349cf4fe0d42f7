package remote

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/crypto/ssh"
)

// Client is one authenticated SSH connection to one host, Dial's own or one a Pool shares. It is
// safe for concurrent use: each Run opens its own session on the connection.
type Client struct {
	conn    *ssh.Client // Dial's connection; nil for a Pool's client
	pooled  *pooled     // the Pool's shared connection; nil for Dial's client
	addr    string
	lockKey string
}

// Dial connects and authenticates with the private key, after checking the host key against
// cfg.KnownHostsFile. A refused host key is a *HostKeyError. Errors never contain the private
// key or the passphrase.
//
// The protocol is SSH-2 (RFC 4251-4254) as golang.org/x/crypto/ssh speaks it; the host key is
// held against known_hosts in OpenSSH's format, hashed host names included (sshd(8),
// "SSH_KNOWN_HOSTS FILE FORMAT"; golang.org/x/crypto/ssh/knownhosts), with the host key
// algorithms pinned to the types the file records for the host.
func Dial(ctx context.Context, cfg Config) (*Client, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	c, err := dial(ctx, cfg)
	return c, cfg.scrub(err)
}

func dial(ctx context.Context, cfg Config) (*Client, error) {
	signer, err := cfg.signer()
	if err != nil {
		return nil, err
	}
	addr := cfg.Addr()
	policy, err := newHostKeyPolicy(cfg.KnownHostsFile, addr)
	if err != nil {
		return nil, err
	}
	var refused error
	clientCfg := &ssh.ClientConfig{
		User:              cfg.User,
		Auth:              []ssh.AuthMethod{ssh.PublicKeys(signer)},
		HostKeyCallback:   policy.callback(&refused),
		HostKeyAlgorithms: policy.algorithms,
	}

	started := time.Now()
	ctx, cancel := context.WithTimeout(ctx, cfg.timeout())
	defer cancel()
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("remote: connecting to %s: %w", addr, err)
	}
	// The SSH handshake takes no context: closing the socket when ctx ends (timeout included)
	// unblocks it. A socket deadline is not used as well, so that a timeout is always reported
	// as ctx's error and not as whichever of the two fired first.
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	counted := &countingConn{Conn: conn}
	sc, chans, reqs, err := ssh.NewClientConn(counted, addr, clientCfg)
	if !stop() {
		if err == nil {
			sc.Close()
		}
		if refused != nil {
			return nil, refused
		}
		budget := cfg.timeout()
		if d, ok := ctx.Deadline(); ok {
			budget = time.Until(d) + time.Since(started)
		}
		if counted.read.Load() == 0 {
			// Something took the TCP connection and never spoke: a port forwarded to
			// nothing, a service other than SSH, or an sshd too loaded to answer.
			return nil, fmt.Errorf("remote: %s accepted the TCP connection but sent no SSH greeting within %s (is an SSH server listening there, and is the port right?): %w",
				addr, budget.Round(time.Millisecond), ctx.Err())
		}
		return nil, fmt.Errorf("remote: ssh handshake with %s did not finish within %s: %w", addr, budget.Round(time.Millisecond), ctx.Err())
	}
	if err != nil {
		conn.Close()
		if refused != nil {
			return nil, refused
		}
		if strings.Contains(err.Error(), "unable to authenticate") {
			return nil, &keyRefusedError{msg: fmt.Sprintf("remote: %s did not accept the private key for user %q (is its public key in that user's authorized_keys?): %s", addr, cfg.User, err), err: err}
		}
		return nil, fmt.Errorf("remote: ssh handshake with %s as %q: %w", addr, cfg.User, err)
	}
	return &Client{conn: ssh.NewClient(sc, chans, reqs), addr: addr, lockKey: lockKey(cfg.Host, cfg.port())}, nil
}

// countingConn counts the bytes read, to tell a peer that never spoke from a slow handshake.
type countingConn struct {
	net.Conn
	read atomic.Int64
}

func (c *countingConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.read.Add(int64(n))
	return n, err
}

// Addr is the host:port this client is connected to.
func (c *Client) Addr() string { return c.addr }

// Close ends the connection and every session on it. For a Pool's client it does nothing: the
// connection is the Pool's, shared with other callers, and the Pool closes it.
func (c *Client) Close() error {
	if c.pooled != nil {
		return nil
	}
	return c.conn.Close()
}

// session opens a session for one command, and says on which connection (for kill) and how to
// give its slot back (the Pool bounds the sessions on a connection).
func (c *Client) session(ctx context.Context) (*ssh.Session, *ssh.Client, func(), error) {
	if c.pooled != nil {
		return c.pooled.session(ctx)
	}
	sess, err := c.conn.NewSession()
	if err != nil {
		return nil, nil, nil, fmt.Errorf("remote: opening a session on %s: %w", c.addr, err)
	}
	return sess, c.conn, func() {}, nil
}

// Run runs cmd with /bin/sh (POSIX sh), started from the remote user's login shell, which must
// be a POSIX-like shell (sh, bash, dash, zsh, ksh). A command that ran and exited non-zero is
// not an error: its status is in exit (128+n when killed by signal n). err is for what
// prevented learning the status: no session, a lost connection, or ctx ending; then exit is -1
// and the command's whole process group is killed on the remote host.
func (c *Client) Run(ctx context.Context, cmd string) (stdout, stderr string, exit int, err error) {
	return c.RunWithInput(ctx, cmd, nil)
}

// RunWithInput is Run with stdin fed from in (nil: empty). Content belongs here rather than on
// the command line, where any local user could read it with ps.
func (c *Client) RunWithInput(ctx context.Context, cmd string, in io.Reader) (stdout, stderr string, exit int, err error) {
	if err := ctx.Err(); err != nil {
		return "", "", -1, fmt.Errorf("remote: %s on %s: %w", summary(cmd), c.addr, err)
	}
	sess, conn, release, err := c.session(ctx)
	if err != nil {
		return "", "", -1, err
	}
	defer release()
	defer sess.Close()
	var out bytes.Buffer
	errOut := newPIDFilter()
	sess.Stdout, sess.Stderr = &out, errOut
	if in != nil {
		sess.Stdin = in
	}
	if err := sess.Start(wrap(cmd)); err != nil {
		return "", "", -1, fmt.Errorf("remote: starting %s on %s: %w", summary(cmd), c.addr, err)
	}
	done := make(chan error, 1)
	go func() { done <- sess.Wait() }()
	select {
	case err = <-done:
	case <-ctx.Done():
		c.kill(conn, errOut)
		_ = sess.Close()
		// The buffers are abandoned, not read: the session's copy goroutines may still be
		// writing to them.
		return "", "", -1, fmt.Errorf("remote: %s on %s: %w", summary(cmd), c.addr, ctx.Err())
	}
	var ee *ssh.ExitError
	switch {
	case err == nil:
		return out.String(), errOut.String(), 0, nil
	case errors.As(err, &ee):
		return out.String(), errOut.String(), ee.ExitStatus(), nil
	default:
		return out.String(), errOut.String(), -1, fmt.Errorf("remote: %s on %s: %w", summary(cmd), c.addr, err)
	}
}

// pidTag starts the line on which the wrapper reports the remote process ID.
const pidTag = "gpc-pid "

// wrap makes the remote side report its PID on stderr before running cmd in the same process.
// sshd starts each session with setsid(), so that PID leads the command's process group, and
// killing the group ends the whole command. The SSH "signal" request cannot do this: OpenSSH
// ignores it for root logins ("session signalling requires privilege separation"), and it
// reaches only one process. Running cmd with /bin/sh also gives it the same shell whatever the
// user's login shell is.
func wrap(cmd string) string {
	return `exec /bin/sh -c 'echo "` + pidTag + `$$" >&2; exec /bin/sh -c "$1"' gpc-run ` + Quote(cmd)
}

// kill ends the remote process group of a cancelled command, over a new session on the
// command's connection, within a few seconds at most (the connection may be the thing that
// hangs). On a Pool's connection it takes the slot kept for kills, so that the sessions on the
// connection stay within sshd's MaxSessions.
func (c *Client) kill(conn *ssh.Client, f *pidFilter) {
	var pid int
	select {
	case <-f.known:
		pid = f.PID()
	case <-time.After(time.Second):
		return // never started: closing the session is all there is to do
	}
	if c.pooled != nil {
		select {
		case c.pooled.kills <- struct{}{}:
			defer func() { <-c.pooled.kills }()
		case <-time.After(5 * time.Second):
			return
		}
	}
	sess, err := conn.NewSession()
	if err != nil {
		return
	}
	defer sess.Close()
	done := make(chan struct{})
	go func() {
		_ = sess.Run(fmt.Sprintf("kill -s KILL -- -%d 2>/dev/null || kill -s KILL %d", pid, pid))
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
	}
}

// pidFilter is the session's stderr: it takes the wrapper's PID line out and keeps the rest.
type pidFilter struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	pid   int
	known chan struct{} // closed once pid is set
}

func newPIDFilter() *pidFilter { return &pidFilter{known: make(chan struct{})} }

func (f *pidFilter) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.buf.Write(p)
	if f.pid != 0 {
		return len(p), nil
	}
	b := f.buf.Bytes()
	// The tag line normally comes first, but a noisy shell startup file may print before it.
	for from := 0; ; {
		i := bytes.Index(b[from:], []byte(pidTag))
		if i < 0 {
			return len(p), nil
		}
		i += from
		if i > 0 && b[i-1] != '\n' {
			from = i + 1
			continue
		}
		end := bytes.IndexByte(b[i:], '\n')
		if end < 0 {
			return len(p), nil // the rest of the line is still to come
		}
		pid, err := strconv.Atoi(string(b[i+len(pidTag) : i+end]))
		if err != nil || pid <= 0 {
			from = i + 1
			continue
		}
		rest := append([]byte(nil), b[i+end+1:]...)
		f.buf.Truncate(i)
		f.buf.Write(rest)
		f.pid = pid
		close(f.known)
		return len(p), nil
	}
}

func (f *pidFilter) PID() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.pid
}

func (f *pidFilter) String() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.buf.String()
}

// summary names a command in an error without reproducing all of it.
func summary(cmd string) string {
	cmd = strings.Join(strings.Fields(cmd), " ")
	if len(cmd) > 60 {
		cmd = cmd[:57] + "..."
	}
	return fmt.Sprintf("%q", cmd)
}

// Quote returns s as one argument word for a POSIX shell (also read correctly by bash, zsh and
// fish): unchanged when it is made only of characters no shell treats specially, otherwise in
// single quotes. It is the provider's one shell quoter (internal/hca and internal/opensm build
// their command lines with it). s must not contain NUL, which no command line can carry.
//
// '=' stays plain inside a word, so NAME=VALUE arguments (mlxconfig's) read as they are written;
// a word that starts with '=' is quoted, because zsh expands a leading "=word" to the path of the
// command word (EQUALS option). '~' is always quoted: shells expand it at a word's start and
// after '=' or ':' in assignments. The command word itself is Command's to guard: sh reads an
// unquoted NAME=VALUE there as an assignment.
func Quote(s string) string {
	if s == "" {
		return "''"
	}
	plain := s[0] != '='
	for _, r := range s {
		if ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("_-./:,+@%=", r); !ok {
			plain = false
			break
		}
	}
	if plain {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Command quotes each argument and joins them into one command line. The first is the command
// word: one holding '=' is quoted whole, so the shell runs it instead of taking it for an
// assignment ("A=1 true" would run true).
func Command(args ...string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = Quote(a)
		if i == 0 && q[i] == a && strings.ContainsRune(a, '=') {
			q[i] = "'" + a + "'"
		}
	}
	return strings.Join(q, " ")
}
