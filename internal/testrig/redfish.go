package testrig

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/subtle"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"hash/fnv"
	"io"
	"log"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// The Redfish rig is a small Redfish service written after the DMTF schema (ServiceRoot v1.15,
// ComputerSystem v1.20, Bios v1.2, Manager v1.17, AccountService v1.12, SessionService v1.1;
// UpdateService v1.11, SoftwareInventory v1.9 and Task v1.7 in redfish_update.go):
// no packaged Redfish server exists, so the tests talk to this one. It answers what bmclib's
// gofish provider and gofish itself ask for, and it is strict where real BMCs are strict
// (credentials, ETags, allowable values, read-only properties), because a lenient rig would hide
// the bugs the tests are there to find.

// RedfishOptions shape one Redfish rig. The zero value is a single BMC with iDRAC/Supermicro-like
// fixed account slots.
type RedfishOptions struct {
	// Username and Password of the administrator account (defaults "admin" / "Rf-adm1n-pw").
	Username, Password string
	// Listeners is how many ports serve this BMC (default 1). Each port is a separate
	// endpoint:port to a client, which lets one rig stand in for many BMCs in concurrency tests.
	Listeners int
	// PostAccounts makes the account collection grow by POST (OpenBMC style) instead of offering
	// fixed slots that are claimed by PATCH (iDRAC/Supermicro style, the default).
	PostAccounts bool
	// Latency is added to every request, so that concurrent clients overlap.
	Latency time.Duration
	// Accounts are further enabled accounts (a fleet's automation account, the way a site
	// provisions one on every BMC), in the slots after the administrator's.
	Accounts []RedfishUser
	// ConsumeOnceOverride makes a boot (power on or restart) consume a "Once" boot override, as
	// real hosts do when they finish POST. Off by default: the tests then read back what they set.
	ConsumeOnceOverride bool
	// RestartTime is how long the BMC is away after a Manager.Reset (default 300 ms): every
	// request then gets 503, as from a BMC whose web server is still starting.
	RestartTime time.Duration
	// UpdateTime is how long a firmware update task runs (default RedfishUpdateTime).
	UpdateTime time.Duration
	// UpdateNoContent makes SimpleUpdate answer 204 with Location set to the Task resource
	// itself, as sushy-tools does, instead of 202 with a task monitor.
	UpdateNoContent bool
}

// RedfishUser is an account RedfishOptions.Accounts creates.
type RedfishUser struct {
	UserName, Password, RoleID string
}

// RedfishChange is one change of the rig's state, in the order they happened.
type RedfishChange struct {
	Seq      int
	Source   string // "api" or "out-of-band"
	User     string // account that made an API change
	Method   string // HTTP method of an API change
	Path     string // URI of an API change
	Property string // e.g. "PowerState", "Boot/BootSourceOverrideTarget", "Bios/Attributes/X", "Accounts/3/UserName"
	Old, New string // passwords are never recorded: New is "(set)"
}

// RedfishAccount is the rig's view of one account slot.
type RedfishAccount struct {
	ID, UserName, RoleID string
	Enabled, Locked      bool
	AccountTypes         []string
	password             string
}

// Redfish is a running Redfish rig.
type Redfish struct {
	Host     string // 127.0.0.1
	Port     int    // first port
	Ports    []int  // every port (Listeners)
	URL      string // https://127.0.0.1:Port
	Username string
	Password string
	CAPEM    string // PEM of the CA that signed the server certificate

	opts    RedfishOptions
	servers []*httptest.Server
	closed  chan struct{}

	mu       sync.Mutex
	hung     chan struct{} // non-nil while requests hang; closed to release them
	power    string
	boot     rfBoot
	bios     map[string]any
	pending  map[string]any
	sysInfo  map[string]string
	bmcFW    string
	accounts []*RedfishAccount
	nextAcct int
	sessions map[string]*rfSession // by token
	nextSess int
	changes  []RedfishChange

	resets       []string  // every reset accepted, "ComputerSystem.Reset ForceRestart", "Manager.Reset GracefulRestart"
	restartUntil time.Time // the BMC is restarting until then (Manager.Reset)
	restartFrom  time.Time // ... and from then (zero: now; a restart in an update task)
	// rebootPending: the restart of an update task has not yet dropped the sessions.
	rebootPending bool

	images    map[string]rfImage // firmware images the rig can "fetch", by ImageURI
	tasks     []*rfTask
	nextTask  int
	nextFault rfUpdateFault
	updateLog []RedfishUpdateEvent // update events, numbered process-wide (rfSeq)

	failing    int // requests still to fail with failStatus (FailNext)
	failStatus int
	failMethod string
	failServed []string // "METHOD path" of the requests failed by FailNext
	garble     int      // PATCH and POST requests still to answer with a mangled body (GarbleAfterApply)
	garbleCode int      // the status of that answer; 0: the one the request earned
	busy       int      // requests still to refuse with 503 (Busy)
	retryAfter string   // their Retry-After header ("" for none)
	busyServed int      // 503 answers given
	busyTimes  []time.Time

	liveSessions, maxLiveSessions, sessionsCreated int
	inFlight, maxInFlight                          int
	failedLogins                                   int
	requests                                       int
}

type rfBoot struct {
	Target, Enabled, Mode, UefiTarget string
}

type rfSession struct {
	ID, Token, User string
	Created         time.Time
}

var (
	rfBootTargets = []string{"None", "Pxe", "Cd", "Usb", "Hdd", "BiosSetup", "Utilities", "Diags", "SDCard", "UefiTarget", "UefiHttp", "RemoteDrive"}
	rfBootEnabled = []string{"Disabled", "Once", "Continuous"}
	rfBootModes   = []string{"Legacy", "UEFI"}
	rfResetTypes  = []string{"On", "ForceOff", "GracefulShutdown", "GracefulRestart", "ForceRestart", "PowerCycle", "ForceOn", "PushPowerButton", "Nmi"}
	rfRoles       = []string{"Administrator", "Operator", "ReadOnly", "None"}
	rfAcctTypes   = []string{"Redfish", "SNMP", "OEM", "HostConsole", "ManagerConsole", "IPMI", "KVMIP", "VirtualMedia", "WebUI"}
)

// rfBIOSAttr describes one attribute of the rig's BIOS attribute registry: its type comes from
// the default value, and string attributes with a value list accept only those.
type rfBIOSAttr struct {
	def     any
	allowed []string
}

var rfBIOSRegistry = map[string]rfBIOSAttr{
	"BootMode":           {def: "Uefi", allowed: []string{"Uefi", "Legacy"}},
	"ProcHyperthreading": {def: "Enabled", allowed: []string{"Enabled", "Disabled"}},
	"SriovGlobalEnable":  {def: "Disabled", allowed: []string{"Enabled", "Disabled"}},
	"IommuSupport":       {def: "Enabled", allowed: []string{"Enabled", "Disabled"}},
	"PowerProfile":       {def: "Balanced", allowed: []string{"MaxPerf", "Balanced", "PowerSaver"}},
	"NumaNodesPerSocket": {def: float64(1)},
	"PcieAspm":           {def: false},
	"AssetTagText":       {def: ""},
}

// StartRedfish starts a Redfish rig on loopback with TLS (a certificate signed by a CA made for
// this rig; trust it with CAPEM) and stops it when the test ends.
func StartRedfish(t TB, opts RedfishOptions) *Redfish {
	t.Helper()
	if opts.Username == "" {
		opts.Username = "admin"
	}
	if opts.Password == "" {
		opts.Password = "Rf-adm1n-pw"
	}
	if opts.Listeners <= 0 {
		opts.Listeners = 1
	}
	r := &Redfish{
		Host:     "127.0.0.1",
		Username: opts.Username,
		Password: opts.Password,
		opts:     opts,
		closed:   make(chan struct{}),
		power:    "Off",
		boot:     rfBoot{Target: "None", Enabled: "Disabled", Mode: "UEFI"},
		bios:     map[string]any{},
		pending:  map[string]any{},
		sysInfo: map[string]string{
			"Manufacturer": "NVIDIA", "Model": "DGX H100", "SerialNumber": "1560823000042",
			"BiosVersion": "1.6.7", "SKU": "965-24387-0002-000", "UUID": "6a1f3a7e-94c2-4d26-8c4f-0e3c1b2a7d55",
		},
		bmcFW:    "24.09.17",
		sessions: map[string]*rfSession{},
	}
	for name, a := range rfBIOSRegistry {
		r.bios[name] = a.def
	}
	if opts.PostAccounts {
		r.accounts = []*RedfishAccount{{ID: "1", UserName: opts.Username, RoleID: "Administrator", Enabled: true, AccountTypes: []string{"Redfish"}, password: opts.Password}}
		r.nextAcct = 2
	} else {
		// Slot 1 is the reserved anonymous slot of IPMI-derived BMCs; bmclib skips it on purpose.
		r.accounts = append(r.accounts, &RedfishAccount{ID: "1", RoleID: "None", AccountTypes: []string{"Redfish"}})
		r.accounts = append(r.accounts, &RedfishAccount{ID: "2", UserName: opts.Username, RoleID: "Administrator", Enabled: true, AccountTypes: []string{"Redfish"}, password: opts.Password})
		for i := 3; i <= 16; i++ {
			r.accounts = append(r.accounts, &RedfishAccount{ID: strconv.Itoa(i), RoleID: "None", AccountTypes: []string{"Redfish"}})
		}
	}
	for i, u := range opts.Accounts {
		a := &RedfishAccount{ID: strconv.Itoa(len(r.accounts) + 1), AccountTypes: []string{"Redfish"}}
		if !opts.PostAccounts {
			a = r.accounts[2+i] // the free slots from 3 on
		} else {
			r.accounts = append(r.accounts, a)
			r.nextAcct++
		}
		a.UserName, a.RoleID, a.Enabled, a.password = u.UserName, u.RoleID, true, u.Password
	}

	caPEM, cert := rfCertificates(t)
	r.CAPEM = caPEM
	for i := 0; i < opts.Listeners; i++ {
		srv := httptest.NewUnstartedServer(http.HandlerFunc(r.serve))
		srv.TLS = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
		// Refused handshakes are expected (tests of certificate verification); keep them out of
		// the test output.
		srv.Config.ErrorLog = log.New(io.Discard, "", 0)
		srv.StartTLS()
		r.servers = append(r.servers, srv)
		addr, ok := srv.Listener.Addr().(*net.TCPAddr)
		if !ok {
			t.Fatalf("redfish: listener address %v is not TCP", srv.Listener.Addr())
		}
		r.Ports = append(r.Ports, addr.Port)
	}
	r.Port = r.Ports[0]
	r.URL = "https://" + net.JoinHostPort(r.Host, strconv.Itoa(r.Port))
	t.Cleanup(r.stop)
	return r
}

func (r *Redfish) stop() {
	select {
	case <-r.closed:
		return
	default:
	}
	// Release hung handlers first: httptest.Server.Close waits for every handler to return.
	close(r.closed)
	for _, s := range r.servers {
		s.CloseClientConnections()
		s.Close()
	}
}

// rfCertificates makes a CA and a server certificate for 127.0.0.1 and localhost signed by it.
func rfCertificates(t TB) (caPEM string, cert tls.Certificate) {
	t.Helper()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatalf("redfish rig: CA key: %v", err)
	}
	now := time.Now()
	caTmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "gpucluster test BMC CA"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(24 * time.Hour),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatalf("redfish rig: CA certificate: %v", err)
	}
	caCert, _ := x509.ParseCertificate(caDER)
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatalf("redfish rig: server key: %v", err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(2),
		Subject:      pkix.Name{CommonName: "bmc.test"},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IPAddresses:  []net.IP{net.ParseIP("127.0.0.1"), net.IPv6loopback},
		DNSNames:     []string{"localhost"},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, caCert, &key.PublicKey, caKey)
	if err != nil {
		t.Fatalf("redfish rig: server certificate: %v", err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatalf("redfish rig: server key: %v", err)
	}
	cert, err = tls.X509KeyPair(
		pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}))
	if err != nil {
		t.Fatalf("redfish rig: key pair: %v", err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER})), cert
}

// ---- accessors for assertions ----

// PowerState is "On" or "Off".
func (r *Redfish) PowerState() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.power
}

// Boot returns the boot override: target (e.g. "Pxe"), enabled ("Disabled", "Once",
// "Continuous") and mode ("UEFI", "Legacy").
func (r *Redfish) Boot() (target, enabled, mode string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.boot.Target, r.boot.Enabled, r.boot.Mode
}

// BIOS returns the current BIOS attributes.
func (r *Redfish) BIOS() map[string]any {
	r.mu.Lock()
	defer r.mu.Unlock()
	return rfCopyMap(r.bios)
}

// PendingBIOS returns the BIOS attributes that apply at the next reset.
func (r *Redfish) PendingBIOS() map[string]any {
	r.mu.Lock()
	defer r.mu.Unlock()
	return rfCopyMap(r.pending)
}

// Accounts returns the account slots (passwords left out).
func (r *Redfish) Accounts() []RedfishAccount {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]RedfishAccount, 0, len(r.accounts))
	for _, a := range r.accounts {
		c := *a
		c.password = ""
		c.AccountTypes = slices.Clone(a.AccountTypes)
		out = append(out, c)
	}
	return out
}

// CheckPassword reports whether an enabled account has this name and password.
func (r *Redfish) CheckPassword(user, password string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.authenticate(user, password) != nil
}

// Changes returns the log of every change, API and out-of-band, in order.
func (r *Redfish) Changes() []RedfishChange {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.changes)
}

// LiveSessions is the number of Redfish sessions open now.
func (r *Redfish) LiveSessions() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.liveSessions
}

// MaxLiveSessions is the largest number of Redfish sessions that were open at the same time.
func (r *Redfish) MaxLiveSessions() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.maxLiveSessions
}

// SessionsCreated counts successful logins through SessionService.
func (r *Redfish) SessionsCreated() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.sessionsCreated
}

// FailedLogins counts requests refused for bad credentials (401).
func (r *Redfish) FailedLogins() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.failedLogins
}

// Requests counts the requests received, hung ones included: a test shows that a call did not
// go to the BMC by the count it left unchanged, not by how fast it returned.
func (r *Redfish) Requests() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.requests
}

// MaxInFlight is the largest number of requests handled at the same time.
func (r *Redfish) MaxInFlight() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.maxInFlight
}

// ---- out-of-band changes (drift) and failure injection ----

// SetPowerOutOfBand changes the power state as someone at the console would ("On" or "Off").
func (r *Redfish) SetPowerOutOfBand(state string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.record(RedfishChange{Source: "out-of-band", Property: "PowerState", Old: r.power, New: state})
	r.power = state
}

// SetBootOutOfBand changes the boot override behind the client's back.
func (r *Redfish) SetBootOutOfBand(target, enabled, mode string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.setBoot(RedfishChange{Source: "out-of-band"}, rfBoot{Target: target, Enabled: enabled, Mode: mode, UefiTarget: r.boot.UefiTarget})
}

// SetBIOSOutOfBand changes a current BIOS attribute (as a BIOS setup screen would).
func (r *Redfish) SetBIOSOutOfBand(name string, value any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.record(RedfishChange{Source: "out-of-band", Property: "Bios/Attributes/" + name, Old: rfString(r.bios[name]), New: rfString(value)})
	r.bios[name] = value
}

// SetAccountOutOfBand sets an account's role and whether it is enabled, as another administrator
// at the BMC would (or an earlier apply that demoted the provider's own login).
func (r *Redfish) SetAccountOutOfBand(user, role string, enabled bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, a := range r.accounts {
		if a.UserName == user {
			r.record(RedfishChange{Source: "out-of-band", Property: "AccountService/Accounts/" + a.ID + "/RoleId", Old: a.RoleID, New: role})
			a.RoleID, a.Enabled = role, enabled
		}
	}
}

// SetFirmwareOutOfBand changes the reported BMC and BIOS firmware versions (a firmware update).
func (r *Redfish) SetFirmwareOutOfBand(bmcFirmware, biosVersion string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.record(RedfishChange{Source: "out-of-band", Property: "Managers/FirmwareVersion", Old: r.bmcFW, New: bmcFirmware})
	r.record(RedfishChange{Source: "out-of-band", Property: "BiosVersion", Old: r.sysInfo["BiosVersion"], New: biosVersion})
	r.bmcFW = bmcFirmware
	r.sysInfo["BiosVersion"] = biosVersion
}

// Hang makes every request, new or in progress, wait without an answer until Unhang, the
// client giving up, or the end of the test: a BMC whose web server is wedged.
func (r *Redfish) Hang() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.hung == nil {
		r.hung = make(chan struct{})
	}
}

// Busy makes the next n requests fail with 503 Service Unavailable, as a BMC does while its web
// server restarts or its Redfish service is overloaded, with a Retry-After header of
// retryAfter ("" for none; seconds such as "1", or an HTTP date, RFC 9110 section 10.2.3).
func (r *Redfish) Busy(n int, retryAfter string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.busy, r.retryAfter = n, retryAfter
}

// FailNext makes the next n requests of the method ("" for any) fail with the HTTP status (500
// Internal Server Error, 502, 504: a BMC whose web server or Redfish service errs) before they
// are processed: nothing changes.
func (r *Redfish) FailNext(n, status int, method string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.failing, r.failStatus, r.failMethod = n, status, method
}

// FailServed returns the requests FailNext failed, as "METHOD path".
func (r *Redfish) FailServed() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.failServed...)
}

// GarbleAfterApply makes the next n PATCH and POST requests (logins aside) take effect as usual
// and then answer a body that is not JSON, with the status they earned (status 0) or the status
// given (500: a BMC whose web server fails after its Redfish service did the work). Only a
// read-back can tell that the change landed.
func (r *Redfish) GarbleAfterApply(n, status int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.garble, r.garbleCode = n, status
}

// BusyServed returns how many 503 answers the rig gave, and when.
func (r *Redfish) BusyServed() (int, []time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.busyServed, append([]time.Time(nil), r.busyTimes...)
}

// Unhang releases hung requests and lets new ones through.
func (r *Redfish) Unhang() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.hung != nil {
		close(r.hung)
		r.hung = nil
	}
}

// ---- HTTP ----

type rfRequest struct {
	w    http.ResponseWriter
	req  *http.Request
	path string
	user *RedfishAccount
	body map[string]any
}

func (r *Redfish) serve(w http.ResponseWriter, req *http.Request) {
	r.mu.Lock()
	r.requests++
	r.inFlight++
	if r.inFlight > r.maxInFlight {
		r.maxInFlight = r.inFlight
	}
	hung := r.hung
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		r.inFlight--
		r.mu.Unlock()
	}()

	if hung != nil {
		select {
		case <-hung:
		case <-req.Context().Done():
			return
		case <-r.closed:
			return
		}
	}
	if r.opts.Latency > 0 {
		select {
		case <-time.After(r.opts.Latency):
		case <-req.Context().Done():
			return
		}
	}

	r.mu.Lock()
	if now := time.Now(); !now.Before(r.restartFrom) && r.rebootPending {
		// An update task's restart began: like Manager.Reset, it forgets every session.
		r.rebootPending = false
		r.sessions = map[string]*rfSession{}
		r.liveSessions = 0
	}
	if now := time.Now(); now.Before(r.restartUntil) && !now.Before(r.restartFrom) {
		r.mu.Unlock()
		rfError(w, http.StatusServiceUnavailable, "ServiceTemporarilyUnavailable", "The service is temporarily unavailable; retry the request later.", nil, nil)
		return
	}
	if r.failing > 0 && (r.failMethod == "" || r.failMethod == req.Method) {
		r.failing--
		r.failServed = append(r.failServed, req.Method+" "+req.URL.Path)
		st := r.failStatus
		r.mu.Unlock()
		rfError(w, st, "InternalError", "The request failed due to an internal service error; the service is still operational.", nil, nil)
		return
	}
	if r.garble > 0 && (req.Method == http.MethodPatch || req.Method == http.MethodPost) && strings.TrimRight(req.URL.Path, "/") != "/redfish/v1/SessionService/Sessions" {
		r.garble--
		code := r.garbleCode
		r.mu.Unlock()
		rec := httptest.NewRecorder()
		r.serve2(rec, req)
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.Header().Del("Content-Length")
		if code == 0 {
			code = rec.Code
		}
		w.WriteHeader(code)
		_, _ = io.WriteString(w, "<html><body>Redfish</body") // not JSON, and cut short
		return
	}
	if r.busy > 0 {
		r.busy--
		r.busyServed++
		r.busyTimes = append(r.busyTimes, time.Now())
		if r.retryAfter != "" {
			w.Header().Set("Retry-After", r.retryAfter)
		}
		r.mu.Unlock()
		rfError(w, http.StatusServiceUnavailable, "ServiceTemporarilyUnavailable", "The service is temporarily unavailable; retry the request later.", nil, nil)
		return
	}
	r.mu.Unlock()
	r.serve2(w, req)
}

// serve2 processes one request that reached the service (serve handles hangs, latency and the
// injected failures first).
func (r *Redfish) serve2(w http.ResponseWriter, req *http.Request) {
	p := strings.TrimRight(req.URL.Path, "/")
	if p == "" {
		p = "/"
	}
	rq := &rfRequest{w: w, req: req, path: p}
	w.Header().Set("OData-Version", "4.0")

	if req.Method == http.MethodPost || req.Method == http.MethodPatch {
		body, err := rfDecode(req)
		if err != nil {
			rfError(w, http.StatusBadRequest, "MalformedJSON", "The request body submitted was malformed JSON and could not be parsed by the receiving service.", nil, nil)
			return
		}
		rq.body = body
	}

	r.mu.Lock()
	defer r.mu.Unlock()

	// The service root, the version document and login are open to everyone, as the
	// specification requires; everything else needs a session token or basic credentials.
	public := (req.Method == http.MethodGet && (p == "/redfish" || p == "/redfish/v1")) ||
		(req.Method == http.MethodPost && p == "/redfish/v1/SessionService/Sessions")
	if !public {
		user, ok := r.authorize(req)
		if !ok {
			r.failedLogins++
			w.Header().Set("WWW-Authenticate", `Basic realm="Redfish"`)
			rfError(w, http.StatusUnauthorized, "NoValidSession", "There is no valid session established with the implementation.", nil, nil)
			return
		}
		rq.user = user
		if req.Method != http.MethodGet && req.Method != http.MethodHead && !rfPrivileged(user.RoleID, p) {
			rfError(w, http.StatusForbidden, "InsufficientPrivilege", "There are insufficient privileges for the account or credentials associated with the current session to perform the requested operation.", nil, nil)
			return
		}
	}
	r.route(rq)
}

// rfPrivileged applies the standard roles: ReadOnly reads, Operator also configures the system,
// Administrator also manages accounts and the manager.
func rfPrivileged(role, path string) bool {
	switch role {
	case "Administrator":
		return true
	case "Operator":
		return !strings.HasPrefix(path, "/redfish/v1/AccountService") && !strings.HasPrefix(path, "/redfish/v1/Managers")
	}
	return strings.HasPrefix(path, "/redfish/v1/SessionService/Sessions/") // ReadOnly may log out
}

func (r *Redfish) authorize(req *http.Request) (*RedfishAccount, bool) {
	if tok := req.Header.Get("X-Auth-Token"); tok != "" {
		s, ok := r.sessions[tok]
		if !ok {
			return nil, false
		}
		for _, a := range r.accounts {
			if a.UserName == s.User && a.Enabled {
				return a, true
			}
		}
		return nil, false
	}
	if u, p, ok := req.BasicAuth(); ok {
		if a := r.authenticate(u, p); a != nil {
			return a, true
		}
	}
	return nil, false
}

func (r *Redfish) authenticate(user, password string) *RedfishAccount {
	for _, a := range r.accounts {
		if a.Enabled && !a.Locked && a.UserName != "" && a.UserName == user &&
			subtle.ConstantTimeCompare([]byte(a.password), []byte(password)) == 1 {
			return a
		}
	}
	return nil
}

func (r *Redfish) route(rq *rfRequest) {
	const (
		root     = "/redfish/v1"
		sys      = root + "/Systems/1"
		sessions = root + "/SessionService/Sessions"
		accounts = root + "/AccountService/Accounts"
	)
	m, p := rq.req.Method, rq.path
	switch {
	case p == "/redfish":
		r.get(rq, map[string]any{"v1": "/redfish/v1/"}, "GET")
	case p == root:
		r.get(rq, r.serviceRoot(), "GET")
	case p == root+"/SessionService":
		r.get(rq, r.sessionService(), "GET")
	case p == sessions && m == http.MethodPost:
		r.login(rq)
	case p == sessions:
		r.get(rq, r.collection(sessions, "#SessionCollection.SessionCollection", "Session Collection", r.sessionIDs()), "GET, POST")
	case strings.HasPrefix(p, sessions+"/"):
		r.session(rq, strings.TrimPrefix(p, sessions+"/"))
	case p == root+"/Systems":
		r.get(rq, r.collection(root+"/Systems", "#ComputerSystemCollection.ComputerSystemCollection", "Computer System Collection", []string{"1"}), "GET")
	case p == sys && m == http.MethodPatch:
		r.patchSystem(rq)
	case p == sys:
		r.get(rq, r.system(), "GET, PATCH")
	case p == sys+"/Actions/ComputerSystem.Reset":
		r.reset(rq)
	case p == sys+"/Bios":
		r.get(rq, r.biosResource(false), "GET")
	case p == sys+"/Bios/Settings" && m == http.MethodPatch:
		r.patchBIOS(rq)
	case p == sys+"/Bios/Settings":
		r.get(rq, r.biosResource(true), "GET, PATCH")
	case p == root+"/Managers":
		r.get(rq, r.collection(root+"/Managers", "#ManagerCollection.ManagerCollection", "Manager Collection", []string{"1"}), "GET")
	case p == root+"/Managers/1":
		r.get(rq, r.manager(), "GET")
	case p == root+"/Managers/1/Actions/Manager.Reset":
		r.resetManager(rq)
	case p == root+"/Chassis":
		r.get(rq, r.collection(root+"/Chassis", "#ChassisCollection.ChassisCollection", "Chassis Collection", []string{"1"}), "GET")
	case p == root+"/Chassis/1":
		r.get(rq, r.chassis(), "GET")
	case p == root+"/AccountService":
		r.get(rq, r.accountService(), "GET")
	case p == accounts && m == http.MethodPost:
		r.createAccount(rq)
	case p == accounts:
		allow := "GET"
		if r.opts.PostAccounts {
			allow = "GET, POST"
		}
		ids := make([]string, 0, len(r.accounts))
		for _, a := range r.accounts {
			ids = append(ids, a.ID)
		}
		r.get(rq, r.collection(accounts, "#ManagerAccountCollection.ManagerAccountCollection", "Accounts Collection", ids), allow)
	case strings.HasPrefix(p, accounts+"/"):
		r.account(rq, strings.TrimPrefix(p, accounts+"/"))
	case r.routeUpdate(rq):
	default:
		rfError(rq.w, http.StatusNotFound, "ResourceMissingAtURI", fmt.Sprintf("The resource at the URI '%s' was not found.", p), []any{p}, nil)
	}
}

// get answers GET (and HEAD) with a resource and its ETag; other methods get 405.
func (r *Redfish) get(rq *rfRequest, body map[string]any, allow string) {
	if rq.req.Method != http.MethodGet && rq.req.Method != http.MethodHead {
		rq.w.Header().Set("Allow", allow)
		rfError(rq.w, http.StatusMethodNotAllowed, "OperationNotAllowed", "The HTTP method is not allowed on this resource.", nil, nil)
		return
	}
	rfWrite(rq.w, http.StatusOK, body)
}

// ifMatch enforces If-Match against the current representation of the target resource. A
// client that read an old version gets 412 and must read again: lost updates are refused.
func (r *Redfish) ifMatch(rq *rfRequest, current map[string]any) bool {
	h := rq.req.Header.Get("If-Match")
	if h == "" || h == "*" {
		return true
	}
	want := rfETag(current)
	for _, tag := range strings.Split(h, ",") {
		tag = strings.TrimPrefix(strings.TrimSpace(tag), "W/")
		if tag == want || strings.Trim(tag, `"`) == strings.Trim(want, `"`) {
			return true
		}
	}
	rfError(rq.w, http.StatusPreconditionFailed, "PreconditionFailed", "The ETag supplied did not match the ETag required to change this resource.", nil, nil)
	return false
}

func (r *Redfish) record(c RedfishChange) {
	c.Seq = len(r.changes) + 1
	r.changes = append(r.changes, c)
}

func (r *Redfish) apiChange(rq *rfRequest, property, before, after string) {
	user := ""
	if rq.user != nil {
		user = rq.user.UserName
	}
	r.record(RedfishChange{Source: "api", User: user, Method: rq.req.Method, Path: rq.path, Property: property, Old: before, New: after})
}

// ---- resources ----

func rfLink(p string) map[string]any { return map[string]any{"@odata.id": p} }

func rfStatus() map[string]any { return map[string]any{"State": "Enabled", "Health": "OK"} }

func (r *Redfish) collection(p, odataType, name string, ids []string) map[string]any {
	members := make([]any, 0, len(ids))
	for _, id := range ids {
		members = append(members, rfLink(p+"/"+id))
	}
	return map[string]any{
		"@odata.id": p, "@odata.type": odataType, "Name": name,
		"Members": members, "Members@odata.count": len(members),
	}
}

func (r *Redfish) serviceRoot() map[string]any {
	return map[string]any{
		"@odata.id": "/redfish/v1/", "@odata.type": "#ServiceRoot.v1_15_0.ServiceRoot",
		"Id": "RootService", "Name": "Root Service", "RedfishVersion": "1.15.0",
		"UUID":           "4c4c4544-0047-3610-8054-c4c04f4e5a31",
		"Product":        "gpucluster test BMC",
		"Vendor":         "gpucluster",
		"Systems":        rfLink("/redfish/v1/Systems"),
		"Chassis":        rfLink("/redfish/v1/Chassis"),
		"Managers":       rfLink("/redfish/v1/Managers"),
		"SessionService": rfLink("/redfish/v1/SessionService"),
		"AccountService": rfLink("/redfish/v1/AccountService"),
		"UpdateService":  rfLink("/redfish/v1/UpdateService"),
		"Tasks":          rfLink("/redfish/v1/TaskService"),
		"Links":          map[string]any{"Sessions": rfLink("/redfish/v1/SessionService/Sessions")},
	}
}

func (r *Redfish) sessionService() map[string]any {
	return map[string]any{
		"@odata.id": "/redfish/v1/SessionService", "@odata.type": "#SessionService.v1_1_8.SessionService",
		"Id": "SessionService", "Name": "Session Service", "Status": rfStatus(),
		"ServiceEnabled": true, "SessionTimeout": 1800,
		"Sessions": rfLink("/redfish/v1/SessionService/Sessions"),
	}
}

func (r *Redfish) sessionIDs() []string {
	ids := make([]string, 0, len(r.sessions))
	for _, s := range r.sessions {
		ids = append(ids, s.ID)
	}
	sort.Strings(ids)
	return ids
}

func (r *Redfish) sessionBody(s *rfSession) map[string]any {
	return map[string]any{
		"@odata.id": "/redfish/v1/SessionService/Sessions/" + s.ID, "@odata.type": "#Session.v1_6_0.Session",
		"Id": s.ID, "Name": "User Session", "UserName": s.User, "Password": nil,
		"CreatedTime": s.Created.UTC().Format(time.RFC3339), "SessionType": "Redfish",
	}
}

func (r *Redfish) login(rq *rfRequest) {
	user, _ := rq.body["UserName"].(string)
	pass, _ := rq.body["Password"].(string)
	acct := r.authenticate(user, pass)
	if acct == nil {
		r.failedLogins++
		rfError(rq.w, http.StatusUnauthorized, "ResourceAtUriUnauthorized", "While accessing the resource at '/redfish/v1/SessionService/Sessions', the service received an authorization error 'invalid credentials'.", nil, nil)
		return
	}
	r.nextSess++
	tokenBytes := make([]byte, 24)
	_, _ = rand.Read(tokenBytes)
	s := &rfSession{ID: strconv.Itoa(r.nextSess), Token: hex.EncodeToString(tokenBytes), User: acct.UserName, Created: time.Now()}
	r.sessions[s.Token] = s
	r.sessionsCreated++
	r.liveSessions++
	if r.liveSessions > r.maxLiveSessions {
		r.maxLiveSessions = r.liveSessions
	}
	loc := "/redfish/v1/SessionService/Sessions/" + s.ID
	rq.w.Header().Set("X-Auth-Token", s.Token)
	rq.w.Header().Set("Location", loc)
	rfWrite(rq.w, http.StatusCreated, r.sessionBody(s))
}

func (r *Redfish) session(rq *rfRequest, id string) {
	var found *rfSession
	for _, s := range r.sessions {
		if s.ID == id {
			found = s
		}
	}
	if found == nil {
		rfError(rq.w, http.StatusNotFound, "ResourceMissingAtURI", fmt.Sprintf("The resource at the URI '%s' was not found.", rq.path), []any{rq.path}, nil)
		return
	}
	switch rq.req.Method {
	case http.MethodGet, http.MethodHead:
		rfWrite(rq.w, http.StatusOK, r.sessionBody(found))
	case http.MethodDelete:
		if rq.user.RoleID != "Administrator" && rq.user.UserName != found.User {
			rfError(rq.w, http.StatusForbidden, "InsufficientPrivilege", "There are insufficient privileges for the account or credentials associated with the current session to perform the requested operation.", nil, nil)
			return
		}
		delete(r.sessions, found.Token)
		r.liveSessions--
		rq.w.WriteHeader(http.StatusNoContent)
	default:
		rq.w.Header().Set("Allow", "GET, DELETE")
		rfError(rq.w, http.StatusMethodNotAllowed, "OperationNotAllowed", "The HTTP method is not allowed on this resource.", nil, nil)
	}
}

func (r *Redfish) system() map[string]any {
	boot := map[string]any{
		"BootSourceOverrideTarget":                          r.boot.Target,
		"BootSourceOverrideTarget@Redfish.AllowableValues":  rfBootTargets,
		"BootSourceOverrideEnabled":                         r.boot.Enabled,
		"BootSourceOverrideEnabled@Redfish.AllowableValues": rfBootEnabled,
		"BootSourceOverrideMode":                            r.boot.Mode,
		"BootSourceOverrideMode@Redfish.AllowableValues":    rfBootModes,
	}
	if r.boot.UefiTarget != "" {
		boot["UefiTargetBootSourceOverride"] = r.boot.UefiTarget
	}
	return map[string]any{
		"@odata.id": "/redfish/v1/Systems/1", "@odata.type": "#ComputerSystem.v1_20_0.ComputerSystem",
		"Id": "1", "Name": "System", "SystemType": "Physical",
		"Manufacturer": r.sysInfo["Manufacturer"], "Model": r.sysInfo["Model"],
		"SerialNumber": r.sysInfo["SerialNumber"], "SKU": r.sysInfo["SKU"], "UUID": r.sysInfo["UUID"],
		"BiosVersion": r.sysInfo["BiosVersion"],
		"PowerState":  r.power,
		"Status":      rfStatus(),
		"Boot":        boot,
		"Bios":        rfLink("/redfish/v1/Systems/1/Bios"),
		"Links": map[string]any{
			"Chassis":   []any{rfLink("/redfish/v1/Chassis/1")},
			"ManagedBy": []any{rfLink("/redfish/v1/Managers/1")},
		},
		"Actions": map[string]any{
			"#ComputerSystem.Reset": map[string]any{
				"target":                            "/redfish/v1/Systems/1/Actions/ComputerSystem.Reset",
				"ResetType@Redfish.AllowableValues": rfResetTypes,
			},
		},
	}
}

// rfSystemReadOnly are the properties of a ComputerSystem that a PATCH may not change.
var rfSystemReadOnly = []string{"@odata.id", "@odata.type", "Id", "Name", "SystemType", "Manufacturer", "Model", "SerialNumber", "SKU", "UUID", "BiosVersion", "PowerState", "Status", "Bios", "Links", "Actions"}

func (r *Redfish) patchSystem(rq *rfRequest) {
	if !r.ifMatch(rq, r.system()) {
		return
	}
	nb := r.boot
	for k, v := range rq.body {
		switch k {
		case "Boot":
			bm, ok := v.(map[string]any)
			if !ok {
				rfError(rq.w, http.StatusBadRequest, "PropertyValueTypeError", "The value for the property Boot is of a different type than the property can accept.", []any{"Boot"}, []string{"/Boot"})
				return
			}
			for bk, bv := range bm {
				s, isString := bv.(string)
				prop := "/Boot/" + bk
				var allowed []string
				var dst *string
				switch bk {
				case "BootSourceOverrideTarget":
					allowed, dst = rfBootTargets, &nb.Target
				case "BootSourceOverrideEnabled":
					allowed, dst = rfBootEnabled, &nb.Enabled
				case "BootSourceOverrideMode":
					allowed, dst = rfBootModes, &nb.Mode
				case "UefiTargetBootSourceOverride":
					dst = &nb.UefiTarget
				default:
					if strings.Contains(bk, "@") {
						rfError(rq.w, http.StatusBadRequest, "PropertyNotWritable", fmt.Sprintf("The property %s is a read only property and cannot be assigned a value.", bk), []any{bk}, []string{prop})
					} else {
						rfError(rq.w, http.StatusBadRequest, "PropertyUnknown", fmt.Sprintf("The property %s is not in the list of valid properties for the resource.", bk), []any{bk}, []string{prop})
					}
					return
				}
				if !isString {
					rfError(rq.w, http.StatusBadRequest, "PropertyValueTypeError", fmt.Sprintf("The value '%v' for the property %s is of a different type than the property can accept.", bv, bk), []any{fmt.Sprint(bv), bk}, []string{prop})
					return
				}
				if allowed != nil && !slices.Contains(allowed, s) {
					rfError(rq.w, http.StatusBadRequest, "PropertyValueNotInList", fmt.Sprintf("The value '%s' for the property %s is not in the list of acceptable values.", s, bk), []any{s, bk}, []string{prop})
					return
				}
				*dst = s
			}
		case "AssetTag", "HostName":
			// Accepted and ignored: nothing in the rig depends on them.
		default:
			if slices.Contains(rfSystemReadOnly, k) {
				rfError(rq.w, http.StatusBadRequest, "PropertyNotWritable", fmt.Sprintf("The property %s is a read only property and cannot be assigned a value.", k), []any{k}, []string{"/" + k})
			} else {
				rfError(rq.w, http.StatusBadRequest, "PropertyUnknown", fmt.Sprintf("The property %s is not in the list of valid properties for the resource.", k), []any{k}, []string{"/" + k})
			}
			return
		}
	}
	r.setBoot(RedfishChange{Source: "api", User: rq.user.UserName, Method: rq.req.Method, Path: rq.path}, nb)
	rfWrite(rq.w, http.StatusOK, r.system())
}

func (r *Redfish) setBoot(base RedfishChange, nb rfBoot) {
	for _, f := range []struct{ name, old, new string }{
		{"Boot/BootSourceOverrideTarget", r.boot.Target, nb.Target},
		{"Boot/BootSourceOverrideEnabled", r.boot.Enabled, nb.Enabled},
		{"Boot/BootSourceOverrideMode", r.boot.Mode, nb.Mode},
		{"Boot/UefiTargetBootSourceOverride", r.boot.UefiTarget, nb.UefiTarget},
	} {
		if f.old != f.new {
			c := base
			c.Property, c.Old, c.New = f.name, f.old, f.new
			r.record(c)
		}
	}
	r.boot = nb
}

func (r *Redfish) reset(rq *rfRequest) {
	if rq.req.Method != http.MethodPost {
		rq.w.Header().Set("Allow", "POST")
		rfError(rq.w, http.StatusMethodNotAllowed, "OperationNotAllowed", "The HTTP method is not allowed on this resource.", nil, nil)
		return
	}
	// gofish sends the system's ETag with actions on it; an out-of-date one is refused.
	if !r.ifMatch(rq, r.system()) {
		return
	}
	v, present := rq.body["ResetType"]
	if !present {
		rfError(rq.w, http.StatusBadRequest, "ActionParameterMissing", "The action ComputerSystem.Reset requires the parameter ResetType to be present in the request body.", []any{"ComputerSystem.Reset", "ResetType"}, []string{"/ResetType"})
		return
	}
	rt, _ := v.(string)
	if !slices.Contains(rfResetTypes, rt) {
		rfError(rq.w, http.StatusBadRequest, "ActionParameterValueNotInList", fmt.Sprintf("The value '%v' for the parameter ResetType in the action ComputerSystem.Reset is not in the list of acceptable values.", v), []any{fmt.Sprint(v), "ResetType", "ComputerSystem.Reset"}, []string{"/ResetType"})
		return
	}
	r.resets = append(r.resets, "ComputerSystem.Reset "+rt)
	old := r.power
	boots := false
	switch rt {
	case "On", "ForceOn":
		boots = old == "Off"
		r.power = "On"
	case "ForceOff", "GracefulShutdown":
		r.power = "Off"
	case "GracefulRestart", "ForceRestart", "PowerCycle":
		boots = true
		r.power = "On"
	case "PushPowerButton":
		if old == "On" {
			r.power = "Off"
		} else {
			r.power = "On"
			boots = true
		}
	case "Nmi":
	}
	if old != r.power {
		r.apiChange(rq, "PowerState", old, r.power)
	}
	if boots {
		r.hostBoots(rq)
	}
	rq.w.WriteHeader(http.StatusNoContent)
}

// hostBoots applies what a real host applies when it goes through POST: pending BIOS settings
// and, when enabled, the consumption of a one-time boot override.
func (r *Redfish) hostBoots(rq *rfRequest) {
	names := make([]string, 0, len(r.pending))
	for k := range r.pending {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		if rfString(r.bios[k]) != rfString(r.pending[k]) {
			r.apiChange(rq, "Bios/Attributes/"+k, rfString(r.bios[k]), rfString(r.pending[k]))
		}
		r.bios[k] = r.pending[k]
	}
	r.pending = map[string]any{}
	if r.opts.ConsumeOnceOverride && r.boot.Enabled == "Once" {
		nb := r.boot
		nb.Enabled, nb.Target = "Disabled", "None"
		r.setBoot(RedfishChange{Source: "api", User: rq.user.UserName, Method: rq.req.Method, Path: rq.path}, nb)
	}
}

func (r *Redfish) biosResource(settings bool) map[string]any {
	attrs := rfCopyMap(r.bios)
	if settings {
		for k, v := range r.pending {
			attrs[k] = v
		}
		return map[string]any{
			"@odata.id": "/redfish/v1/Systems/1/Bios/Settings", "@odata.type": "#Bios.v1_2_0.Bios",
			"Id": "Settings", "Name": "BIOS Configuration Pending Settings",
			"AttributeRegistry": "BiosAttributeRegistryGPU.v1_0_0", "Attributes": attrs,
		}
	}
	return map[string]any{
		"@odata.id": "/redfish/v1/Systems/1/Bios", "@odata.type": "#Bios.v1_2_0.Bios",
		"Id": "Bios", "Name": "BIOS Configuration Current Settings",
		"AttributeRegistry": "BiosAttributeRegistryGPU.v1_0_0", "Attributes": attrs,
		"@Redfish.Settings": map[string]any{
			"@odata.type":         "#Settings.v1_3_5.Settings",
			"SettingsObject":      rfLink("/redfish/v1/Systems/1/Bios/Settings"),
			"SupportedApplyTimes": []string{"OnReset", "Immediate"},
		},
	}
}

func (r *Redfish) patchBIOS(rq *rfRequest) {
	if !r.ifMatch(rq, r.biosResource(true)) {
		return
	}
	applyNow := false
	var attrs map[string]any
	for k, v := range rq.body {
		switch k {
		case "Attributes":
			m, ok := v.(map[string]any)
			if !ok {
				rfError(rq.w, http.StatusBadRequest, "PropertyValueTypeError", "The value for the property Attributes is of a different type than the property can accept.", []any{"Attributes"}, []string{"/Attributes"})
				return
			}
			attrs = m
		case "@Redfish.SettingsApplyTime":
			m, _ := v.(map[string]any)
			at, _ := m["ApplyTime"].(string)
			switch at {
			case "Immediate":
				applyNow = true
			case "OnReset":
			default:
				rfError(rq.w, http.StatusBadRequest, "PropertyValueNotInList", fmt.Sprintf("The value '%v' for the property ApplyTime is not in the list of acceptable values.", m["ApplyTime"]), []any{fmt.Sprint(m["ApplyTime"]), "ApplyTime"}, []string{"/@Redfish.SettingsApplyTime/ApplyTime"})
				return
			}
		default:
			rfError(rq.w, http.StatusBadRequest, "PropertyUnknown", fmt.Sprintf("The property %s is not in the list of valid properties for the resource.", k), []any{k}, []string{"/" + k})
			return
		}
	}
	// Validate everything before changing anything: a rejected PATCH changes nothing.
	for k, v := range attrs {
		reg, ok := rfBIOSRegistry[k]
		if !ok {
			rfError(rq.w, http.StatusBadRequest, "PropertyUnknown", fmt.Sprintf("The property %s is not in the list of valid properties for the resource.", k), []any{k}, []string{"/Attributes/" + k})
			return
		}
		if fmt.Sprintf("%T", v) != fmt.Sprintf("%T", reg.def) {
			rfError(rq.w, http.StatusBadRequest, "PropertyValueTypeError", fmt.Sprintf("The value '%v' for the property %s is of a different type than the property can accept.", v, k), []any{fmt.Sprint(v), k}, []string{"/Attributes/" + k})
			return
		}
		if s, isString := v.(string); isString && reg.allowed != nil && !slices.Contains(reg.allowed, s) {
			rfError(rq.w, http.StatusBadRequest, "PropertyValueNotInList", fmt.Sprintf("The value '%s' for the property %s is not in the list of acceptable values.", s, k), []any{s, k}, []string{"/Attributes/" + k})
			return
		}
	}
	names := make([]string, 0, len(attrs))
	for k := range attrs {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		v := attrs[k]
		if applyNow {
			if rfString(r.bios[k]) != rfString(v) {
				r.apiChange(rq, "Bios/Attributes/"+k, rfString(r.bios[k]), rfString(v))
			}
			r.bios[k] = v
			delete(r.pending, k)
			continue
		}
		old := r.bios[k]
		if p, ok := r.pending[k]; ok {
			old = p
		}
		if rfString(old) != rfString(v) {
			r.apiChange(rq, "Bios/Settings/Attributes/"+k, rfString(old), rfString(v))
		}
		r.pending[k] = v
	}
	rfWrite(rq.w, http.StatusOK, r.biosResource(true))
}

func (r *Redfish) manager() map[string]any {
	return map[string]any{
		"@odata.id": "/redfish/v1/Managers/1", "@odata.type": "#Manager.v1_17_0.Manager",
		"Id": "1", "Name": "Manager", "ManagerType": "BMC", "Description": "Baseboard Management Controller",
		"Model": "AST2600", "FirmwareVersion": r.bmcFW, "PowerState": "On", "Status": rfStatus(),
		"Links": map[string]any{"ManagerForServers": []any{rfLink("/redfish/v1/Systems/1")}},
		"Actions": map[string]any{
			"#Manager.Reset": map[string]any{
				"target":                            "/redfish/v1/Managers/1/Actions/Manager.Reset",
				"ResetType@Redfish.AllowableValues": rfManagerResetTypes,
			},
		},
	}
}

// rfManagerResetTypes are the resets a BMC offers of itself (DSP2046, Manager.Reset).
var rfManagerResetTypes = []string{"GracefulRestart", "ForceRestart"}

// resetManager restarts the BMC: it forgets every session and answers nothing but 503 for
// RestartTime. The host is not touched.
func (r *Redfish) resetManager(rq *rfRequest) {
	if rq.req.Method != http.MethodPost {
		rq.w.Header().Set("Allow", "POST")
		rfError(rq.w, http.StatusMethodNotAllowed, "OperationNotAllowed", "The HTTP method is not allowed on this resource.", nil, nil)
		return
	}
	rt, _ := rq.body["ResetType"].(string)
	if _, present := rq.body["ResetType"]; present && !slices.Contains(rfManagerResetTypes, rt) {
		rfError(rq.w, http.StatusBadRequest, "ActionParameterValueNotInList", fmt.Sprintf("The value '%v' for the parameter ResetType in the action Manager.Reset is not in the list of acceptable values.", rq.body["ResetType"]), []any{fmt.Sprint(rq.body["ResetType"]), "ResetType", "Manager.Reset"}, []string{"/ResetType"})
		return
	}
	if rt == "" {
		rt = "GracefulRestart"
	}
	r.resets = append(r.resets, "Manager.Reset "+rt)
	d := r.opts.RestartTime
	if d <= 0 {
		d = 300 * time.Millisecond
	}
	r.restartFrom, r.restartUntil = time.Time{}, time.Now().Add(d)
	r.sessions = map[string]*rfSession{}
	r.liveSessions = 0
	rq.w.WriteHeader(http.StatusNoContent)
}

// Resets lists every reset the rig accepted, in order: "ComputerSystem.Reset ForceRestart" for
// the host, "Manager.Reset GracefulRestart" for the BMC itself.
func (r *Redfish) Resets() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.resets...)
}

func (r *Redfish) chassis() map[string]any {
	return map[string]any{
		"@odata.id": "/redfish/v1/Chassis/1", "@odata.type": "#Chassis.v1_23_0.Chassis",
		"Id": "1", "Name": "Chassis", "ChassisType": "RackMount",
		"Manufacturer": r.sysInfo["Manufacturer"], "Model": r.sysInfo["Model"], "SerialNumber": r.sysInfo["SerialNumber"],
		"PowerState": r.power, "Status": rfStatus(),
		"Links": map[string]any{
			"ComputerSystems": []any{rfLink("/redfish/v1/Systems/1")},
			"ManagedBy":       []any{rfLink("/redfish/v1/Managers/1")},
		},
	}
}

func (r *Redfish) accountService() map[string]any {
	return map[string]any{
		"@odata.id": "/redfish/v1/AccountService", "@odata.type": "#AccountService.v1_12_0.AccountService",
		"Id": "AccountService", "Name": "Account Service", "Status": rfStatus(),
		"ServiceEnabled": true, "MinPasswordLength": 8, "MaxPasswordLength": 20,
		"LocalAccountAuth": "Enabled",
		"Accounts":         rfLink("/redfish/v1/AccountService/Accounts"),
	}
}

func (r *Redfish) accountBody(a *RedfishAccount) map[string]any {
	return map[string]any{
		"@odata.id": "/redfish/v1/AccountService/Accounts/" + a.ID, "@odata.type": "#ManagerAccount.v1_10_0.ManagerAccount",
		"Id": a.ID, "Name": "User Account", "Description": "User Account",
		"Enabled": a.Enabled, "Password": nil, "UserName": a.UserName, "RoleId": a.RoleID,
		"Locked": a.Locked, "AccountTypes": a.AccountTypes,
		"Links": map[string]any{"Role": rfLink("/redfish/v1/AccountService/Roles/" + a.RoleID)},
	}
}

func (r *Redfish) findAccount(id string) *RedfishAccount {
	for _, a := range r.accounts {
		if a.ID == id {
			return a
		}
	}
	return nil
}

func (r *Redfish) account(rq *rfRequest, id string) {
	a := r.findAccount(id)
	if a == nil {
		rfError(rq.w, http.StatusNotFound, "ResourceMissingAtURI", fmt.Sprintf("The resource at the URI '%s' was not found.", rq.path), []any{rq.path}, nil)
		return
	}
	switch rq.req.Method {
	case http.MethodGet, http.MethodHead:
		rfWrite(rq.w, http.StatusOK, r.accountBody(a))
	case http.MethodPatch:
		if !r.ifMatch(rq, r.accountBody(a)) {
			return
		}
		next := *a
		if !r.applyAccount(rq, &next, rq.body) {
			return
		}
		r.commitAccount(rq, a, &next)
		rfWrite(rq.w, http.StatusOK, r.accountBody(a))
	case http.MethodDelete:
		if !r.opts.PostAccounts {
			rq.w.Header().Set("Allow", "GET, PATCH")
			rfError(rq.w, http.StatusMethodNotAllowed, "OperationNotAllowed", "The HTTP method is not allowed on this resource.", nil, nil)
			return
		}
		r.apiChange(rq, "Accounts/"+a.ID, a.UserName, "(deleted)")
		r.accounts = slices.DeleteFunc(r.accounts, func(x *RedfishAccount) bool { return x == a })
		rq.w.WriteHeader(http.StatusNoContent)
	default:
		rq.w.Header().Set("Allow", "GET, PATCH")
		rfError(rq.w, http.StatusMethodNotAllowed, "OperationNotAllowed", "The HTTP method is not allowed on this resource.", nil, nil)
	}
}

// applyAccount validates a PATCH or POST body into next; it answers the error itself. The
// password is never echoed, in messages as in resources.
func (r *Redfish) applyAccount(rq *rfRequest, next *RedfishAccount, body map[string]any) bool {
	bad := func(id, msg, prop string, args ...any) bool {
		rfError(rq.w, http.StatusBadRequest, id, msg, args, []string{"/" + prop})
		return false
	}
	for k, v := range body {
		switch k {
		case "UserName":
			s, ok := v.(string)
			if !ok {
				return bad("PropertyValueTypeError", "The value for the property UserName is of a different type than the property can accept.", k, k)
			}
			for _, o := range r.accounts {
				if o.ID != next.ID && s != "" && o.UserName == s {
					rfError(rq.w, http.StatusBadRequest, "ResourceAlreadyExists", "The requested resource already exists.", []any{"ManagerAccount", "UserName", s}, []string{"/UserName"})
					return false
				}
			}
			next.UserName = s
		case "Password":
			s, ok := v.(string)
			if !ok {
				return bad("PropertyValueTypeError", "The value for the property Password is of a different type than the property can accept.", k, k)
			}
			// An empty password clears a slot (bmclib's delete); otherwise the service's length
			// limits apply.
			if s != "" && (len(s) < 8 || len(s) > 20) {
				return bad("PropertyValueFormatError", "The value provided for the property Password is not in a format that the property can accept: it must be 8 to 20 characters.", k, "(hidden)", k)
			}
			next.password = s
		case "RoleId":
			s, _ := v.(string)
			if !slices.Contains(rfRoles, s) {
				return bad("PropertyValueNotInList", fmt.Sprintf("The value '%v' for the property RoleId is not in the list of acceptable values.", v), k, fmt.Sprint(v), k)
			}
			next.RoleID = s
		case "Enabled", "Locked":
			b, ok := v.(bool)
			if !ok {
				return bad("PropertyValueTypeError", fmt.Sprintf("The value '%v' for the property %s is of a different type than the property can accept.", v, k), k, fmt.Sprint(v), k)
			}
			if k == "Enabled" {
				next.Enabled = b
			} else {
				next.Locked = b
			}
		case "AccountTypes":
			list, ok := v.([]any)
			if !ok {
				return bad("PropertyValueTypeError", "The value for the property AccountTypes is of a different type than the property can accept.", k, k)
			}
			var types []string
			for _, e := range list {
				s, _ := e.(string)
				if !slices.Contains(rfAcctTypes, s) {
					return bad("PropertyValueNotInList", fmt.Sprintf("The value '%v' for the property AccountTypes is not in the list of acceptable values.", e), k, fmt.Sprint(e), k)
				}
				types = append(types, s)
			}
			next.AccountTypes = types
		case "PasswordChangeRequired":
		default:
			if slices.Contains([]string{"@odata.id", "@odata.type", "Id", "Name", "Description", "Links"}, k) {
				return bad("PropertyNotWritable", fmt.Sprintf("The property %s is a read only property and cannot be assigned a value.", k), k, k)
			}
			return bad("PropertyUnknown", fmt.Sprintf("The property %s is not in the list of valid properties for the resource.", k), k, k)
		}
	}
	if next.Enabled && (next.UserName == "" || next.password == "") {
		return bad("PropertyMissing", "The property UserName or Password is required to enable an account.", "UserName", "UserName")
	}
	return true
}

func (r *Redfish) commitAccount(rq *rfRequest, a, next *RedfishAccount) {
	prefix := "Accounts/" + a.ID + "/"
	if a.UserName != next.UserName {
		r.apiChange(rq, prefix+"UserName", a.UserName, next.UserName)
	}
	if a.password != next.password {
		r.apiChange(rq, prefix+"Password", "", "(set)")
	}
	if a.RoleID != next.RoleID {
		r.apiChange(rq, prefix+"RoleId", a.RoleID, next.RoleID)
	}
	if a.Enabled != next.Enabled {
		r.apiChange(rq, prefix+"Enabled", strconv.FormatBool(a.Enabled), strconv.FormatBool(next.Enabled))
	}
	if a.Locked != next.Locked {
		r.apiChange(rq, prefix+"Locked", strconv.FormatBool(a.Locked), strconv.FormatBool(next.Locked))
	}
	*a = *next
}

func (r *Redfish) createAccount(rq *rfRequest) {
	if !r.opts.PostAccounts {
		rq.w.Header().Set("Allow", "GET")
		rfError(rq.w, http.StatusMethodNotAllowed, "OperationNotAllowed", "The HTTP method is not allowed on this resource: accounts live in fixed slots, PATCH an empty one.", nil, nil)
		return
	}
	for _, req := range []string{"UserName", "Password", "RoleId"} {
		if _, ok := rq.body[req]; !ok {
			rfError(rq.w, http.StatusBadRequest, "PropertyMissing", fmt.Sprintf("The property %s is a required property and must be included in the request.", req), []any{req}, []string{"/" + req})
			return
		}
	}
	next := &RedfishAccount{ID: strconv.Itoa(r.nextAcct), Enabled: true, AccountTypes: []string{"Redfish"}}
	if !r.applyAccount(rq, next, rq.body) {
		return
	}
	r.nextAcct++
	blank := &RedfishAccount{ID: next.ID}
	r.accounts = append(r.accounts, blank)
	r.commitAccount(rq, blank, next)
	rq.w.Header().Set("Location", "/redfish/v1/AccountService/Accounts/"+next.ID)
	rfWrite(rq.w, http.StatusCreated, r.accountBody(blank))
}

// ---- encoding ----

func rfDecode(req *http.Request) (map[string]any, error) {
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(http.MaxBytesReader(nil, req.Body, 1<<20)); err != nil {
		return nil, err
	}
	if buf.Len() == 0 {
		return map[string]any{}, nil
	}
	var m map[string]any
	if err := json.Unmarshal(buf.Bytes(), &m); err != nil {
		return nil, err
	}
	if m == nil {
		m = map[string]any{}
	}
	return m, nil
}

// rfETag is a strong ETag over the resource's JSON (encoding/json sorts map keys, so equal
// resources give equal tags).
func rfETag(body map[string]any) string {
	b, _ := json.Marshal(body)
	h := fnv.New64a()
	_, _ = h.Write(b)
	return fmt.Sprintf(`"%016x"`, h.Sum64())
}

func rfWrite(w http.ResponseWriter, status int, body map[string]any) {
	b, err := json.Marshal(body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("ETag", rfETag(body))
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// rfError writes a Redfish error response with one message from the Base registry.
func rfError(w http.ResponseWriter, status int, id, msg string, args []any, related []string) {
	if args == nil {
		args = []any{}
	}
	info := map[string]any{
		"@odata.type": "#Message.v1_1_1.Message", "MessageId": "Base.1.15." + id,
		"Message": msg, "MessageArgs": args, "MessageSeverity": "Critical", "Severity": "Critical",
		"Resolution": "Correct the request and resubmit it.",
	}
	if status < 500 && status != http.StatusUnauthorized && status != http.StatusForbidden {
		info["MessageSeverity"], info["Severity"] = "Warning", "Warning"
	}
	if related != nil {
		info["RelatedProperties"] = related
	}
	b, _ := json.Marshal(map[string]any{"error": map[string]any{
		"code": "Base.1.15." + id, "message": msg, "@Message.ExtendedInfo": []any{info},
	}})
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

func rfCopyMap(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func rfString(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	default:
		return fmt.Sprint(x)
	}
}

// Addr returns host:port of the i-th listener.
func (r *Redfish) Addr(i int) string {
	return net.JoinHostPort(r.Host, strconv.Itoa(r.Ports[i]))
}

// String names the rig in test logs.
func (r *Redfish) String() string {
	return "redfish rig " + (&url.URL{Scheme: "https", Host: r.Addr(0)}).String()
}
