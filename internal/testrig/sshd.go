package testrig

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/pem"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"
)

// SSHD is a real OpenSSH server listening on a loopback address, started for one test.
type SSHD struct {
	Host string // loopback address it listens on, e.g. "127.0.0.1"
	Port int
	User string // the user running the test; sshd only lets that user in when not root

	// PrivateKeyPEM is the client's unencrypted ed25519 key (OpenSSH PEM); its public half is the
	// only line of AuthorizedKeysFile.
	PrivateKeyPEM      string
	AuthorizedKeysFile string

	// KnownHostsFile records this server's host key as "[Host]:Port ssh-ed25519 ...";
	// KnownHostsLine is that line, for tests that compose their own files.
	KnownHostsFile string
	KnownHostsLine string
	HostKey        ssh.PublicKey // the host key sshd presents now

	Dir  string // private directory: config, keys, pid file, and room for test files
	Proc *Process

	// ExtraHostKey is the unrecorded ECDSA host key when SSHDOptions.ExtraECDSAHostKey is set.
	ExtraHostKey ssh.PublicKey

	sshdPath string
	path     string // SSHDOptions.Path
	cfgFile  string
	hostKey  string // path of the private host key
	extraKey string // path of the unrecorded ECDSA host key, if any
}

// SSHDOptions chooses where an sshd listens and which client it lets in. The zero value gives a
// server on 127.0.0.1 with its own client key and known_hosts file.
type SSHDOptions struct {
	// Host is the loopback address to listen on (all of 127/8 is local on Linux); default 127.0.0.1.
	Host string
	// Share, when set, makes the new server accept Share's client key and appends its host key to
	// Share's known_hosts file, so one remote.Config shape reaches both "hosts".
	Share *SSHD
	// ExtraECDSAHostKey also gives the server an ECDSA P-256 host key that known_hosts does not
	// record. x/crypto's default preference puts ECDSA before Ed25519, so a client that does not
	// pin its host key algorithms to the recorded type is refused by this server.
	ExtraECDSAHostKey bool
	// Path, when set, is the PATH of every command the server runs for a client (sshd_config
	// SetEnv, which sshd applies after its compiled-in default PATH, sshd_config(5)): the
	// programs a node has on the PATH of an SSH session, e.g. a tool double under its real name.
	Path string
}

// SSHDPath finds the sshd binary. It lives in /usr/sbin, which is not on PATH for non-login
// shells, and sshd refuses to re-exec itself unless started by absolute path.
func SSHDPath(t TB) string {
	t.Helper()
	mustBeAsked(t, "sshd")
	if p, err := exec.LookPath("sshd"); err == nil {
		if abs, err := filepath.Abs(p); err == nil {
			return abs
		}
	}
	for _, p := range []string{"/usr/sbin/sshd", "/usr/local/sbin/sshd", "/sbin/sshd"} {
		if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return p
		}
	}
	t.Fatalf("sshd is not installed: apt-get install openssh-server (the README's test command installs it)")
	return ""
}

// StartSSHD starts an OpenSSH server for this test and stops it (by process group) when the test
// ends. It fails the test, with sshd's own output, if the server does not come up.
func StartSSHD(t TB, opts SSHDOptions) *SSHD {
	t.Helper()
	host := opts.Host
	if host == "" {
		host = "127.0.0.1"
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		t.Fatalf("StartSSHD: %q is not a loopback address; test peers stay on loopback", host)
	}
	u, err := user.Current()
	if err != nil {
		t.Fatalf("StartSSHD: current user: %v", err)
	}
	if os.Geteuid() == 0 {
		// A root sshd chroots its pre-auth privilege-separation child into /run/sshd and refuses
		// to start without it.
		if err := os.MkdirAll("/run/sshd", 0o755); err != nil {
			t.Fatalf("StartSSHD: creating /run/sshd: %v", err)
		}
		_ = os.Chmod("/run/sshd", 0o755)
	}

	if strings.ContainsAny(opts.Path, " \t\n\"'") {
		t.Fatalf("StartSSHD: Path %q has a blank or a quote, which SetEnv would split", opts.Path)
	}
	s := &SSHD{Host: host, User: u.Username, Dir: t.TempDir(), sshdPath: SSHDPath(t), path: opts.Path}
	s.cfgFile = filepath.Join(s.Dir, "sshd_config")
	s.hostKey = filepath.Join(s.Dir, "ssh_host_ed25519_key")
	s.AuthorizedKeysFile = filepath.Join(s.Dir, "authorized_keys")

	if opts.Share != nil {
		s.PrivateKeyPEM = opts.Share.PrivateKeyPEM
		s.KnownHostsFile = opts.Share.KnownHostsFile
		writeFile(t, s.AuthorizedKeysFile, readFile(t, opts.Share.AuthorizedKeysFile), 0o600)
	} else {
		priv, pub := newEd25519(t, "gpucluster-test-client")
		s.PrivateKeyPEM = priv
		s.KnownHostsFile = filepath.Join(s.Dir, "known_hosts")
		writeFile(t, s.AuthorizedKeysFile, pub, 0o600)
	}
	s.newHostKey(t)
	if opts.ExtraECDSAHostKey {
		s.extraKey = filepath.Join(s.Dir, "ssh_host_ecdsa_key")
		k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			t.Fatalf("generating ECDSA host key: %v", err)
		}
		writeFile(t, s.extraKey, encodePrivate(t, k, "gpucluster-test-host-ecdsa"), 0o600)
		if s.ExtraHostKey, err = ssh.NewPublicKey(&k.PublicKey); err != nil {
			t.Fatalf("encoding ECDSA host key: %v", err)
		}
	}

	// A port that was free a moment ago may be taken by a parallel test before sshd binds it:
	// try a few.
	for attempt := 0; ; attempt++ {
		s.Port = FreePort(t)
		s.writeConfig(t)
		if s.start(t) {
			break
		}
		if attempt == 4 {
			t.Fatalf("sshd on %s could not bind a port after 5 attempts; output:\n%s", host, s.Proc.Output())
		}
	}

	s.KnownHostsLine = knownhosts.Line([]string{net.JoinHostPort(host, strconv.Itoa(s.Port))}, s.HostKey)
	appendFile(t, s.KnownHostsFile, s.KnownHostsLine+"\n")
	return s
}

// Addr is host:port.
func (s *SSHD) Addr() string { return net.JoinHostPort(s.Host, strconv.Itoa(s.Port)) }

// Stop ends the server, every connection it serves and their sessions.
func (s *SSHD) Stop() { stopSSHD(s.Proc) }

// stopSSHD ends one sshd run. Process.Stop alone is not enough: sshd puts each connection's
// handler in a new session (setsid), out of reach of a signal to the listener's process group,
// and the handlers keep sshd's stderr open, so Process.Stop would wait for them forever while a
// client is connected. The listener is frozen first so that it accepts nobody new, then its
// descendants are killed by PID, then the listener.
func stopSSHD(p *Process) {
	if p == nil || p.Exited() {
		return
	}
	pid := p.Cmd.Process.Pid
	_ = syscall.Kill(pid, syscall.SIGSTOP)
	// Sessions may fork while we look: repeat until no descendant is left.
	for i := 0; i < 50; i++ {
		kids := descendants(pid)
		if len(kids) == 0 {
			break
		}
		for _, k := range kids {
			_ = syscall.Kill(k, syscall.SIGKILL)
		}
		time.Sleep(10 * time.Millisecond)
	}
	_ = syscall.Kill(pid, syscall.SIGKILL)
	p.Stop()
}

// descendants lists the PIDs below pid in the process tree, from /proc.
func descendants(pid int) []int {
	children := parents()
	var out []int
	queue := []int{pid}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range children[p] {
			out = append(out, c)
			queue = append(queue, c)
		}
	}
	return out
}

// Children lists the PIDs whose parent is pid, from /proc: an sshd's children are the
// connections it serves, which is how tests count a client's open connections.
func Children(pid int) []int { return parents()[pid] }

// parents maps each PID of /proc to its children.
func parents() map[int][]int {
	children := map[int][]int{}
	dirs, _ := os.ReadDir("/proc")
	for _, d := range dirs {
		n, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", d.Name(), "stat"))
		if err != nil {
			continue
		}
		// The command name (field 2) is in parentheses and may contain spaces: parse after it.
		i := strings.LastIndexByte(string(stat), ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(stat[i+1:]))
		if len(f) < 2 {
			continue
		}
		if ppid, err := strconv.Atoi(f[1]); err == nil {
			children[ppid] = append(children[ppid], n)
		}
	}
	return children
}

// RestartWithNewHostKey stops this server, gives it a freshly generated host key and starts it
// again on the same address and port. KnownHostsFile still records the old key, so a client now
// meets exactly what a man-in-the-middle (or a reinstalled host) looks like.
func (s *SSHD) RestartWithNewHostKey(t TB) {
	t.Helper()
	s.Stop()
	s.newHostKey(t)
	// The old listener is gone (sshd sets SO_REUSEADDR), but give the kernel a moment if a
	// parallel test grabbed the port in between.
	if !WaitFor(5*time.Second, func() bool { return s.start(t) }) {
		t.Fatalf("sshd did not restart on %s; output:\n%s", s.Addr(), s.Proc.Output())
	}
}

// newHostKey writes a new ed25519 host key into Dir and records its public half.
func (s *SSHD) newHostKey(t TB) {
	t.Helper()
	priv, _ := newEd25519(t, "gpucluster-test-host")
	writeFile(t, s.hostKey, priv, 0o600) // sshd refuses a host key others can read
	signer, err := ssh.ParsePrivateKey([]byte(priv))
	if err != nil {
		t.Fatalf("parsing generated host key: %v", err)
	}
	s.HostKey = signer.PublicKey()
}

func (s *SSHD) writeConfig(t TB) {
	t.Helper()
	hostKeys := "HostKey " + s.hostKey
	if s.extraKey != "" {
		hostKeys += "\nHostKey " + s.extraKey
	}
	cfg := strings.Join([]string{
		"Port " + strconv.Itoa(s.Port),
		"ListenAddress " + s.Host,
		hostKeys,
		"PidFile " + filepath.Join(s.Dir, "sshd.pid"),
		"AuthorizedKeysFile " + s.AuthorizedKeysFile,
		"PubkeyAuthentication yes",
		"PasswordAuthentication no",
		"KbdInteractiveAuthentication no",
		"PermitRootLogin prohibit-password",
		"UsePAM no",
		// The files live under /tmp, whose permissions StrictModes would reject.
		"StrictModes no",
		"",
	}, "\n")
	if s.path != "" {
		cfg += "SetEnv PATH=" + s.path + "\n"
	}
	writeFile(t, s.cfgFile, cfg, 0o600)
	if out, err := exec.Command(s.sshdPath, "-t", "-f", s.cfgFile).CombinedOutput(); err != nil {
		t.Fatalf("sshd -t -f %s: %v\n%s\nconfig:\n%s", s.cfgFile, err, out, cfg)
	}
}

// start runs sshd in the foreground and reports whether it is listening; false means it exited
// (typically: port taken), and the caller may retry.
func (s *SSHD) start(t TB) bool {
	t.Helper()
	p := Start(t, s.Dir, nil, s.sshdPath, "-D", "-e", "-f", s.cfgFile)
	s.Proc = p
	// Registered after Start's own cleanup, so it runs first (see stopSSHD).
	t.Cleanup(func() { stopSSHD(p) })
	ok := WaitFor(10*time.Second, func() bool {
		return strings.Contains(s.Proc.Output(), "Server listening on") || s.Proc.Exited()
	})
	if !ok {
		stopSSHD(s.Proc)
		t.Fatalf("sshd did not report listening on %s within 10s; output:\n%s", s.Addr(), s.Proc.Output())
	}
	if s.Proc.Exited() || !strings.Contains(s.Proc.Output(), "Server listening on") {
		return false
	}
	return true
}

// newEd25519 returns an unencrypted OpenSSH private key and its authorized_keys line.
func newEd25519(t TB, comment string) (privPEM, authorizedKey string) {
	t.Helper()
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatalf("generating ed25519 key: %v", err)
	}
	sshPub, err := ssh.NewPublicKey(pub)
	if err != nil {
		t.Fatalf("encoding ed25519 public key: %v", err)
	}
	return encodePrivate(t, priv, comment), string(ssh.MarshalAuthorizedKey(sshPub))
}

// ClientKey writes a new unencrypted ed25519 private key (OpenSSH form, mode 0600) to path and
// returns its authorized_keys line: a key for a test that only plans with one, made in Go so that
// the test needs no ssh-keygen.
func ClientKey(t TB, path string) (authorizedKey string) {
	t.Helper()
	priv, pub := newEd25519(t, "gpucluster-test")
	writeFile(t, path, priv, 0o600)
	return pub
}

// encodePrivate writes a private key in OpenSSH PEM form, the one sshd and ssh(1) use.
func encodePrivate(t TB, key any, comment string) string {
	t.Helper()
	block, err := ssh.MarshalPrivateKey(key, comment)
	if err != nil {
		t.Fatalf("encoding private key: %v", err)
	}
	return string(pem.EncodeToMemory(block))
}

func writeFile(t TB, path, content string, mode os.FileMode) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), mode); err != nil {
		t.Fatalf("writing %s: %v", path, err)
	}
}

func readFile(t TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading %s: %v", path, err)
	}
	return string(b)
}

func appendFile(t TB, path, content string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		t.Fatalf("opening %s: %v", path, err)
	}
	if _, err := f.WriteString(content); err != nil {
		f.Close()
		t.Fatalf("appending to %s: %v", path, err)
	}
	if err := f.Close(); err != nil {
		t.Fatalf("closing %s: %v", path, err)
	}
}

// String describes the server without its private key.
func (s *SSHD) String() string {
	return fmt.Sprintf("sshd %s@%s (dir %s)", s.User, s.Addr(), s.Dir)
}
