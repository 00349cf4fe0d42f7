package remote

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/rsa"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/testrig"
)

func TestUnknownHostIsRefusedWithHowToAddIt(t *testing.T) {
	testrig.RequirePeers(t)
	s := testrig.StartSSHD(t, testrig.SSHDOptions{})
	other := testrig.StartSSHD(t, testrig.SSHDOptions{})
	cfg := configFor(s)
	// A known_hosts file that records another server only.
	cfg.KnownHostsFile = other.KnownHostsFile

	_, err := Dial(context.Background(), cfg)
	var hke *HostKeyError
	if !errors.As(err, &hke) || hke.Changed {
		t.Fatalf("Dial to a host missing from known_hosts: %v; want a HostKeyError for an unknown host", err)
	}
	var ke *knownhosts.KeyError
	if !errors.As(err, &ke) || len(ke.Want) != 0 {
		t.Fatalf("want the underlying *knownhosts.KeyError with no recorded keys, got %v", err)
	}
	msg := err.Error()
	for _, want := range []string{
		"not in known_hosts",
		cfg.KnownHostsFile,
		ssh.FingerprintSHA256(s.HostKey), // what to verify out of band
		"ssh-keyscan -t ed25519 -p " + strconv.Itoa(s.Port) + " 127.0.0.1 >> " + cfg.KnownHostsFile,
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("error lacks %q:\n%s", want, msg)
		}
	}
	t.Logf("refusal reads:\n%s", msg)
	// The refusal comes before authentication: sshd never saw a login attempt.
	if out := s.Proc.Output(); strings.Contains(out, "Accepted publickey") || strings.Contains(out, "Failed publickey") {
		t.Errorf("the client authenticated to a host it refused:\n%s", out)
	}

	// An empty known_hosts file: same refusal.
	cfg.KnownHostsFile = filepath.Join(t.TempDir(), "known_hosts")
	if err := os.WriteFile(cfg.KnownHostsFile, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Dial(context.Background(), cfg); !errors.As(err, &hke) || hke.Changed {
		t.Fatalf("Dial with an empty known_hosts: %v", err)
	}

	// A known_hosts file that does not exist is an error, not "trust on first use".
	cfg.KnownHostsFile = filepath.Join(t.TempDir(), "missing")
	if _, err := Dial(context.Background(), cfg); err == nil || !strings.Contains(err.Error(), "known_hosts file") {
		t.Fatalf("Dial with a missing known_hosts file: %v", err)
	}
}

func TestChangedHostKeyIsRefusedAsPossibleManInTheMiddle(t *testing.T) {
	testrig.RequirePeers(t)
	s := testrig.StartSSHD(t, testrig.SSHDOptions{})
	c := dialT(t, s) // the recorded key works
	c.Close()
	old := s.HostKey

	s.RestartWithNewHostKey(t)
	_, err := Dial(context.Background(), configFor(s))
	var hke *HostKeyError
	if !errors.As(err, &hke) || !hke.Changed {
		t.Fatalf("Dial after the host key changed: %v; want a HostKeyError with Changed", err)
	}
	var ke *knownhosts.KeyError
	if !errors.As(err, &ke) || len(ke.Want) == 0 {
		t.Fatalf("want the underlying *knownhosts.KeyError listing the recorded key, got %v", err)
	}
	msg := err.Error()
	for _, want := range []string{
		"man-in-the-middle",
		"REMOTE HOST IDENTIFICATION HAS CHANGED",
		ssh.FingerprintSHA256(s.HostKey), // presented
		ssh.FingerprintSHA256(old),       // recorded
		"ssh-keygen -R '[127.0.0.1]:" + strconv.Itoa(s.Port) + "'",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("error lacks %q:\n%s", want, msg)
		}
	}
	// s.Proc is the restarted sshd: it must not have seen a login.
	if out := s.Proc.Output(); strings.Contains(out, "Accepted publickey") {
		t.Errorf("the client authenticated to a host whose key changed:\n%s", out)
	}
	t.Logf("refusal reads:\n%s", msg)
}

func TestHostKeyAlgorithmsArePinnedToTheRecordedType(t *testing.T) {
	testrig.RequirePeers(t)
	// The server also has an ECDSA key, which x/crypto prefers by default, but known_hosts
	// records only its Ed25519 key.
	s := testrig.StartSSHD(t, testrig.SSHDOptions{ExtraECDSAHostKey: true})

	// Control: without pinning, x/crypto negotiates ECDSA and the check fails spuriously.
	signer, err := ssh.ParsePrivateKey([]byte(s.PrivateKeyPEM))
	if err != nil {
		t.Fatal(err)
	}
	cb, err := knownhosts.New(s.KnownHostsFile)
	if err != nil {
		t.Fatal(err)
	}
	_, err = ssh.Dial("tcp", s.Addr(), &ssh.ClientConfig{User: s.User, Auth: []ssh.AuthMethod{ssh.PublicKeys(signer)}, HostKeyCallback: cb, Timeout: 10 * time.Second})
	var ke *knownhosts.KeyError
	if !errors.As(err, &ke) {
		t.Fatalf("control: an unpinned client should meet the unrecorded ECDSA key, got %v", err)
	}

	c := dialT(t, s)
	if got := runT(t, c, "echo pinned"); got != "pinned\n" {
		t.Fatalf("after pinned dial: %q", got)
	}

	// Recording only the ECDSA key pins ECDSA instead.
	kh := filepath.Join(t.TempDir(), "known_hosts")
	if err := os.WriteFile(kh, []byte(knownhosts.Line([]string{s.Addr()}, s.ExtraHostKey)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := configFor(s)
	cfg.KnownHostsFile = kh
	c2, err := Dial(context.Background(), cfg)
	if err != nil {
		t.Fatalf("Dial with only the ECDSA key recorded: %v", err)
	}
	c2.Close()

	// Hashed host names (ssh-keyscan -H, HashKnownHosts yes) are matched too.
	hashed := knownhosts.HashHostname(knownhosts.Normalize(s.Addr())) + " " + strings.TrimSpace(string(ssh.MarshalAuthorizedKey(s.HostKey)))
	if err := os.WriteFile(kh, []byte(hashed+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c3, err := Dial(context.Background(), cfg)
	if err != nil {
		t.Fatalf("Dial with a hashed known_hosts entry: %v", err)
	}
	c3.Close()

	// A key marked @revoked is refused even if also listed as valid.
	revoked := "@revoked * " + strings.TrimSpace(string(ssh.MarshalAuthorizedKey(s.HostKey))) + "\n" + s.KnownHostsLine + "\n"
	if err := os.WriteFile(kh, []byte(revoked), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = Dial(context.Background(), cfg)
	var hke *HostKeyError
	if !errors.As(err, &hke) || !hke.Revoked {
		t.Fatalf("Dial to a host whose key is @revoked: %v", err)
	}
}

func TestRecordedAlgorithms(t *testing.T) {
	dir := t.TempDir()
	edPub, _, _ := ed25519.GenerateKey(rand.Reader)
	ed, _ := ssh.NewPublicKey(edPub)
	rsaKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	rs, _ := ssh.NewPublicKey(&rsaKey.PublicKey)
	caPub, _, _ := ed25519.GenerateKey(rand.Reader)
	ca, _ := ssh.NewPublicKey(caPub)
	body := func(k ssh.PublicKey) string { return strings.TrimSpace(string(ssh.MarshalAuthorizedKey(k))) }

	file := filepath.Join(dir, "known_hosts")
	content := strings.Join([]string{
		"# comment",
		knownhosts.Line([]string{"sm01.example:22"}, rs),
		knownhosts.Line([]string{"sm01.example:22", "10.0.0.1:22"}, ed),
		knownhosts.Line([]string{"sm02.example:2222"}, rs),
		"@cert-authority *.ca.example " + body(ca),
		"",
	}, "\n")
	if err := os.WriteFile(file, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		addr string
		want []string
	}{
		// Ed25519 first, then RSA with SHA-2 before SHA-1, whatever the order in the file.
		{"sm01.example:22", []string{"ssh-ed25519", "rsa-sha2-512", "rsa-sha2-256", "ssh-rsa"}},
		{"10.0.0.1:22", []string{"ssh-ed25519"}},
		{"sm02.example:2222", []string{"rsa-sha2-512", "rsa-sha2-256", "ssh-rsa"}},
		{"sm02.example:22", nil},    // another port is another host
		{"unknown.example:22", nil}, // unknown: defaults, and the check refuses it
		{"x.ca.example:22", nil},    // certificate authority: defaults, which prefer certificates
	} {
		p, err := newHostKeyPolicy(file, tc.addr)
		if err != nil {
			t.Fatalf("%s: %v", tc.addr, err)
		}
		if !slices.Equal(p.algorithms, tc.want) {
			t.Errorf("%s: algorithms %q, want %q", tc.addr, p.algorithms, tc.want)
		}
	}
}
