package bmc

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/go-logr/logr"
)

// State is what Read finds on a BMC, in this package's vocabulary whatever the protocol.
type State struct {
	Protocol string // protocol of the session that read it
	// PowerState is "on" or "off".
	PowerState string
	// BootDevice is the boot override: "none" (no override), "pxe", "disk", "cdrom", "bios",
	// "usb", "diag", "floppy", "utilities", "sd_card", "remote_drive", or the BMC's own name
	// in lower case for anything else.
	BootDevice     string
	BootPersistent bool // the override applies to every boot, not only the next
	BootEFI        bool // the override boots in UEFI mode

	Vendor, Model, Serial string
	BMCFirmware           string
	BIOSFirmware          string

	// BIOS holds the current BIOS attributes (values as text); nil when the protocol has no
	// BIOS settings (IPMI).
	BIOS map[string]string
	// BIOSPending holds the attributes whose value changes at the next host reset.
	BIOSPending map[string]string
	// Users maps the names of enabled BMC accounts to their role ("Administrator",
	// "Operator", "ReadOnly", "None").
	Users map[string]string
}

// BootDevices are the devices SetBootDevice accepts (bmclib's names).
var BootDevices = []string{"pxe", "disk", "cdrom", "bios", "none", "usb", "diag", "floppy", "utilities", "sd_card", "remote_drive"}

// Roles are the account roles EnsureUser accepts (the Redfish standard roles).
var Roles = []string{"Administrator", "Operator", "ReadOnly", "None"}

// backend is one protocol's implementation of the operations.
type backend interface {
	read(ctx context.Context) (State, error)
	setPower(ctx context.Context, state string) error
	setBootDevice(ctx context.Context, device string, persistent, efi bool) error
	ensureUser(ctx context.Context, name, role, password string) error
	removeUser(ctx context.Context, name string) (how string, err error)
	reset(ctx context.Context, kind string) error
	resetBMC(ctx context.Context) error
	setBIOS(ctx context.Context, settings map[string]string) error
	firmware(ctx context.Context) (Firmware, error)
	updateFirmware(ctx context.Context, component, imageURI, version string) (FirmwareUpdate, error)
	close(ctx context.Context) error
	classify(err error) (kind error, detail string, timedOut bool)
}

// Session is an open connection to one BMC. It holds the BMC's lock and one of the process's
// session slots from Open to Close, so a Session must be closed. Its methods may be called from
// several goroutines but run one at a time.
type Session struct {
	cfg      *config
	protocol string
	b        backend
	red      *redactor
	log      logr.Logger
	release  func()

	// fallback says which protocols were tried first and why they failed, when the session
	// runs on a later one of cfg.Protocols ("" when the first answered): Fallback.
	fallback string

	mu       sync.Mutex
	closed   bool
	broken   *Error          // set when an operation was abandoned on timeout
	inflight <-chan struct{} // closed when the abandoned operation has really ended
}

// Open connects to the BMC with the first protocol of cfg.Protocols that answers and accepts the
// credentials (Redfish first, IPMI as the fallback by default). It waits, as long as ctx allows,
// for the BMC's lock and for a session slot, then spends at most cfg.Timeout on the BMC itself,
// shared fairly between the protocols still to try.
//
// The protocols are DMTF Redfish (DSP0266 Redfish Specification, sessions and HTTP Basic
// authentication; DSP2046 for the resources) and IPMI v2.0 over RMCP+ (Intelligent Platform
// Management Interface Specification v2.0 rev. 1.1, section 13), through bmclib's gofish and
// ipmitool providers.
func Open(ctx context.Context, cfg Config) (*Session, error) {
	c, err := cfg.normalize()
	if err != nil {
		return nil, err
	}
	if os.Getenv("DEBUG_BMCLIB") == "true" {
		// bmclib then dumps every HTTP exchange, session login and password included, to stdout.
		return nil, invalid(c.key, "DEBUG_BMCLIB=true makes bmclib print BMC credentials to stdout; unset it")
	}
	red := newRedactor(c.Username, c.Password)
	log := redactingLogger(c.Logger, red).WithValues("bmc", c.key)

	unlock, err := lockBMC(ctx, c.key)
	if err != nil {
		return nil, fmt.Errorf("BMC %s: waiting for another session to this BMC to end: %w", c.key, err)
	}
	if err := sessionSlots.acquire(ctx); err != nil {
		unlock()
		return nil, fmt.Errorf("BMC %s: waiting for one of the %d BMC session slots: %w", c.key, MaxSessions(), err)
	}
	release := sync.OnceFunc(func() {
		sessionSlots.release()
		unlock()
	})

	s := &Session{cfg: c, red: red, log: log, release: release}
	deadline := time.Now().Add(c.Timeout)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	var errs []error
	var abandoned []<-chan struct{}
	for i, proto := range c.Protocols {
		remaining := time.Until(deadline)
		if remaining <= 0 {
			errs = append(errs, &Error{Endpoint: c.endpointFor(proto), Protocol: proto, Op: "open", Kind: ErrUnreachable, Detail: "not tried: no time left", TimedOut: true})
			continue
		}
		actx, cancel := context.WithTimeout(ctx, remaining/time.Duration(len(c.Protocols)-i))
		start := time.Now()
		b, done, err := s.openProtocol(actx, proto)
		cancel()
		if done != nil {
			abandoned = append(abandoned, done)
		}
		if err == nil {
			s.protocol, s.b = proto, b
			if len(errs) > 0 {
				s.fallback = fallbackText(proto, c.endpointFor(proto), errs)
				// At the default level: a BMC that should answer Redfish and does not is
				// worth an operator's attention even when the operation succeeds.
				log.Info("BMC session open on a fallback protocol", "protocol", proto, "tried", s.fallback)
			}
			log.V(1).Info("BMC session open", "protocol", proto, "took", time.Since(start).String())
			if len(abandoned) > 0 {
				// An earlier attempt still runs (it logs itself out, see openProtocol): the
				// lock and the slot wait for it too.
				s.release = func() {
					go func() {
						for _, d := range abandoned {
							<-d
						}
						release()
					}()
				}
			}
			return s, nil
		}
		log.V(1).Info("BMC protocol failed", "protocol", proto, "error", err.Error())
		errs = append(errs, err)
		if ctx.Err() != nil {
			break
		}
		// Fall back only when this protocol is absent or broken. After refused credentials or
		// an untrusted certificate, trying IPMI would be a downgrade (someone in the middle of
		// the TLS connection could force it, and IPMI's RAKP exposes a password hash) and would
		// mostly wait out the timeout on a BMC that has IPMI off.
		if errors.Is(err, ErrAuth) || errors.Is(err, ErrTLS) {
			break
		}
	}
	// The slot and the lock are kept until every abandoned attempt has really ended, so that
	// the bound on open sessions also holds for BMCs that hang.
	if len(abandoned) == 0 {
		release()
	} else {
		go func() {
			for _, d := range abandoned {
				<-d
			}
			release()
		}()
	}
	return nil, errors.Join(errs...)
}

// openProtocol opens one protocol within ctx. bmclib's Redfish login ignores the context (gofish
// uses its own), so the attempt runs in a goroutine: when ctx ends first the caller gets a
// timeout at once, done tells when the attempt has ended, and a login that succeeds too late is
// logged out at once rather than left open on the BMC.
func (s *Session) openProtocol(ctx context.Context, proto string) (backend, <-chan struct{}, error) {
	var b backend
	var err error
	budget := time.Second
	if d, ok := ctx.Deadline(); ok {
		budget = time.Until(d)
	}
	done := bounded(ctx, func() error {
		var ob backend
		var oerr error
		if proto == ProtocolRedfish {
			ob, oerr = openRedfish(ctx, s.cfg, s.log, s.red)
		} else {
			ob, oerr = openIPMI(ctx, s.cfg, s.log, s.red)
		}
		b = ob
		return oerr
	}, func(_ error) {
		if b != nil {
			cctx, cancel := context.WithTimeout(context.Background(), s.cfg.Timeout)
			defer cancel()
			_ = b.close(cctx)
		}
	}, &err)
	if done != nil {
		// The budget to a tenth of a second: it is what the caller bounded the call by, less the
		// moments spent before it started, which are noise ("2.999s" for a 3 s bound).
		return nil, done, s.newError(proto, "open", ErrUnreachable, fmt.Sprintf("no answer within %s", budget.Round(100*time.Millisecond)), true, ctx)
	}
	if err != nil {
		var e *Error
		if errors.As(err, &e) {
			return nil, nil, e
		}
		var kind error
		var detail string
		var timedOut bool
		if proto == ProtocolRedfish {
			kind, detail, timedOut = classifyRedfish(err)
		} else {
			kind, detail, timedOut = classifyIPMI(err)
		}
		return nil, nil, s.newError(proto, "open", kind, detail, timedOut, ctx)
	}
	return b, nil, nil
}

// bounded runs fn in a goroutine and waits for it or for ctx. When fn ends first, its error is
// stored in *errp and bounded returns nil. When ctx ends first, bounded returns a channel that
// is closed once fn has ended; fn's late result is then handed to abandon (if not nil) instead
// of the caller, who has moved on.
func bounded(ctx context.Context, fn func() error, abandon func(error), errp *error) <-chan struct{} {
	var mu sync.Mutex
	gaveUp := false
	result := make(chan error, 1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		err := fn()
		mu.Lock()
		defer mu.Unlock()
		if gaveUp {
			if abandon != nil {
				abandon(err)
			}
			return
		}
		result <- err
	}()
	select {
	case err := <-result:
		*errp = err
		return nil
	case <-ctx.Done():
	}
	mu.Lock()
	defer mu.Unlock()
	select {
	case err := <-result: // finished while we were looking: take the result after all
		*errp = err
		return nil
	default:
		gaveUp = true
		return done
	}
}

func (s *Session) newError(proto, op string, kind error, detail string, timedOut bool, ctx context.Context) *Error {
	if ctx != nil && errors.Is(ctx.Err(), context.Canceled) {
		kind, detail, timedOut = context.Canceled, "canceled by the caller", false
	}
	if timedOut && (detail == "" || detail == "no answer in time") {
		// Worded as open's own deadline is ("no answer within 3s"): with a node's timeout equal
		// to the per-call one, either bound may fire first, and one cause gets one message.
		detail = fmt.Sprintf("no answer within %s", s.cfg.Timeout)
	}
	return &Error{Endpoint: s.cfg.endpointFor(proto), Protocol: proto, Op: op, Kind: kind, Detail: s.red.clean(detail), TimedOut: timedOut}
}

// call runs one operation on the open session, bounded by cfg.Timeout and ctx, and turns its
// failure into an *Error. An operation abandoned on timeout leaves the session broken: the
// protocol client may still be busy, so later calls fail at once rather than race it.
func (s *Session) call(ctx context.Context, op string, fn func(ctx context.Context) error) error {
	return s.callWithin(ctx, op, s.cfg.Timeout, fn)
}

// callWithin is call with another bound than cfg.Timeout (0: ctx alone), for the operations
// that last longer than one exchange with the BMC, such as a firmware update (each request in
// them is still bounded by cfg.Timeout, through the HTTP client).
func (s *Session) callWithin(ctx context.Context, op string, bound time.Duration, fn func(ctx context.Context) error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return s.newError(s.protocol, op, ErrInvalid, "the session is closed", false, nil)
	}
	if s.broken != nil {
		e := *s.broken
		e.Op = op
		e.Detail = "an earlier operation (" + s.broken.Op + ") got no answer in time; open a new session"
		return &e
	}
	start := time.Now()
	opCtx, cancel := context.WithCancel(ctx)
	if bound > 0 {
		opCtx, cancel = context.WithTimeout(ctx, bound)
	}
	defer cancel()
	var err error
	var done <-chan struct{}
	if bound > 0 {
		done = bounded(opCtx, func() error { return fn(opCtx) }, nil, &err)
	} else {
		// Unbounded by cfg.Timeout: fn watches ctx itself and reports its own timeout.
		err = fn(opCtx)
	}
	if done != nil {
		e := s.newError(s.protocol, op, ErrUnreachable, "", true, ctx)
		s.broken, s.inflight = e, done
		s.log.V(1).Info("BMC operation abandoned", "op", op, "protocol", s.protocol, "took", time.Since(start).String())
		return e
	}
	if err == nil {
		s.log.V(1).Info("BMC operation done", "op", op, "protocol", s.protocol, "took", time.Since(start).String())
		return nil
	}
	var e *Error
	if !errors.As(err, &e) {
		kind, detail, timedOut := s.b.classify(err)
		if opCtx.Err() != nil && !timedOut {
			kind, detail, timedOut = ErrUnreachable, "", true
		}
		e = s.newError(s.protocol, op, kind, detail, timedOut, ctx)
	} else {
		c := *e
		c.Endpoint, c.Protocol, c.Op, c.Detail = s.cfg.endpointFor(s.protocol), s.protocol, op, s.red.clean(c.Detail)
		e = &c
	}
	if e.TimedOut {
		// The BMC stopped answering: fail the next operations at once instead of waiting out
		// the timeout again for each.
		s.broken = e
	}
	s.log.V(1).Info("BMC operation failed", "op", op, "protocol", s.protocol, "took", time.Since(start).String(), "error", e.Error())
	return e
}

// Protocol is the protocol this session speaks ("redfish" or "ipmi").
func (s *Session) Protocol() string { return s.protocol }

// Fallback says, when the session runs on a later protocol of Config.Protocols, which ones were
// tried first and why each failed: "redfish at bmc01:443 was tried first and failed (BMC
// bmc01:443 (redfish): open: unreachable: ...); this session uses ipmi at bmc01:623". It is ""
// when the first protocol answered. Its text holds no secret (the errors are redacted).
func (s *Session) Fallback() string { return s.fallback }

// fallbackText is Fallback's sentence for a session on proto after the errors of the protocols
// tried before it.
func fallbackText(proto, endpoint string, errs []error) string {
	var tried []string
	for _, err := range errs {
		var e *Error
		if errors.As(err, &e) && e.Protocol != "" {
			tried = append(tried, fmt.Sprintf("%s at %s was tried first and failed (%s)", e.Protocol, e.Endpoint, err))
			continue
		}
		tried = append(tried, fmt.Sprintf("another protocol was tried first and failed (%s)", err))
	}
	return strings.Join(tried, "; ") + "; this session uses " + proto + " at " + endpoint
}

// Endpoint is host:port of the BMC as this session reaches it.
func (s *Session) Endpoint() string { return s.cfg.endpointFor(s.protocol) }

// Read reads power, boot override, inventory, BIOS attributes and users.
func (s *Session) Read(ctx context.Context) (State, error) {
	var st State
	err := s.call(ctx, "read", func(ctx context.Context) error {
		var err error
		st, err = s.b.read(ctx)
		return err
	})
	st.Protocol = s.protocol
	return st, err
}

// SetPower powers the host "on" or "off" (a hard off, as a Terraform apply must converge) and
// waits until the BMC reports the new state.
func (s *Session) SetPower(ctx context.Context, state string) error {
	state = strings.ToLower(strings.TrimSpace(state))
	if state != "on" && state != "off" {
		return s.newError(s.protocol, "set power", ErrInvalid, fmt.Sprintf("power state %q: want \"on\" or \"off\"", state), false, nil)
	}
	return s.call(ctx, "set power "+state, func(ctx context.Context) error { return s.b.setPower(ctx, state) })
}

// SetBootDevice sets the boot override (see BootDevices) for the next boot, or every boot when
// persistent, in UEFI mode when efi, and checks that the BMC kept it.
func (s *Session) SetBootDevice(ctx context.Context, device string, persistent, efi bool) error {
	device = strings.ToLower(strings.TrimSpace(device))
	if !containsString(BootDevices, device) {
		return s.newError(s.protocol, "set boot device", ErrInvalid, fmt.Sprintf("boot device %q: want one of %s", device, strings.Join(BootDevices, ", ")), false, nil)
	}
	return s.call(ctx, "set boot device", func(ctx context.Context) error {
		return s.b.setBootDevice(ctx, device, persistent, efi)
	})
}

// EnsureUser makes an enabled account name with the role and password, creating it or updating
// it. The password is never logged nor put in errors.
func (s *Session) EnsureUser(ctx context.Context, name, role, password string) error {
	s.red.add(name, password)
	switch {
	case strings.TrimSpace(name) == "" || strings.ContainsAny(name, " \t\n:\"'"):
		return s.newError(s.protocol, "ensure user", ErrInvalid, fmt.Sprintf("user name %q is empty or holds spaces, quotes or colons", name), false, nil)
	case !containsString(Roles, role):
		return s.newError(s.protocol, "ensure user", ErrInvalid, fmt.Sprintf("role %q: want one of %s", role, strings.Join(Roles, ", ")), false, nil)
	case password == "":
		return s.newError(s.protocol, "ensure user", ErrInvalid, "password is empty", false, nil)
	}
	return s.call(ctx, "ensure user "+name, func(ctx context.Context) error {
		return s.b.ensureUser(ctx, name, role, password)
	})
}

// SetBIOS sets BIOS attributes. The BMC applies them at the next host reset: until then Read
// shows them in BIOSPending. Attributes the BMC does not have are refused before any change.
func (s *Session) SetBIOS(ctx context.Context, settings map[string]string) error {
	if len(settings) == 0 {
		return nil
	}
	return s.call(ctx, "set BIOS", func(ctx context.Context) error { return s.b.setBIOS(ctx, settings) })
}

// Close logs out and frees the BMC's lock and the session slot. After a timeout the logout runs
// in the background and the slot is freed once the abandoned operation has ended.
func (s *Session) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	inflight, broken := s.inflight, s.broken != nil
	s.mu.Unlock()

	finish := func() error {
		ctx, cancel := context.WithTimeout(context.Background(), s.cfg.Timeout)
		defer cancel()
		defer s.release()
		if err := s.b.close(ctx); err != nil {
			kind, detail, timedOut := s.b.classify(err)
			return s.newError(s.protocol, "close", kind, detail, timedOut, nil)
		}
		return nil
	}
	if broken {
		go func() {
			if inflight != nil {
				<-inflight
			}
			_ = finish()
		}()
		return nil //nolint:nilerr // a broken session is closed in the background; the break was reported by the call that saw it
	}
	return finish()
}

// sortedKeys is for deterministic iteration.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// normalisePower maps the BMCs' words to "on"/"off": gofish returns "On", ipmitool returns
// "Chassis Power is on\n".
func normalisePower(raw string) (string, error) {
	s := strings.ToLower(strings.TrimSpace(raw))
	s = strings.TrimPrefix(s, "chassis power is ")
	switch s {
	case "on", "poweringon":
		return "on", nil
	case "off", "poweringoff":
		return "off", nil
	}
	return "", fmt.Errorf("unrecognised power state %q", raw)
}
