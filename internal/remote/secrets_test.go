package remote

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/testrig"
)

// secretFragments are the pieces of a Config that must never be printed: the passphrase and
// every body line of the PEM.
func secretFragments(cfg Config) []string {
	var out []string
	if cfg.Passphrase != "" {
		out = append(out, cfg.Passphrase)
	}
	for _, line := range strings.Split(cfg.PrivateKeyPEM, "\n") {
		line = strings.TrimSpace(line)
		if line != "" && !strings.HasPrefix(line, "-----") {
			out = append(out, line)
		}
	}
	return out
}

func assertNoSecrets(t *testing.T, what, text string, cfg Config) {
	t.Helper()
	for _, frag := range secretFragments(cfg) {
		// A short key line could appear by chance in hex or base64 noise; 12 characters cannot.
		if (len(frag) >= 12 || frag == cfg.Passphrase) && strings.Contains(text, frag) {
			t.Errorf("%s contains secret material %.12q...:\n%s", what, frag, text)
		}
	}
}

func TestSecretsNeverAppearInErrorsOrFormattedConfig(t *testing.T) {
	testrig.RequirePeers(t)
	s := testrig.StartSSHD(t, testrig.SSHDOptions{})
	ctx := context.Background()
	const passphrase = "correct-horse-battery-staple-42"

	// A second, passphrase-protected key that sshd does not know, and the same key encrypted.
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	plain, err := ssh.MarshalPrivateKey(priv, "unknown")
	if err != nil {
		t.Fatal(err)
	}
	enc, err := ssh.MarshalPrivateKeyWithPassphrase(priv, "unknown", []byte(passphrase))
	if err != nil {
		t.Fatal(err)
	}
	unknownKey := string(pem.EncodeToMemory(plain))
	encryptedKey := string(pem.EncodeToMemory(enc))
	// Not a key at all, but text a user might paste by mistake, with a secret inside.
	garbage := "-----BEGIN OPENSSH PRIVATE KEY-----\nc2VjcmV0LXRva2VuLXRoYXQtbXVzdC1ub3QtbGVhaw==\nnot base64 at all: hunter2-hunter2-hunter2\n-----END OPENSSH PRIVATE KEY-----\n"

	silent, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	go func() {
		for {
			c, err := silent.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()

	base := configFor(s)
	emptyKH := filepath.Join(t.TempDir(), "known_hosts")
	if err := os.WriteFile(emptyKH, nil, 0o600); err != nil {
		t.Fatal(err)
	}

	cases := []struct {
		name string
		edit func(*Config)
		want string // a word the error must contain, so it is the error we meant
		// how the error classifies: the host refused the key; the host did not answer
		keyRefused, unreachable bool
	}{
		{"key not authorized", func(c *Config) { c.PrivateKeyPEM = unknownKey }, "did not accept", true, false},
		{"encrypted, no passphrase", func(c *Config) { c.PrivateKeyPEM = encryptedKey }, "passphrase", false, false},
		{"wrong passphrase", func(c *Config) { c.PrivateKeyPEM = encryptedKey; c.Passphrase = passphrase + "x" }, "passphrase", false, false},
		{"right passphrase, key not authorized", func(c *Config) { c.PrivateKeyPEM = encryptedKey; c.Passphrase = passphrase }, "did not accept", true, false},
		{"garbage key", func(c *Config) { c.PrivateKeyPEM = garbage; c.Passphrase = passphrase }, "cannot be used", false, false},
		{"unknown host", func(c *Config) { c.PrivateKeyPEM = encryptedKey; c.Passphrase = passphrase; c.KnownHostsFile = emptyKH }, "not in known_hosts", false, false},
		{"missing known_hosts", func(c *Config) { c.KnownHostsFile = emptyKH + ".missing" }, "known_hosts", false, false},
		{"timeout", func(c *Config) {
			addr, ok := silent.Addr().(*net.TCPAddr)
			if !ok {
				t.Fatalf("listener address %v is not TCP", silent.Addr())
			}
			c.Port = addr.Port
			c.Timeout = 200 * time.Millisecond
		}, "deadline", false, true},
		{"connection refused", func(c *Config) { c.Port = testrig.FreePort(t) }, "connect", false, true},
	}
	for _, tc := range cases {
		cfg := base
		tc.edit(&cfg)
		_, err := Dial(ctx, cfg)
		if err == nil {
			t.Errorf("%s: Dial succeeded", tc.name)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %q does not mention %q", tc.name, err, tc.want)
		}
		if got := KeyRefused(err); got != tc.keyRefused {
			t.Errorf("%s: KeyRefused(%q) = %t", tc.name, err, got)
		}
		if got := Unreachable(err); got != tc.unreachable {
			t.Errorf("%s: Unreachable(%q) = %t", tc.name, err, got)
		}
		assertNoSecrets(t, tc.name+" error", err.Error(), cfg)
		assertNoSecrets(t, tc.name+" error (%+v)", fmt.Sprintf("%+v", err), cfg)
	}

	// Formatting a Config in every usual way redacts the secrets.
	cfg := base
	cfg.PrivateKeyPEM = encryptedKey
	cfg.Passphrase = passphrase
	for _, verb := range []string{"%v", "%+v", "%#v", "%s"} {
		out := fmt.Sprintf(verb, cfg)
		assertNoSecrets(t, "Sprintf("+verb+")", out, cfg)
		if !strings.Contains(out, "redacted") {
			t.Errorf("Sprintf(%s) does not say the secrets are redacted: %s", verb, out)
		}
		out = fmt.Sprintf(verb, &cfg)
		assertNoSecrets(t, "Sprintf("+verb+", &cfg)", out, cfg)
	}

	// The last line of defence: an error that does carry key material is replaced.
	leaky := fmt.Errorf("parser said: %s", secretFragments(cfg)[1])
	if got := cfg.scrub(leaky); strings.Contains(got.Error(), secretFragments(cfg)[1]) {
		t.Errorf("scrub let key material through: %v", got)
	}
	if got := cfg.scrub(fmt.Errorf("bad %s", passphrase)); strings.Contains(got.Error(), passphrase) {
		t.Errorf("scrub let the passphrase through: %v", got)
	}
}

func TestPassphraseProtectedKeyWorks(t *testing.T) {
	testrig.RequirePeers(t)
	s := testrig.StartSSHD(t, testrig.SSHDOptions{})
	// Re-encrypt the rig's authorized key with a passphrase.
	raw, err := ssh.ParseRawPrivateKey([]byte(s.PrivateKeyPEM))
	if err != nil {
		t.Fatal(err)
	}
	block, err := ssh.MarshalPrivateKeyWithPassphrase(raw, "rig", []byte("s3cret pass"))
	if err != nil {
		t.Fatal(err)
	}
	cfg := configFor(s)
	cfg.PrivateKeyPEM = string(pem.EncodeToMemory(block))
	cfg.Passphrase = "s3cret pass"
	c, err := Dial(context.Background(), cfg)
	if err != nil {
		t.Fatalf("Dial with a passphrase-protected key: %v", err)
	}
	defer c.Close()
	if got := runT(t, c, "echo ok"); got != "ok\n" {
		t.Fatalf("%q", got)
	}
}
