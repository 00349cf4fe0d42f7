package bmc

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/go-logr/logr"
)

// Protocol names, as users write them in Config.Protocols.
const (
	ProtocolRedfish = "redfish"
	ProtocolIPMI    = "ipmi"
)

// Defaults.
const (
	DefaultTimeout     = 30 * time.Second
	DefaultRedfishPort = 443
	DefaultIPMIPort    = 623
	// DefaultIPMICipherSuite is 3 (RAKP-HMAC-SHA1, AES-CBC-128): without -C, ipmitool tries
	// suites that many BMCs (ipmi_sim among them) stall on for 10 s each.
	DefaultIPMICipherSuite = "3"
)

// Config says how to reach one BMC.
type Config struct {
	// Endpoint is the BMC's host name or address ("10.0.0.5", "bmc-gpu001", "fd00::5").
	// "https://host" and "host:port" are accepted too.
	Endpoint string
	// Port is the Redfish HTTPS port (default 443). When Protocols holds only "ipmi", it is the
	// IPMI UDP port instead (default 623).
	Port int
	// IPMIPort is the IPMI UDP port when Redfish is also in use (default 623).
	IPMIPort int
	// Username and Password of a BMC account. The password is never logged nor put in errors.
	Username, Password string
	// Protocols in order of preference (default "redfish", then "ipmi"): Open uses the first
	// one that answers and authenticates.
	Protocols []string
	// TLSCAPEM holds PEM certificates of the CAs that sign BMC certificates. Empty: the system's.
	TLSCAPEM string
	// InsecureTLS turns certificate verification off. Only an explicit user choice sets it.
	InsecureTLS bool
	// Timeout bounds every BMC operation (Open as a whole, each Read, Set...) so that a dead
	// BMC fails in this time (default 30 s). Waiting for the BMC lock or a session slot is not
	// counted: only the context bounds that.
	Timeout time.Duration
	// IPMICipherSuite is ipmitool's -C (default "3").
	IPMICipherSuite string
	// Logger receives debug logs (bmclib's included), after redaction of the passwords.
	Logger logr.Logger
}

// WithDefaults fills what a node's own settings leave empty: the login from username and
// password (the provider's), and Timeout, DefaultTimeout or opTimeout when that is shorter
// (opTimeout bounds the whole operation, so each call gets at most that: a dead BMC then fails
// within it).
func (c Config) WithDefaults(username, password string, opTimeout time.Duration) Config {
	if c.Username == "" {
		c.Username = username
	}
	if c.Password == "" {
		c.Password = password
	}
	if c.Timeout <= 0 {
		c.Timeout = DefaultTimeout
	}
	if opTimeout > 0 && opTimeout < c.Timeout {
		c.Timeout = opTimeout
	}
	return c
}

// MissingLogin names the part of the login c lacks, "username" or "password" ("" when
// neither), with a summary and a sentence for node that says where to set it.
func (c Config) MissingLogin(node string) (field, summary, detail string) {
	switch {
	case c.Username == "":
		return "username", "No BMC user name",
			fmt.Sprintf("Node %q has a BMC at %s but no user name to log in with: set bmc.username on the node or username in the provider's bmc = { ... } block.", node, c.Endpoint)
	case c.Password == "":
		return "password", "No BMC password",
			fmt.Sprintf("Node %q has a BMC at %s but no password for %q: set password in the provider's bmc = { ... } block (or bmc.password on the node).", node, c.Endpoint, c.Username)
	}
	return "", "", ""
}

// config is a validated Config with defaults applied.
type config struct {
	Config
	host     string // bare host: name, IPv4, or IPv6 without brackets
	hostArg  string // host as bmclib wants it: IPv6 in brackets
	rfPort   int
	ipmiPort int
	pool     *x509.CertPool // nil: system roots
	key      string         // per-BMC lock key
}

func invalid(endpoint, format string, args ...any) *Error {
	return &Error{Endpoint: endpoint, Op: "open", Kind: ErrInvalid, Detail: fmt.Sprintf(format, args...)}
}

func (in Config) normalize() (*config, error) {
	c := &config{Config: in}
	ep := strings.TrimSpace(in.Endpoint)
	switch {
	case strings.HasPrefix(strings.ToLower(ep), "http://"):
		return nil, invalid(ep, "endpoint %q uses plain HTTP; BMC credentials only travel over HTTPS", ep)
	case strings.HasPrefix(strings.ToLower(ep), "https://"):
		ep = ep[len("https://"):]
	}
	ep = strings.TrimSuffix(ep, "/")
	if ep == "" {
		return nil, invalid(in.Endpoint, "endpoint is empty")
	}
	if strings.ContainsAny(ep, "/ \t?#@") {
		return nil, invalid(ep, "endpoint %q is not a host name or address", ep)
	}
	host := ep
	if h, p, err := net.SplitHostPort(ep); err == nil {
		port, perr := strconv.Atoi(p)
		if perr != nil || port <= 0 || port > 65535 {
			return nil, invalid(ep, "endpoint %q has a bad port", ep)
		}
		host = h
		if c.Port == 0 {
			c.Port = port
		}
	}
	host = strings.Trim(host, "[]")
	c.host, c.hostArg = host, host
	if ip := net.ParseIP(host); ip != nil && ip.To4() == nil {
		c.hostArg = "[" + host + "]"
	}
	if c.Port < 0 || c.Port > 65535 || c.IPMIPort < 0 || c.IPMIPort > 65535 {
		return nil, invalid(ep, "port out of range")
	}

	if len(c.Protocols) == 0 {
		c.Protocols = []string{ProtocolRedfish, ProtocolIPMI}
	}
	var protos []string
	for _, p := range c.Protocols {
		p = strings.ToLower(strings.TrimSpace(p))
		if p != ProtocolRedfish && p != ProtocolIPMI {
			return nil, invalid(ep, "unknown protocol %q (want %q or %q)", p, ProtocolRedfish, ProtocolIPMI)
		}
		if !containsString(protos, p) {
			protos = append(protos, p)
		}
	}
	c.Protocols = protos

	c.rfPort = DefaultRedfishPort
	if c.Port != 0 {
		c.rfPort = c.Port
	}
	c.ipmiPort = DefaultIPMIPort
	switch {
	case c.IPMIPort != 0:
		c.ipmiPort = c.IPMIPort
	case c.Port != 0 && !containsString(c.Protocols, ProtocolRedfish):
		c.ipmiPort = c.Port
	}

	if c.Username == "" {
		return nil, invalid(ep, "username is empty")
	}
	if c.Timeout <= 0 {
		c.Timeout = DefaultTimeout
	}
	if c.IPMICipherSuite == "" {
		c.IPMICipherSuite = DefaultIPMICipherSuite
	}
	if _, err := strconv.Atoi(c.IPMICipherSuite); err != nil {
		return nil, invalid(ep, "IPMI cipher suite %q is not a number", c.IPMICipherSuite)
	}
	if strings.TrimSpace(c.TLSCAPEM) != "" {
		c.pool = x509.NewCertPool()
		if !c.pool.AppendCertsFromPEM([]byte(c.TLSCAPEM)) {
			return nil, invalid(ep, "TLS CA PEM holds no certificate")
		}
	}
	first := c.rfPort
	if c.Protocols[0] == ProtocolIPMI {
		first = c.ipmiPort
	}
	c.key = net.JoinHostPort(strings.ToLower(host), strconv.Itoa(first))
	return c, nil
}

// endpointFor is host:port of the protocol, as errors name it.
func (c *config) endpointFor(proto string) string {
	if proto == ProtocolIPMI {
		return net.JoinHostPort(c.host, strconv.Itoa(c.ipmiPort))
	}
	return net.JoinHostPort(c.host, strconv.Itoa(c.rfPort))
}

func (c *config) redfishURL() string {
	return "https://" + net.JoinHostPort(c.host, strconv.Itoa(c.rfPort))
}

// httpClient is the HTTP client of Redfish sessions, for bmclib and gofish alike. Verification
// is on unless the user asked for InsecureTLS; every phase is bounded by the timeout; redirects
// to another host are refused, because gofish would follow them with the X-Auth-Token.
func (c *config) httpClient() *http.Client {
	hc := c.plainHTTPClient()
	// A busy BMC (503, Retry-After) is retried within the timeout; see retry.go.
	hc.Transport = newRetryTransport(hc.Transport)
	return hc
}

// plainHTTPClient is httpClient without the retries, for bmclib, which insists on a bare
// *http.Transport (it clones it for each provider); its calls are retried by retryBusy instead.
func (c *config) plainHTTPClient() *http.Client {
	tr := &http.Transport{
		Proxy:                 nil, // BMC networks are reached directly; a proxy would see the credentials
		DialContext:           (&net.Dialer{Timeout: c.Timeout, KeepAlive: 30 * time.Second}).DialContext,
		TLSClientConfig:       &tls.Config{RootCAs: c.pool, InsecureSkipVerify: c.InsecureTLS, MinVersion: tls.VersionTLS12}, //nolint:gosec // InsecureSkipVerify only on explicit opt-in
		TLSHandshakeTimeout:   c.Timeout,
		ResponseHeaderTimeout: c.Timeout,
		DisableKeepAlives:     true,
		MaxIdleConnsPerHost:   1,
	}
	return &http.Client{
		Transport: tr,
		Timeout:   c.Timeout,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) > 0 && req.URL.Host != via[0].URL.Host {
				return errors.New("redirect to another host refused")
			}
			if len(via) >= 5 {
				return errors.New("too many redirects")
			}
			return nil
		},
	}
}
