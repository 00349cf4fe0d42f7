package remote

import (
	"bufio"
	"bytes"
	"crypto/ed25519"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/inputfile"
)

// HostKeyError is a refused host key: the host is not in known_hosts (Changed false) or it
// presented a key other than the recorded one (Changed true: possibly a man-in-the-middle).
// errors.As finds the underlying *knownhosts.KeyError or *knownhosts.RevokedError through Unwrap.
type HostKeyError struct {
	Addr           string // host:port as dialled
	KnownHostsFile string
	Presented      ssh.PublicKey // what the server offered; nil if the handshake never got that far
	Changed        bool
	Revoked        bool
	Err            error // *knownhosts.KeyError or *knownhosts.RevokedError
}

func (e *HostKeyError) Unwrap() error { return e.Err }

func (e *HostKeyError) Error() string {
	host, port, _ := net.SplitHostPort(e.Addr)
	entry := knownhosts.Normalize(e.Addr)
	presented := "an unknown key"
	keyType := "ed25519"
	if e.Presented != nil {
		presented = e.Presented.Type() + " key " + ssh.FingerprintSHA256(e.Presented)
		keyType = keyscanType(e.Presented.Type())
	}
	var b strings.Builder
	switch {
	case e.Revoked:
		fmt.Fprintf(&b, "host key verification failed for %s: it presented %s, which known_hosts file %q marks @revoked; refusing to connect", e.Addr, presented, e.KnownHostsFile)
	case e.Changed:
		fmt.Fprintf(&b, "REMOTE HOST IDENTIFICATION HAS CHANGED for %s: it presented %s, but known_hosts file %q records ", e.Addr, presented, e.KnownHostsFile)
		var ke *knownhosts.KeyError
		if errors.As(e.Err, &ke) {
			var recorded []string
			for _, k := range ke.Want {
				recorded = append(recorded, fmt.Sprintf("%s %s (line %d)", k.Key.Type(), ssh.FingerprintSHA256(k.Key), k.Line))
			}
			b.WriteString(strings.Join(recorded, ", "))
		}
		fmt.Fprintf(&b, ". This may be a man-in-the-middle attack, or the host was reinstalled and has a new key; refusing to connect. "+
			"If the change is legitimate, verify the new fingerprint out of band, then remove the old entry (ssh-keygen -R '%s' -f %s) and add the new one", entry, e.KnownHostsFile)
	default:
		scan := "ssh-keyscan -t " + keyType + " "
		if port != "22" {
			scan += "-p " + port + " "
		}
		scan += host
		fmt.Fprintf(&b, "host key verification failed for %s: the host is not in known_hosts file %q (no entry for %s); it presented %s. "+
			"Verify that fingerprint out of band, then add the host, e.g. %s >> %s", e.Addr, e.KnownHostsFile, entry, presented, scan, e.KnownHostsFile)
	}
	return b.String()
}

// hostKeyPolicy checks host keys against one known_hosts file for one address.
type hostKeyPolicy struct {
	file       string
	addr       string
	check      ssh.HostKeyCallback
	algorithms []string // nil: leave x/crypto's defaults (host unknown, or certificate authority)
}

func newHostKeyPolicy(file, addr string) (*hostKeyPolicy, error) {
	// knownhosts reads the file whole: a file over the cap (or /dev/zero) is refused first.
	if err := inputfile.Check(file, inputfile.MaxKnownHostsFile); err != nil {
		return nil, fmt.Errorf("remote: known_hosts file %q cannot be used: %w", file, err)
	}
	check, err := knownhosts.New(file)
	if err != nil {
		return nil, fmt.Errorf("remote: known_hosts file %q cannot be used: %w", file, err)
	}
	p := &hostKeyPolicy{file: file, addr: addr, check: check}
	p.algorithms, err = p.recordedAlgorithms()
	if err != nil {
		return nil, err
	}
	return p, nil
}

// recordedAlgorithms returns the host key algorithms to offer: those of the plain keys that
// known_hosts records for addr. Without pinning, the server picks its own favourite among the
// client's defaults (often a type nobody recorded), and knownhosts reports a mismatch although
// the server could have proved the recorded identity.
//
// knownhosts has no lookup API, so the recorded entries are found by asking it to check a key
// that cannot be recorded: its KeyError lists every entry that matches the address. Entries are
// looked up the same way as during the real check (hashed names, patterns, [host]:port).
func (p *hostKeyPolicy) recordedAlgorithms() ([]string, error) {
	err := p.check(p.addr, probeAddr(p.addr), probeKey())
	var ke *knownhosts.KeyError
	if !errors.As(err, &ke) || len(ke.Want) == 0 {
		return nil, nil // unknown host: the handshake will fail with a HostKeyError naming the key
	}
	caLines, err := certAuthorityLines(p.file)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var types []string
	for _, k := range ke.Want {
		if caLines[k.Line] {
			// A CA key says nothing about the type of the host's own key; x/crypto's defaults
			// already prefer certificates, so leave the negotiation to them.
			return nil, nil
		}
		if t := k.Key.Type(); !seen[t] {
			seen[t] = true
			types = append(types, t)
		}
	}
	var algs []string
	for _, rank := range []func(string) bool{
		func(t string) bool { return t == ssh.KeyAlgoED25519 },
		func(t string) bool { return strings.HasPrefix(t, "ecdsa-") },
		func(t string) bool { return t == ssh.KeyAlgoRSA },
		func(t string) bool {
			return t != ssh.KeyAlgoED25519 && !strings.HasPrefix(t, "ecdsa-") && t != ssh.KeyAlgoRSA
		},
	} {
		for _, t := range types {
			if !rank(t) {
				continue
			}
			if t == ssh.KeyAlgoRSA {
				// An RSA key is offered with SHA-2 signatures first; plain ssh-rsa (SHA-1) stays
				// last, as in x/crypto's defaults, for old servers whose key the user recorded.
				algs = append(algs, ssh.KeyAlgoRSASHA512, ssh.KeyAlgoRSASHA256, ssh.KeyAlgoRSA)
			} else {
				algs = append(algs, t)
			}
		}
	}
	return algs, nil
}

// callback wraps the knownhosts check so that a refusal comes back as a HostKeyError carrying
// the presented key. x/crypto calls it before user authentication, so a refused host never
// sees the client's credentials.
func (p *hostKeyPolicy) callback(refused *error) ssh.HostKeyCallback {
	return func(hostname string, remote net.Addr, key ssh.PublicKey) error {
		err := p.check(hostname, remote, key)
		if err == nil {
			return nil
		}
		hke := &HostKeyError{Addr: p.addr, KnownHostsFile: p.file, Presented: key, Err: err}
		var ke *knownhosts.KeyError
		var re *knownhosts.RevokedError
		switch {
		case errors.As(err, &re):
			hke.Revoked = true
		case errors.As(err, &ke):
			hke.Changed = len(ke.Want) > 0
		default:
			// Certificate problems (expired, wrong principal, unknown authority) are refusals too.
			*refused = fmt.Errorf("host key verification failed for %s (known_hosts file %q): %w", p.addr, p.file, err)
			return *refused
		}
		*refused = hke
		return hke
	}
}

// certAuthorityLines returns the 1-based numbers of the file's @cert-authority lines, which
// knownhosts reports alongside plain entries without saying which is which.
func certAuthorityLines(file string) (map[int]bool, error) {
	src, err := inputfile.Read(file, inputfile.MaxKnownHostsFile)
	if err != nil {
		return nil, fmt.Errorf("remote: known_hosts file %q cannot be read: %w", file, err)
	}
	lines := map[int]bool{}
	sc := bufio.NewScanner(bytes.NewReader(src))
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for n := 1; sc.Scan(); n++ {
		if strings.HasPrefix(strings.TrimSpace(sc.Text()), "@cert-authority") {
			lines[n] = true
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("remote: known_hosts file %q cannot be read: %w", file, err)
	}
	return lines, nil
}

var (
	probeOnce sync.Once
	probe     ssh.PublicKey
)

// probeKey is a key generated at random in this process, so no known_hosts file can record it.
func probeKey() ssh.PublicKey {
	probeOnce.Do(func() {
		pub, _, err := ed25519.GenerateKey(nil)
		if err != nil {
			panic("remote: generating the known_hosts probe key: " + err.Error())
		}
		probe, err = ssh.NewPublicKey(pub)
		if err != nil {
			panic("remote: encoding the known_hosts probe key: " + err.Error())
		}
	})
	return probe
}

// probeAddr gives knownhosts the remote address it requires; it only looks at it when the
// host name is empty, which it never is here.
func probeAddr(addr string) net.Addr {
	host, port, _ := net.SplitHostPort(addr)
	n, _ := strconv.Atoi(port)
	ip := net.ParseIP(host)
	if ip == nil {
		ip = net.IPv4zero
	}
	return &net.TCPAddr{IP: ip, Port: n}
}

// keyscanType is the name ssh-keyscan -t takes for a key type.
func keyscanType(t string) string {
	switch {
	case t == ssh.KeyAlgoRSA:
		return "rsa"
	case strings.HasPrefix(t, "ecdsa-"):
		return "ecdsa"
	default:
		return strings.TrimPrefix(t, "ssh-")
	}
}
