package remote

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/testrig"
)

func TestRunOutputsAndExitStatus(t *testing.T) {
	testrig.RequirePeers(t)
	s := testrig.StartSSHD(t, testrig.SSHDOptions{})
	c := dialT(t, s)
	ctx := context.Background()

	stdout, stderr, exit, err := c.Run(ctx, "echo out; echo err >&2; exit 7")
	if err != nil || stdout != "out\n" || stderr != "err\n" || exit != 7 {
		t.Fatalf("Run = (%q, %q, %d, %v), want (\"out\\n\", \"err\\n\", 7, nil)", stdout, stderr, exit, err)
	}

	if got := runT(t, c, "id -un"); strings.TrimSpace(got) != s.User {
		t.Fatalf("logged in as %q, want %q", got, s.User)
	}

	// Killed by a signal: 128+n, as a shell reports it, and not a transport error.
	_, _, exit, err = c.Run(ctx, "kill -TERM $$")
	if err != nil || exit != 128+15 {
		t.Fatalf("self-killed shell: exit %d, err %v; want 143, nil", exit, err)
	}

	// stdin carries any bytes, including NUL and invalid UTF-8, unchanged.
	in := "a\x00b\xff\n\r\nend"
	stdout, _, exit, err = c.RunWithInput(ctx, "cat", strings.NewReader(in))
	if err != nil || exit != 0 || stdout != in {
		t.Fatalf("cat of binary stdin = (%q, %d, %v)", stdout, exit, err)
	}

	// Sessions on one connection run concurrently.
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			out, _, exit, err := c.Run(ctx, "echo "+strconv.Itoa(i))
			if err != nil || exit != 0 || out != strconv.Itoa(i)+"\n" {
				errs <- errors.New("concurrent run " + strconv.Itoa(i) + ": " + out)
			}
		}(i)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestQuoteRoundTripsThroughTheRemoteShell(t *testing.T) {
	testrig.RequirePeers(t)
	s := testrig.StartSSHD(t, testrig.SSHDOptions{})
	c := dialT(t, s)
	args := []string{
		"plain", "", " ", "two words", "it's", `"double"`, "$HOME", "`id`", "$(id)", "a;b|c&d",
		"back\\slash", "new\nline", "tab\there", "*", "?", "[x]", "~", "=zsh", "!bang", "#hash",
		"-n", "ünïcödé", "'", "''", "a'b'c",
		// where the provider's two quoters disagreed: '=' inside a word, and leading
		"LINK_TYPE_P1=IB", "a=b=c", "==x", "a=~", "x:~",
	}
	// printf repeats its format for every argument, so each comes back on its own NUL-ended
	// record, exactly as the remote shell received it.
	stdout := runT(t, c, "printf '%s\\0' "+Command(args...))
	got := strings.Split(strings.TrimSuffix(stdout, "\x00"), "\x00")
	if len(got) != len(args) {
		t.Fatalf("got %d arguments back, want %d: %q", len(got), len(args), got)
	}
	for i := range args {
		if got[i] != args[i] {
			t.Errorf("argument %d: sent %q, shell saw %q (quoted as %s)", i, args[i], got[i], Quote(args[i]))
		}
	}
	if Quote("/etc/opensm/opensm.conf") != "/etc/opensm/opensm.conf" {
		t.Errorf("a plain path should stay readable: %s", Quote("/etc/opensm/opensm.conf"))
	}
	// The command word: quoted, "GPC_T=1" is a command the shell cannot find (exit 127); bare,
	// it would be an assignment and true would run (exit 0).
	if _, _, exit, err := c.Run(context.Background(), Command("GPC_T=1", "true")); err != nil || exit != 127 {
		t.Errorf("%s: exit %d, %v; want 127 (no command named GPC_T=1)", Command("GPC_T=1", "true"), exit, err)
	}
}

// TestQuote: the words the provider's two former quoters (hca's and this one) disagreed on, and
// what each shell reads specially.
func TestQuote(t *testing.T) {
	for in, want := range map[string]string{
		"/dev/mst/mt4129_pciconf0": "/dev/mst/mt4129_pciconf0",
		"0000:3b:00.0":             "0000:3b:00.0",
		"LINK_TYPE_P1=IB":          "LINK_TYPE_P1=IB", // hca left it bare, this quoted it: bare reads the same everywhere
		"a=b=c":                    "a=b=c",
		"=zsh":                     "'=zsh'", // hca left it bare: zsh reads it as the path of the command zsh
		"a=~":                      "'a=~'",  // bash expands ~ after '=' in assignment-like arguments
		"~":                        "'~'",
		"":                         "''",
		"a b":                      "'a b'",
		"x;rm -rf /":               "'x;rm -rf /'",
		"it's":                     `'it'\''s'`,
		"$(id)":                    "'$(id)'",
	} {
		if got := Quote(in); got != want {
			t.Errorf("Quote(%q) = %s, want %s", in, got, want)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"mlxconfig", "-y", "set", "SRIOV_EN=1"}, "mlxconfig -y set SRIOV_EN=1"},
		{[]string{"A=1", "true"}, "'A=1' true"}, // the command word, not an assignment
		{[]string{"=x", "a"}, "'=x' a"},
	} {
		if got := Command(c.args...); got != c.want {
			t.Errorf("Command(%q) = %s, want %s", c.args, got, c.want)
		}
	}
}

func TestRunContextTimeoutKillsTheCommand(t *testing.T) {
	testrig.RequirePeers(t)
	s := testrig.StartSSHD(t, testrig.SSHDOptions{})
	c := dialT(t, s)

	marker := filepath.Join(s.Dir, "still-running")
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	// exec: the signal reaches sleep itself, not a shell waiting for it.
	_, _, exit, err := c.Run(ctx, "exec sleep 30.25")
	elapsed := time.Since(start)
	if !errors.Is(err, context.DeadlineExceeded) || exit != -1 {
		t.Fatalf("Run past its deadline: exit %d, err %v; want -1 and context.DeadlineExceeded", exit, err)
	}
	if elapsed > 3*time.Second {
		t.Fatalf("Run returned %s after its 300ms deadline", elapsed)
	}
	// The remote command was killed, not left behind.
	if !testrig.WaitFor(5*time.Second, func() bool { return !processRunning("sleep 30.25") }) {
		t.Fatalf("the remote sleep is still running after the context ended")
	}

	// The connection is still usable afterwards.
	if got := runT(t, c, "echo ok"); got != "ok\n" {
		t.Fatalf("after a cancelled Run: %q", got)
	}

	// An already-ended context does not start anything.
	done, cancelDone := context.WithCancel(context.Background())
	cancelDone()
	if _, _, _, err := c.Run(done, "touch "+Quote(marker)); !errors.Is(err, context.Canceled) {
		t.Fatalf("Run with a cancelled context: %v", err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatalf("Run with a cancelled context still ran the command")
	}
}

// processRunning reports whether a local process has this command line; the test sshd runs on
// this machine, so its children are visible in /proc.
func processRunning(cmdline string) bool {
	want := strings.ReplaceAll(cmdline, " ", "\x00")
	dirs, _ := os.ReadDir("/proc")
	for _, d := range dirs {
		if _, err := strconv.Atoi(d.Name()); err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", d.Name(), "cmdline"))
		if err == nil && strings.TrimSuffix(string(b), "\x00") == want {
			return true
		}
	}
	return false
}

func TestDialTimeoutOnAServerThatNeverAnswers(t *testing.T) {
	testrig.RequirePeers(t)
	s := testrig.StartSSHD(t, testrig.SSHDOptions{})
	// A listener that accepts and then says nothing, as a hung sshd or a black-holing firewall
	// in front of a half-open port would.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			conn, err := l.Accept()
			if err != nil {
				return
			}
			defer conn.Close()
		}
	}()
	cfg := configFor(s)
	addr, ok := l.Addr().(*net.TCPAddr)
	if !ok {
		t.Fatalf("listener address %v is not TCP", l.Addr())
	}
	cfg.Port = addr.Port
	cfg.Timeout = 300 * time.Millisecond
	start := time.Now()
	_, err = Dial(context.Background(), cfg)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Dial to a silent server: %v; want context.DeadlineExceeded", err)
	}
	if e := time.Since(start); e > 3*time.Second {
		t.Fatalf("Dial took %s with a 300ms timeout", e)
	}
	// The error says what is wrong there, not only that time ran out.
	for _, want := range []string{l.Addr().String(), "accepted the TCP connection but sent no SSH greeting within 300ms", "is an SSH server listening there"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}

	// The caller's context bounds it too.
	cfg.Timeout = time.Minute
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if _, err = Dial(ctx, cfg); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Dial with an expiring context: %v", err)
	}
}

func TestDialRefusesIncompleteConfig(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  Config
		want string
	}{
		{"no known_hosts", Config{Host: "h", User: "u", PrivateKeyPEM: "k"}, "known_hosts"},
		{"no key", Config{Host: "h", User: "u", KnownHostsFile: "/x"}, "private_key"},
		{"no user", Config{Host: "h", PrivateKeyPEM: "k", KnownHostsFile: "/x"}, "user"},
		{"bad port", Config{Host: "h", User: "u", PrivateKeyPEM: "k", KnownHostsFile: "/x", Port: 70000}, "port"},
	} {
		_, err := Dial(context.Background(), tc.cfg)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v; want an error about %s", tc.name, err, tc.want)
		}
	}
}

func TestHostLock(t *testing.T) {
	ctx := context.Background()
	locked, release, err := LockHost(ctx, "SM01.example", 0)
	if err != nil {
		t.Fatal(err)
	}
	// Same host, another name case and the explicit default port: same lock, so it waits.
	short, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	if _, _, err := LockHost(short, "sm01.example", 22); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("second LockHost on a held host: %v; want it to wait until its deadline", err)
	}
	// Another host is independent.
	_, releaseOther, err := LockHost(ctx, "sm02.example", 22)
	if err != nil {
		t.Fatalf("LockHost on another host: %v", err)
	}
	releaseOther()
	// The holder's context re-enters without deadlocking.
	again, releaseAgain, err := LockHost(locked, "sm01.example", 22)
	if err != nil || again != locked {
		t.Fatalf("re-entering with the holder's context: %v", err)
	}
	releaseAgain()
	// Releasing hands the lock to a waiter; release is idempotent.
	got := make(chan error, 1)
	go func() {
		_, r, err := LockHost(ctx, "sm01.example", 22)
		if err == nil {
			r()
		}
		got <- err
	}()
	time.Sleep(50 * time.Millisecond)
	release()
	release()
	select {
	case err := <-got:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the waiter did not get the lock after release")
	}
}
