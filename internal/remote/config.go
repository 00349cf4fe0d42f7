package remote

import (
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"golang.org/x/crypto/ssh"
)

// DefaultTimeout bounds connecting and the SSH handshake when Config.Timeout is zero.
const DefaultTimeout = 30 * time.Second

// Config says how to reach one host. PrivateKeyPEM and Passphrase are secrets: String and
// GoString redact them, so a Config can be logged or printed with %v, %+v or %#v.
type Config struct {
	Host string // host name or IP address
	Port int    // 0 means 22
	User string

	PrivateKeyPEM string // PEM: OpenSSH, PKCS#1, PKCS#8 or SEC1; sensitive
	Passphrase    string // for an encrypted key; sensitive

	// KnownHostsFile is required: the host's key must be recorded there (OpenSSH format,
	// hashed host names allowed). There is deliberately no way to skip the check.
	KnownHostsFile string

	Timeout time.Duration // connect and handshake; 0 means DefaultTimeout
}

// Addr is host:port as dialled and as looked up in known_hosts.
func (c Config) Addr() string { return net.JoinHostPort(c.Host, strconv.Itoa(c.port())) }

func (c Config) port() int {
	if c.Port == 0 {
		return 22
	}
	return c.Port
}

func (c Config) timeout() time.Duration {
	if c.Timeout <= 0 {
		return DefaultTimeout
	}
	return c.Timeout
}

// String describes the Config with its secrets redacted.
func (c Config) String() string {
	return fmt.Sprintf("ssh://%s@%s (known_hosts %q, private key %s, passphrase %s, timeout %s)",
		c.User, c.Addr(), c.KnownHostsFile, redacted(c.PrivateKeyPEM), redacted(c.Passphrase), c.timeout())
}

// GoString keeps %#v from printing the secret fields verbatim.
func (c Config) GoString() string {
	return fmt.Sprintf("remote.Config{Host:%q, Port:%d, User:%q, PrivateKeyPEM:%s, Passphrase:%s, KnownHostsFile:%q, Timeout:%d}",
		c.Host, c.Port, c.User, redacted(c.PrivateKeyPEM), redacted(c.Passphrase), c.KnownHostsFile, c.Timeout)
}

func redacted(s string) string {
	if s == "" {
		return "(none)"
	}
	return "(redacted)"
}

// Missing names what c lacks to dial, in this order: host, user, private_key, known_hosts_file
// (the last with its reason: host keys are always checked, so there is nothing to fall back on);
// nil when nothing is missing. It is the one completeness check of an SSH configuration: Dial
// refuses an incomplete Config with it, and the provider names the settings to add from it.
func (c Config) Missing() []string {
	var missing []string
	if c.Host == "" {
		missing = append(missing, "host")
	}
	if c.User == "" {
		missing = append(missing, "user")
	}
	if strings.TrimSpace(c.PrivateKeyPEM) == "" {
		missing = append(missing, "private_key")
	}
	if c.KnownHostsFile == "" {
		missing = append(missing, "known_hosts_file (host keys are always checked)")
	}
	return missing
}

func (c Config) validate() error {
	if missing := c.Missing(); len(missing) > 0 {
		return fmt.Errorf("remote: ssh configuration for %q is missing: %s", c.Host, strings.Join(missing, ", "))
	}
	if c.Port < 0 || c.Port > 65535 {
		return fmt.Errorf("remote: port %d for %q is out of range", c.Port, c.Host)
	}
	return nil
}

// signer parses the private key. The parser's own errors are replaced by fixed messages: they
// come from PEM, ASN.1 and OpenSSH decoders whose texts are not promised to stay free of key
// material.
func (c Config) signer() (ssh.Signer, error) {
	s, err := ssh.ParsePrivateKey([]byte(c.PrivateKeyPEM))
	var missing *ssh.PassphraseMissingError
	if errors.As(err, &missing) {
		if c.Passphrase == "" {
			return nil, fmt.Errorf("remote: the private key for %s is encrypted: set its passphrase", c.Addr())
		}
		s, err = ssh.ParsePrivateKeyWithPassphrase([]byte(c.PrivateKeyPEM), []byte(c.Passphrase))
		if errors.Is(err, x509.IncorrectPasswordError) {
			return nil, fmt.Errorf("remote: the passphrase does not decrypt the private key for %s", c.Addr())
		}
	}
	if err != nil {
		return nil, fmt.Errorf("remote: the private key for %s cannot be used (expected an unencrypted or passphrase-protected RSA, ECDSA or Ed25519 key in OpenSSH, PKCS#1, PKCS#8 or SEC1 PEM form)", c.Addr())
	}
	return s, nil
}

// scrub is the last line of defence: an error of connecting that somehow carries a fragment of
// the private key or the passphrase is replaced by one that names only the operation.
func (c Config) scrub(err error) error {
	const op = "connecting to"
	if err == nil {
		return nil
	}
	msg := err.Error()
	leak := c.Passphrase != "" && strings.Contains(msg, c.Passphrase)
	for _, line := range strings.Split(c.PrivateKeyPEM, "\n") {
		line = strings.TrimSpace(line)
		// PEM armour lines ("-----BEGIN ...") are not secret; body lines are base64 of the key.
		if len(line) >= 16 && !strings.HasPrefix(line, "-----") && strings.Contains(msg, line) {
			leak = true
			break
		}
	}
	if leak {
		return fmt.Errorf("remote: %s %s failed (details withheld: they contained credential material)", op, c.Addr())
	}
	return err
}
