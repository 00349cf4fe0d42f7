package remote

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/testrig"
)

// accepted counts the connections sshd let in, from its own log (sshd -e logs each accepted
// key at INFO): a count the pool under test has no hand in.
func accepted(s *testrig.SSHD) int {
	return strings.Count(s.Proc.Output(), "Accepted publickey for ")
}

func poolT(t *testing.T) *Pool {
	t.Helper()
	p := NewPool(PoolOptions{})
	t.Cleanup(func() { p.Close() })
	return p
}

// poolRun runs cmd on a client of p for s, which must succeed.
func poolRun(t *testing.T, p *Pool, cfg Config, cmd string) string {
	t.Helper()
	c, err := p.Client(context.Background(), cfg)
	if err != nil {
		t.Fatalf("Pool.Client: %v", err)
	}
	defer c.Close() // a no-op: the connection stays in the pool
	out, errOut, exit, err := c.Run(context.Background(), cmd)
	if err != nil || exit != 0 {
		t.Fatalf("%s: exit %d, err %v, stderr %q", cmd, exit, err, errOut)
	}
	return out
}

// TestPoolSharesOneConnection: 32 callers of one host at once (the HCAs of a node read in
// parallel) share one connection, with never more sessions open than sshd allows less the two
// the pool keeps back, and every command gets its own output.
func TestPoolSharesOneConnection(t *testing.T) {
	testrig.RequirePeers(t)
	s := testrig.StartSSHD(t, testrig.SSHDOptions{})
	p := poolT(t)
	cfg := configFor(s)
	active := filepath.Join(s.Dir, "active")
	if err := os.Mkdir(active, 0o755); err != nil {
		t.Fatal(err)
	}
	// Each command marks itself active, counts the active ones, and lingers, so that commands
	// overlap; the count each saw is the remote side's own view of the concurrency.
	script := "f=" + Quote(active) + "/$$; : > $f; sleep 0.3; n=$(ls " + Quote(active) + " | wc -l); rm -f $f; echo $n "
	const callers = 32
	var wg sync.WaitGroup
	seen := make([]int, callers)
	errs := make(chan error, callers)
	for i := 0; i < callers; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			c, err := p.Client(context.Background(), cfg)
			if err != nil {
				errs <- err
				return
			}
			out, stderr, exit, err := c.Run(context.Background(), script+strconv.Itoa(i))
			f := strings.Fields(out)
			if err != nil || exit != 0 || len(f) != 2 || f[1] != strconv.Itoa(i) {
				errs <- fmt.Errorf("caller %d: out %q, stderr %q, exit %d, err %v", i, out, stderr, exit, err)
				return
			}
			seen[i], _ = strconv.Atoi(f[0])
		}(i)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if n := accepted(s); n != 1 {
		t.Errorf("sshd accepted %d connections, want 1", n)
	}
	if p.Dials() != 1 {
		t.Errorf("pool dialled %d times, want 1", p.Dials())
	}
	most := 0
	for _, n := range seen {
		most = max(most, n)
	}
	// sshd's MaxSessions is 10 by default: the pool runs at most 8 commands at once, and with 32
	// callers of 0.3 s each it does reach more than one.
	if most > DefaultMaxSessions-2 || most < 2 {
		t.Errorf("at most %d commands ran at once, want 2 to %d", most, DefaultMaxSessions-2)
	}

	// A second round reuses the connection.
	poolRun(t, p, cfg, "true")
	if n := accepted(s); n != 1 {
		t.Errorf("after a second round sshd accepted %d connections, want 1", n)
	}
}

// TestPoolRedialsADeadConnection: a connection whose server side is killed is replaced by a new
// one, for the next command; one that is dead but not yet noticed is found dead when a session
// will not open, and dialled again once, before the command runs.
func TestPoolRedialsADeadConnection(t *testing.T) {
	testrig.RequirePeers(t)
	s := testrig.StartSSHD(t, testrig.SSHDOptions{})
	p := poolT(t)
	cfg := configFor(s)
	c, err := p.Client(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if out, _, _, err := c.Run(context.Background(), "echo one"); err != nil || out != "one\n" {
		t.Fatalf("first run: %q %v", out, err)
	}

	// Kill the sshd process that serves the connection (a child of the listener).
	killed := 0
	for _, pid := range testrig.Children(s.Proc.Cmd.Process.Pid) {
		if syscall.Kill(pid, syscall.SIGKILL) == nil {
			killed++
		}
	}
	if killed == 0 {
		t.Fatal("found no sshd child serving the connection")
	}
	// The same Client goes on working: its next command runs on a new connection.
	if out, _, _, err := c.Run(context.Background(), "echo two"); err != nil || out != "two\n" {
		t.Fatalf("run after the connection was killed: %q %v", out, err)
	}
	if n := accepted(s); n != 2 || p.Dials() != 2 {
		t.Errorf("after the kill: sshd accepted %d, pool dialled %d; want 2 and 2", n, p.Dials())
	}

	// A dead connection the pool has not noticed: one closed here without its watcher.
	dead, err := dial(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	dead.conn.Close()
	e, _ := p.entry(cfg)
	e.mu.Lock()
	e.conn = dead.conn
	e.mu.Unlock()
	if out, _, _, err := c.Run(context.Background(), "echo three"); err != nil || out != "three\n" {
		t.Fatalf("run on an unnoticed dead connection: %q %v", out, err)
	}
	if n := accepted(s); n != 4 || p.Dials() != 3 { // the injected one counts at sshd only
		t.Errorf("after the unnoticed death: sshd accepted %d, pool dialled %d; want 4 and 3", n, p.Dials())
	}

	// Redialled once, not forever: with the server gone the command fails as Dial would.
	s.Stop()
	start := time.Now()
	_, _, exit, err := c.Run(context.Background(), "echo four")
	if err == nil || exit != -1 || !Unreachable(err) {
		t.Fatalf("run with the server gone: exit %d, err %v; want -1 and an Unreachable error", exit, err)
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("failing took %s", d)
	}
}

// TestPoolChecksHostKeys: a host that comes back with another key is refused, even with a
// connection to it in the pool; and a configuration whose known_hosts file or key differs
// never gets the connection another configuration made.
func TestPoolChecksHostKeys(t *testing.T) {
	testrig.RequirePeers(t)
	s := testrig.StartSSHD(t, testrig.SSHDOptions{})
	p := poolT(t)
	cfg := configFor(s)
	poolRun(t, p, cfg, "true")

	// known_hosts that records another key for this host: refused, though a connection is open.
	other := testrig.StartSSHD(t, testrig.SSHDOptions{})
	wrong := filepath.Join(t.TempDir(), "known_hosts")
	line := strings.Replace(other.KnownHostsLine, other.Addr(), s.Addr(), 1)
	line = strings.Replace(line, "["+other.Host+"]:"+strconv.Itoa(other.Port), "["+s.Host+"]:"+strconv.Itoa(s.Port), 1)
	if err := os.WriteFile(wrong, []byte(line+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	bad := cfg
	bad.KnownHostsFile = wrong
	var hk *HostKeyError
	if _, err := p.Client(context.Background(), bad); !errors.As(err, &hk) {
		t.Fatalf("Client with a known_hosts file holding another key: %v; want a *HostKeyError", err)
	}
	// A key the server does not accept: refused, not handed the open connection.
	alien := cfg
	alien.PrivateKeyPEM = other.PrivateKeyPEM
	if _, err := p.Client(context.Background(), alien); !KeyRefused(err) {
		t.Fatalf("Client with a key the server does not know: %v; want KeyRefused", err)
	}
	if n := accepted(s); n != 1 {
		t.Errorf("sshd accepted %d connections, want the first only", n)
	}

	// The server comes back with a new host key (its connections die with it).
	c, err := p.Client(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	s.RestartWithNewHostKey(t)
	if _, err := p.Client(context.Background(), cfg); !errors.As(err, &hk) || !hk.Changed {
		t.Fatalf("Client after the host key changed: %v; want a changed-key *HostKeyError", err)
	}
	if _, _, _, err := c.Run(context.Background(), "true"); !errors.As(err, &hk) {
		t.Fatalf("Run on an older Client after the host key changed: %v; want a *HostKeyError", err)
	}
}

// TestPoolIdleAndClose: a connection no one uses is closed after the idle timeout and dialled
// again when needed; Close ends the connections and refuses new clients.
func TestPoolIdleAndClose(t *testing.T) {
	testrig.RequirePeers(t)
	s := testrig.StartSSHD(t, testrig.SSHDOptions{})
	p := NewPool(PoolOptions{IdleTimeout: 300 * time.Millisecond})
	defer p.Close()
	cfg := configFor(s)
	poolRun(t, p, cfg, "true")
	e, _ := p.entry(cfg)
	connected := func() bool { e.mu.Lock(); defer e.mu.Unlock(); return e.conn != nil }
	if !testrig.WaitFor(5*time.Second, func() bool { return !connected() }) {
		t.Fatal("the idle connection was not closed")
	}
	// sshd saw it end: the process that served it is gone.
	if !testrig.WaitFor(5*time.Second, func() bool { return len(testrig.Children(s.Proc.Cmd.Process.Pid)) == 0 }) {
		t.Errorf("sshd still serves the idle connection")
	}
	poolRun(t, p, cfg, "true")
	if p.Dials() != 2 || accepted(s) != 2 {
		t.Errorf("after the idle close: pool dialled %d, sshd accepted %d; want 2 and 2", p.Dials(), accepted(s))
	}

	c, err := p.Client(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if connected() {
		t.Error("Close left the connection open")
	}
	if _, err := p.Client(context.Background(), cfg); !errors.Is(err, errPoolClosed) {
		t.Errorf("Client after Close: %v", err)
	}
	if _, _, _, err := c.Run(context.Background(), "true"); !errors.Is(err, errPoolClosed) {
		t.Errorf("Run after Close: %v", err)
	}
}

// TestPoolCancelKillsTheCommand: a pooled command whose context ends is killed on the host (over
// the slot kept for kills) and the connection goes on serving others.
func TestPoolCancelKillsTheCommand(t *testing.T) {
	testrig.RequirePeers(t)
	s := testrig.StartSSHD(t, testrig.SSHDOptions{})
	p := poolT(t)
	cfg := configFor(s)
	c, err := p.Client(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if _, _, exit, err := c.Run(ctx, "exec sleep 30.75"); !errors.Is(err, context.DeadlineExceeded) || exit != -1 {
		t.Fatalf("Run past its deadline: exit %d, err %v", exit, err)
	}
	if !testrig.WaitFor(5*time.Second, func() bool { return !processRunning("sleep 30.75") }) {
		t.Fatal("the remote sleep is still running after the context ended")
	}
	if got := poolRun(t, p, cfg, "echo ok"); got != "ok\n" || p.Dials() != 1 {
		t.Fatalf("after a cancelled Run: %q, %d dials", got, p.Dials())
	}
}
