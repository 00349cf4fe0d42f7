package testrig

import (
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"
)

// dialRig connects with nothing but x/crypto/ssh, so the rig is checked independently of
// internal/remote.
func dialRig(t *testing.T, s *SSHD, addr string) (*ssh.Client, error) {
	t.Helper()
	signer, err := ssh.ParsePrivateKey([]byte(s.PrivateKeyPEM))
	if err != nil {
		t.Fatalf("rig client key does not parse: %v", err)
	}
	cb, err := knownhosts.New(s.KnownHostsFile)
	if err != nil {
		t.Fatalf("rig known_hosts does not parse: %v", err)
	}
	return ssh.Dial("tcp", addr, &ssh.ClientConfig{
		User:              s.User,
		Auth:              []ssh.AuthMethod{ssh.PublicKeys(signer)},
		HostKeyCallback:   cb,
		HostKeyAlgorithms: []string{ssh.KeyAlgoED25519},
		Timeout:           10 * time.Second,
	})
}

func runRig(t *testing.T, c *ssh.Client, cmd string) string {
	t.Helper()
	sess, err := c.NewSession()
	if err != nil {
		t.Fatalf("session: %v", err)
	}
	defer sess.Close()
	out, err := sess.CombinedOutput(cmd)
	if err != nil {
		t.Fatalf("%s: %v\n%s", cmd, err, out)
	}
	return string(out)
}

func TestSSHDTwoHostsAndChangedHostKey(t *testing.T) {
	RequirePeers(t)
	a := StartSSHD(t, SSHDOptions{})
	b := StartSSHD(t, SSHDOptions{Host: "127.0.0.2", Share: a})

	if a.Host != "127.0.0.1" || b.Host != "127.0.0.2" || a.Port == 0 || b.Port == 0 {
		t.Fatalf("addresses: a=%s b=%s", a.Addr(), b.Addr())
	}
	if b.KnownHostsFile != a.KnownHostsFile || b.PrivateKeyPEM != a.PrivateKeyPEM {
		t.Fatalf("second server does not share the first one's client key and known_hosts")
	}
	kh, _ := os.ReadFile(a.KnownHostsFile)
	for _, line := range []string{a.KnownHostsLine, b.KnownHostsLine} {
		if !strings.Contains(string(kh), line) {
			t.Fatalf("known_hosts lacks %q:\n%s", line, kh)
		}
	}

	for _, s := range []*SSHD{a, b} {
		c, err := dialRig(t, a, s.Addr())
		if err != nil {
			t.Fatalf("dial %s: %v\nsshd output:\n%s", s, err, s.Proc.Output())
		}
		if got := strings.TrimSpace(runRig(t, c, "id -un")); got != s.User {
			t.Fatalf("%s: logged in as %q, want %q", s, got, s.User)
		}
		c.Close()
	}

	// A client that stays connected, with a command running, must not keep the restart (or the
	// test's end) waiting: sshd runs each connection in a session of its own.
	held, err := dialRig(t, a, a.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	sess, err := held.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	if err := sess.Start("sleep 60.5"); err != nil {
		t.Fatal(err)
	}

	old := a.HostKey
	port := a.Port
	start := time.Now()
	a.RestartWithNewHostKey(t)
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("restart with a connected client took %s", d)
	}
	if err := sess.Wait(); err == nil {
		t.Fatalf("the session of the stopped server ended cleanly; want it cut off")
	}
	if kids := descendants(a.Proc.Cmd.Process.Pid); len(kids) != 0 {
		t.Fatalf("the restarted sshd already has children %v; the old connection should be gone", kids)
	}
	if a.Port != port || string(a.HostKey.Marshal()) == string(old.Marshal()) {
		t.Fatalf("restart: port %d->%d, host key changed=%v", port, a.Port, string(a.HostKey.Marshal()) != string(old.Marshal()))
	}
	_, err = dialRig(t, a, a.Addr())
	var ke *knownhosts.KeyError
	if !errors.As(err, &ke) || len(ke.Want) == 0 {
		t.Fatalf("dial after host key change: want a knownhosts mismatch, got %v", err)
	}
	// The other host is unaffected.
	c, err := dialRig(t, a, b.Addr())
	if err != nil {
		t.Fatalf("dial %s after the other host's key changed: %v", b, err)
	}
	c.Close()
}
