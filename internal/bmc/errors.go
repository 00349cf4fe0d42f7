package bmc

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os/exec"
	"regexp"
	"sort"
	"strings"
	"syscall"

	"github.com/stmcginnis/gofish/common"
)

// Kinds of failure. Every error of this package wraps exactly one of them (test with errors.Is),
// so that callers can tell a person what to do: fix the network or the BMC, fix the
// credentials, pick another protocol or setting, or fix the request.
var (
	// ErrUnreachable: no answer (refused, no route, DNS, or no reply within the timeout).
	ErrUnreachable = errors.New("unreachable")
	// ErrAuth: the BMC refused the credentials or the account lacks the privilege.
	ErrAuth = errors.New("authentication failed")
	// ErrNotSupported: this BMC (or protocol) cannot do what was asked.
	ErrNotSupported = errors.New("not supported by this BMC")
	// ErrTLS: the BMC's certificate is not trusted (give its CA in TLSCAPEM).
	ErrTLS = errors.New("TLS certificate not trusted")
	// ErrRejected: the BMC answered and refused the request or a value in it, or did not apply it.
	ErrRejected = errors.New("rejected by the BMC")
	// ErrInvalid: the request or configuration is wrong before any BMC is asked.
	ErrInvalid = errors.New("invalid request")
	// ErrFailed: anything else.
	ErrFailed = errors.New("failed")
)

// Error is the error of every operation of this package. It names the BMC (host:port) and the
// protocol so that one failing node among hundreds can be found, and it never holds a password:
// Detail is built from the underlying error's text after redaction, and the underlying error
// itself is not kept (it may quote a request body or a command line).
type Error struct {
	Endpoint string // host:port of the BMC
	Protocol string // "redfish", "ipmi", or "" before a protocol was chosen
	Op       string // "open", "read", "set power", ...
	Kind     error  // one of the Err* kinds above, or context.Canceled
	Detail   string
	TimedOut bool // the operation ran out of time; errors.Is(err, context.DeadlineExceeded) holds
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("BMC ")
	b.WriteString(e.Endpoint)
	if e.Protocol != "" {
		b.WriteString(" (" + e.Protocol + ")")
	}
	b.WriteString(": " + e.Op + ": " + e.Kind.Error())
	if e.Detail != "" {
		b.WriteString(": " + e.Detail)
	}
	return b.String()
}

// Unwrap exposes the kind (and DeadlineExceeded for timeouts) to errors.Is.
func (e *Error) Unwrap() []error {
	if e.TimedOut {
		return []error{e.Kind, context.DeadlineExceeded}
	}
	return []error{e.Kind}
}

// redactor removes secrets from text. It knows the forms in which a password can leak: as is,
// URL-encoded, JSON-escaped, and inside an HTTP Basic credential.
type redactor struct{ secrets []string }

func newRedactor(user string, passwords ...string) *redactor {
	r := &redactor{}
	for _, p := range passwords {
		r.add(user, p)
	}
	return r
}

func (r *redactor) add(user, password string) {
	if password == "" {
		return
	}
	js, _ := json.Marshal(password)
	forms := []string{
		password,
		url.QueryEscape(password),
		url.PathEscape(password),
		strings.Trim(string(js), `"`),
		base64.StdEncoding.EncodeToString([]byte(user + ":" + password)),
		base64.StdEncoding.EncodeToString([]byte(password)),
	}
	for _, f := range forms {
		if f != "" && !containsString(r.secrets, f) {
			r.secrets = append(r.secrets, f)
		}
	}
	// Longest first, so that a secret containing another is removed whole.
	sort.Slice(r.secrets, func(i, j int) bool { return len(r.secrets[i]) > len(r.secrets[j]) })
}

func (r *redactor) clean(s string) string {
	if r == nil {
		return s
	}
	for _, sec := range r.secrets {
		s = strings.ReplaceAll(s, sec, "<redacted>")
	}
	return s
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

var (
	multiErrHeader = regexp.MustCompile(`\d+ errors? occurred:`)
	spaces         = regexp.MustCompile(`\s+`)
	// Text that bmclib and ipmitool add around every failure and that says nothing.
	noise = strings.NewReplacer(
		"no Opener implementations found", "",
		"provider: gofish: ", "", "provider: ipmitool: ", "",
		"Loading IANA PEN Registry...", "", "; > ", "; ", "Error: ", "",
	)
)

// tidy turns bmclib's multi-line multierror text into one line and drops noise and repeats.
func tidy(s string) string {
	s = multiErrHeader.ReplaceAllString(s, "")
	s = noise.Replace(s)
	s = strings.ReplaceAll(s, "\n\t* ", "; ")
	s = strings.ReplaceAll(s, "\t* ", "")
	var parts []string
	for _, p := range strings.Split(s, "; ") {
		p = strings.TrimSpace(spaces.ReplaceAllString(p, " "))
		if p != "" && !containsString(parts, p) {
			parts = append(parts, p)
		}
	}
	out := strings.Join(parts, "; ")
	if len(out) > 600 {
		out = out[:600] + "..."
	}
	return out
}

// classifyRedfish sorts an error from bmclib's gofish provider or from gofish into a kind, with
// the most useful detail: the Redfish message for HTTP errors, the network error otherwise.
func classifyRedfish(err error) (kind error, detail string, timedOut bool) { //nolint:staticcheck // ST1008: kind is a class of error (ErrAuth, ...), not a failure of this function
	var rfErr *common.Error
	if errors.As(err, &rfErr) {
		code := rfErr.HTTPReturnedStatusCode
		msg, id := rfErr.Message, rfErr.Code
		if len(rfErr.ExtendedInfos) > 0 {
			if m := rfErr.ExtendedInfos[0].Message; m != "" {
				msg = m
			}
			if m := rfErr.ExtendedInfos[0].MessageID; m != "" {
				id = m
			}
		}
		detail = strings.TrimSpace(fmt.Sprintf("HTTP %d %s %s", code, id, tidy(msg)))
		switch {
		case code == 401 || code == 403:
			return ErrAuth, detail, false
		case code == 404 || code == 405 || code == 501:
			return ErrNotSupported, detail, false
		case code >= 400 && code < 500:
			return ErrRejected, detail, false
		}
		return ErrFailed, detail, false
	}
	var (
		unknownCA  x509.UnknownAuthorityError
		hostErr    x509.HostnameError
		invalidErr x509.CertificateInvalidError
		verifyErr  *tls.CertificateVerificationError
	)
	if errors.As(err, &unknownCA) || errors.As(err, &hostErr) || errors.As(err, &invalidErr) || errors.As(err, &verifyErr) {
		return ErrTLS, innermost(err), false
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return ErrUnreachable, "no answer in time", true
	}
	var netErr net.Error
	if errors.As(err, &netErr) && netErr.Timeout() {
		return ErrUnreachable, "no answer in time: " + innermost(err), true
	}
	var opErr *net.OpError
	var dnsErr *net.DNSError
	if errors.As(err, &opErr) || errors.As(err, &dnsErr) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) {
		return ErrUnreachable, innermost(err), false
	}
	text := err.Error()
	switch {
	case strings.Contains(text, "x509:") || strings.Contains(text, "tls:"):
		return ErrTLS, tidy(text), false
	case strings.Contains(text, "connection refused") || strings.Contains(text, "no route to host") || strings.Contains(text, "EOF"):
		return ErrUnreachable, tidy(text), false
	case strings.Contains(text, "Client.Timeout") || strings.Contains(text, "i/o timeout"):
		return ErrUnreachable, tidy(text), true
	case strings.Contains(text, "not authenticated") || strings.Contains(text, "401"):
		return ErrAuth, tidy(text), false
	}
	return ErrFailed, tidy(text), false
}

// innermost is the text of the deepest single error in a chain: for a refused connection that
// is "dial tcp 127.0.0.1:1: connect: connection refused" rather than bmclib's whole story.
func innermost(err error) string {
	var opErr *net.OpError
	if errors.As(err, &opErr) {
		return opErr.Error()
	}
	var uerr *url.Error
	if errors.As(err, &uerr) {
		return tidy(uerr.Err.Error())
	}
	return tidy(err.Error())
}

// ipmitool prints these when the BMC answered and refused the credentials; without -v, it
// often prints only "Unable to establish IPMI v2 / RMCP+ session", which is also what an
// unreachable BMC gives (see probeIPMI).
var ipmiAuthMarks = []string{
	"RAKP 2 HMAC is invalid", "RAKP 2 message indicates an error", "unauthorized name",
	"Invalid user name", "invalid password", "Invalid session", "Insufficient privilege",
	"insufficient privilege", "Activate Session error", "Authentication type",
}

var ipmiUnsupportedMarks = []string{
	"Invalid command", "Invalid data field", "not supported", "Not supported", "Unknown command",
	"Invalid cipher suite", "no matching cipher suite", "Unsupported", "Request data length invalid",
	"Parameter not supported",
}

var ipmiUnreachableMarks = []string{
	"Get Auth Capabilities error", "Error issuing Get Channel Authentication Capabilities",
	"No response from remote controller", "Insufficient resources for session", "Unable to establish",
}

// classifyIPMI sorts an ipmitool failure (bmclib's or ours) into a kind.
func classifyIPMI(err error) (kind error, detail string, timedOut bool) { //nolint:staticcheck // ST1008: kind is a class of error, as in classifyRedfish
	if errors.Is(err, context.DeadlineExceeded) {
		return ErrUnreachable, "no answer in time", true
	}
	if errors.Is(err, exec.ErrNotFound) {
		return ErrFailed, "ipmitool is not installed on this machine (Debian package ipmitool)", false
	}
	text := err.Error()
	detail = tidy(strings.ReplaceAll(text, "\n", "; "))
	for _, m := range ipmiAuthMarks {
		if strings.Contains(text, m) {
			return ErrAuth, detail, false
		}
	}
	for _, m := range ipmiUnsupportedMarks {
		if strings.Contains(text, m) {
			return ErrNotSupported, detail, false
		}
	}
	for _, m := range ipmiUnreachableMarks {
		if strings.Contains(text, m) {
			return ErrUnreachable, detail, false
		}
	}
	if strings.Contains(text, "signal: killed") {
		return ErrUnreachable, "no answer in time", true
	}
	return ErrFailed, detail, false
}
