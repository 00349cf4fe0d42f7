package bmc

// Unit tests of what both protocols share. Their names start with TestRedfishIPMI so that the
// package's test command (-run 'IPMI|Redfish') runs them too.

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/hashicorp/go-multierror"
	pkgerrors "github.com/pkg/errors"
	"github.com/stmcginnis/gofish/common"
)

func TestRedfishIPMIConfigNormalize(t *testing.T) {
	for _, c := range []struct {
		in                 Config
		host, hostArg, key string
		rfPort, ipmiPort   int
		protocols          string
		wantErr            string
	}{
		{in: Config{Endpoint: "10.0.0.5", Username: "u"}, host: "10.0.0.5", hostArg: "10.0.0.5", key: "10.0.0.5:443", rfPort: 443, ipmiPort: 623, protocols: "redfish,ipmi"},
		{in: Config{Endpoint: "https://BMC-1.example:8443/", Username: "u"}, host: "BMC-1.example", hostArg: "BMC-1.example", key: "bmc-1.example:8443", rfPort: 8443, ipmiPort: 623, protocols: "redfish,ipmi"},
		{in: Config{Endpoint: "fd00::5", Username: "u", Protocols: []string{"IPMI"}, Port: 9623}, host: "fd00::5", hostArg: "[fd00::5]", key: "[fd00::5]:9623", rfPort: 9623, ipmiPort: 9623, protocols: "ipmi"},
		{in: Config{Endpoint: "[fd00::5]:8443", Username: "u", IPMIPort: 1623}, host: "fd00::5", hostArg: "[fd00::5]", key: "[fd00::5]:8443", rfPort: 8443, ipmiPort: 1623, protocols: "redfish,ipmi"},
		{in: Config{Endpoint: "h", Username: "u", Protocols: []string{"ipmi", "redfish", "ipmi"}}, host: "h", hostArg: "h", key: "h:623", rfPort: 443, ipmiPort: 623, protocols: "ipmi,redfish"},
		{in: Config{Endpoint: "http://h", Username: "u"}, wantErr: "plain HTTP"},
		{in: Config{Endpoint: "", Username: "u"}, wantErr: "empty"},
		{in: Config{Endpoint: "h/x", Username: "u"}, wantErr: "not a host"},
		{in: Config{Endpoint: "h", Username: ""}, wantErr: "username"},
		{in: Config{Endpoint: "h", Username: "u", Protocols: []string{"snmp"}}, wantErr: "unknown protocol"},
		{in: Config{Endpoint: "h", Username: "u", TLSCAPEM: "junk"}, wantErr: "no certificate"},
		{in: Config{Endpoint: "h", Username: "u", IPMICipherSuite: "3; rm"}, wantErr: "cipher"},
	} {
		got, err := c.in.normalize()
		if c.wantErr != "" {
			if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("%+v: error %v, want %q", c.in, err, c.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("%+v: %v", c.in, err)
			continue
		}
		if got.host != c.host || got.hostArg != c.hostArg || got.key != c.key || got.rfPort != c.rfPort || got.ipmiPort != c.ipmiPort || strings.Join(got.Protocols, ",") != c.protocols {
			t.Errorf("%+v: got host %s arg %s key %s ports %d/%d protocols %v", c.in, got.host, got.hostArg, got.key, got.rfPort, got.ipmiPort, got.Protocols)
		}
		if got.Timeout != DefaultTimeout || got.IPMICipherSuite != "3" {
			t.Errorf("defaults not applied: %+v", got)
		}
	}
}

func TestRedfishIPMIClassification(t *testing.T) {
	wrap := func(err error) error {
		// As bmclib hands errors over: wrapped with a message, in a multierror.
		var m *multierror.Error
		m = multierror.Append(m, pkgerrors.WithMessage(err, "provider: gofish"))
		return multierror.Append(m, fmt.Errorf("failed to get power state"))
	}
	refused := &url.Error{Op: "Get", URL: "https://10.0.0.5/redfish/v1/", Err: &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}}
	for _, c := range []struct {
		err      error
		kind     error
		timedOut bool
		detail   string
	}{
		{wrap(common.ConstructError(401, []byte(`{"error":{"code":"Base.1.15.NoValidSession","message":"x"}}`))), ErrAuth, false, "HTTP 401"},
		{wrap(common.ConstructError(404, []byte(`not found`))), ErrNotSupported, false, "HTTP 404"},
		{wrap(common.ConstructError(400, []byte(`{"error":{"code":"c","message":"m","@Message.ExtendedInfo":[{"MessageId":"Base.1.15.PropertyValueNotInList","Message":"The value 'Tape'"}]}}`))), ErrRejected, false, "PropertyValueNotInList The value 'Tape'"},
		{wrap(common.ConstructError(500, []byte(`boom`))), ErrFailed, false, "HTTP 500"},
		{wrap(refused), ErrUnreachable, false, "connection refused"},
		{wrap(context.DeadlineExceeded), ErrUnreachable, true, ""},
		{wrap(&url.Error{Op: "Get", URL: "u", Err: x509Unknown()}), ErrTLS, false, "x509"},
	} {
		kind, detail, timedOut := classifyRedfish(c.err)
		if kind != c.kind || timedOut != c.timedOut || !strings.Contains(detail, c.detail) || strings.Contains(detail, "\n") {
			t.Errorf("%v: got %v %q timedOut=%t, want %v %q", c.err, kind, detail, timedOut, c.kind, c.detail)
		}
	}
	for _, c := range []struct {
		text string
		kind error
	}{
		{"Error: Unable to establish IPMI v2 / RMCP+ session; ipmitool -v says: > RAKP 2 HMAC is invalid", ErrAuth},
		{"RAKP 2 message indicates an error : unauthorized name", ErrAuth},
		{"Get Auth Capabilities error; Error: Unable to establish IPMI v2 / RMCP+ session", ErrUnreachable},
		{"Invalid data field in request", ErrNotSupported},
		{"something else", ErrFailed},
	} {
		if kind, _, _ := classifyIPMI(errors.New(c.text)); kind != c.kind {
			t.Errorf("%q: %v, want %v", c.text, kind, c.kind)
		}
	}
}

func x509Unknown() error {
	// The error crypto/tls returns for a certificate signed by an unknown CA.
	return &tls.CertificateVerificationError{Err: x509.UnknownAuthorityError{}}
}

func TestRedfishIPMIRedaction(t *testing.T) {
	r := newRedactor("admin", "p@ss w/rd")
	r.add("ops", `q"uote`)
	for _, leak := range []string{
		"login p@ss w/rd failed",
		"url p%40ss+w%2Frd",
		`json {"Password":"q\"uote"}`,
		"Authorization: Basic YWRtaW46cEBzcyB3L3Jk",
	} {
		if got := r.clean(leak); strings.Contains(got, "p@ss") || strings.Contains(got, "p%40ss") || strings.Contains(got, `q\"uote`) || strings.Contains(got, "YWRtaW46cEBzcyB3L3Jk") {
			t.Errorf("not redacted: %q -> %q", leak, got)
		}
	}

	// The logging wrapper redacts messages, values, errors, names and structured values.
	logs := &logCapture{}
	l := redactingLogger(logs.logger(), r).WithName("p@ss w/rd").WithValues("k", "p@ss w/rd")
	l.V(3).Info("msg p@ss w/rd", "opts", []struct{ Opt, Val string }{{"-P", "p@ss w/rd"}}, "n", 3)
	l.Error(errors.New("err p@ss w/rd"), "failed", "e", errors.New("p@ss w/rd"))
	noSecret(t, "logs", logs.String(), "p@ss w/rd")
	if !strings.Contains(logs.String(), "<redacted>") || !strings.Contains(logs.String(), `"n"=3`) {
		t.Fatalf("logs: %s", logs.String())
	}
	if redactingLogger(logr.Logger{}, r).GetSink() != nil {
		t.Fatal("a zero logger must stay silent")
	}
}

func TestRedfishIPMIErrorShape(t *testing.T) {
	e := &Error{Endpoint: "10.0.0.5:443", Protocol: "redfish", Op: "read", Kind: ErrUnreachable, Detail: "no answer", TimedOut: true}
	if !errors.Is(e, ErrUnreachable) || !errors.Is(e, context.DeadlineExceeded) || errors.Is(e, ErrAuth) {
		t.Fatal("errors.Is")
	}
	if e.Error() != "BMC 10.0.0.5:443 (redfish): read: unreachable: no answer" {
		t.Fatalf("text: %q", e.Error())
	}
	var target *Error
	if !errors.As(fmt.Errorf("wrapped: %w", e), &target) || target.Protocol != "redfish" {
		t.Fatal("errors.As")
	}
}

func TestRedfishIPMILimiterAndLocks(t *testing.T) {
	l := &limiter{max: 2, wake: make(chan struct{})}
	ctx := context.Background()
	if err := l.acquire(ctx); err != nil {
		t.Fatal(err)
	}
	if err := l.acquire(ctx); err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	if err := l.acquire(short); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("third acquire on a full limiter: %v", err)
	}
	cancel()
	got := make(chan struct{})
	go func() {
		if err := l.acquire(ctx); err == nil {
			close(got)
		}
	}()
	time.Sleep(20 * time.Millisecond)
	l.mu.Lock()
	l.max = 3 // as SetMaxSessions does
	l.broadcast()
	l.mu.Unlock()
	select {
	case <-got:
	case <-time.After(2 * time.Second):
		t.Fatal("raising the limit did not wake the waiter")
	}
	l.release()
	if l.inUse != 2 || l.peak != 3 {
		t.Fatalf("inUse %d peak %d", l.inUse, l.peak)
	}

	unlock, err := lockBMC(ctx, "h:443")
	if err != nil {
		t.Fatal(err)
	}
	short, cancel = context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	if _, err := lockBMC(short, "h:443"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("second lock of one BMC: %v", err)
	}
	other, err := lockBMC(ctx, "h:444")
	if err != nil {
		t.Fatalf("another BMC must not wait: %v", err)
	}
	other()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		u, err := lockBMC(ctx, "h:443")
		if err == nil {
			u()
		}
	}()
	unlock()
	unlock() // idempotent
	wg.Wait()
	bmcLocks.Lock()
	n := len(bmcLocks.m)
	bmcLocks.Unlock()
	if n != 0 {
		t.Fatalf("%d lock entries left", n)
	}
}

func TestIPMIParseOutputs(t *testing.T) {
	simOut := `Boot parameter version: 1
Boot parameter 5 is valid/unlocked
Boot parameter data: 0004000000
 Boot Flags :
   - Boot Flag Invalid
   - Options apply to only next boot
   - BIOS PC Compatible (legacy) boot 
   - Boot Device Selector : Force PXE
   - BIOS verbosity : System Default
`
	if d, p, e := parseBootParam(simOut); d != "pxe" || p || e {
		t.Fatalf("ipmi_sim output: %s %t %t", d, p, e)
	}
	hw := strings.NewReplacer("Boot Flag Invalid", "Boot Flag Valid", "only next boot", "all future boots",
		"BIOS PC Compatible (legacy) boot", "BIOS EFI boot", "Force PXE", "Force Boot from default Hard-Drive").Replace(simOut)
	if d, p, e := parseBootParam(hw); d != "disk" || !p || !e {
		t.Fatalf("persistent EFI disk: %s %t %t", d, p, e)
	}
	for sel, want := range map[string]string{
		"No override": "none", "Force Boot from CD/DVD": "cdrom", "Force Boot into BIOS Setup": "bios",
		"Force Boot from Diagnostic Partition": "diag", "Force Boot from remotely connected Hard-Drive": "remote_drive",
		"Force Boot from default Hard-Drive, request Safe-Mode": "disk", "Force Boot from Floppy/primary removable media": "floppy",
	} {
		if d, _, _ := parseBootParam("   - Boot Device Selector : " + sel); d != want {
			t.Errorf("%q: %s, want %s", sel, d, want)
		}
	}
	for raw, want := range map[string]string{"Chassis Power is on\n": "on", "Chassis Power is off": "off", "On": "on", "Off": "off", "PoweringOn": "on"} {
		if got, err := normalisePower(raw); err != nil || got != want {
			t.Errorf("power %q: %q %v", raw, got, err)
		}
	}
	if _, err := normalisePower("Paused"); err == nil {
		t.Error("unknown power state accepted")
	}
	if ipmiField("Firmware Revision         : 9.08\n", "Firmware Revision") != "9.08" {
		t.Error("ipmiField")
	}
}

// TestRedfishIPMITimeoutWordedOnce: a BMC that does not answer reads "no answer within 3s"
// whichever bound fired first, the caller's deadline (Session.open's own wording) or the
// per-call Config.Timeout inside the protocol client (newError's): with a node's timeout equal
// to the per-call one, either may win, and one cause gets one message (TestAccNodeBMCDead once
// read "no answer within the timeout (3s)").
func TestRedfishIPMITimeoutWordedOnce(t *testing.T) {
	s := &Session{cfg: &config{Config: Config{Timeout: 3 * time.Second}, host: "127.0.0.1", hostArg: "127.0.0.1", rfPort: 443, ipmiPort: 623}}
	for _, proto := range []string{ProtocolRedfish, ProtocolIPMI} {
		for _, detail := range []string{"", "no answer in time"} {
			if e := s.newError(proto, "open", ErrUnreachable, detail, true, nil); e.Detail != "no answer within 3s" {
				t.Errorf("%s, detail %q: %q, want %q", proto, detail, e.Detail, "no answer within 3s")
			}
		}
	}
}
