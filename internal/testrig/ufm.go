package testrig

// A UFM REST test service: the PKey part of NVIDIA UFM Enterprise's REST API, on HTTPS on
// loopback. UFM is licensed software with no package to run, so this service is written after
// NVIDIA's published API and the request shapes of NVIDIA's own clients; every path, body and
// status below cites its source (collected in /work/shared/reference/wave4-facts.md section 1):
//
//   [DOC-AUTH]  UFM Enterprise User Manual v6.24.1, "Authentication Methods": /ufmRest is basic
//               authentication, /ufmRestV3 is token authentication.
//   [DOC-PKEY]  UFM Enterprise REST API guide v6.22.1 / Latest, "PKey GUIDs Rest API".
//   [SDK]       Mellanox/ufm_sdk_3.0 @3e96418e utils/ufm_rest_client.py (token sent as
//               "Authorization: Basic <token>" to /ufmRestV3; POST app/tokens -> access_token;
//               401 means wrong credentials) and scripts/ufm_pkeys/ufm_pkeys.py (DELETE of an
//               absent pkey is 404).
//   [NCX]       NVIDIA/ncx-infra-controller-core @7f17b53f crates/ib-fabric/src/ib/ufmclient/mod.rs
//               (response shapes; lower-case unpadded pkey keys; "0x7fff" named "management";
//               the 200-with-{} not-found quirk; guids_data and qos_conf together unsupported,
//               nvbug 5409095; PUT resources/pkeys/qos_conf body).
//   [IBK8S]     Mellanox/ib-kubernetes @528f63f6 pkg/sm/plugins/ufm/ufm.go (POST resources/pkeys
//               with guids, membership, index0, ip_over_ib -> 200; app/ufm_version;
//               POST actions/remove_guids_from_pkey).
//   [MLNXBM]    IamFive/networking-mlnx-baremetal @fb9b8494 ufmclient/modules/resources/pkey.py
//               (DELETE resources/pkeys/<pkey>/guids/<guid1>,<guid2>,...).
//   [NVCM]      NVIDIA nv-config-manager's mock UFM (module docstring): a partition is removed
//               with its last member, and POST applies one membership to all GUIDs. UNCONFIRMED
//               by NVIDIA's docs; AutoRemoveEmpty follows it and can be turned off.

import (
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// UFMOptions configure the UFM test service.
type UFMOptions struct {
	Username, Password string // basic authentication on /ufmRest; defaults admin / a fixed password
	Token              string // token accepted on /ufmRestV3; default a fixed token
	// KeepEmpty keeps a PKey whose last GUID is removed; by default it goes, as [NVCM] says UFM
	// does.
	KeepEmpty bool
}

// UFMGUID is one GUID of a PKey as UFM reports it ([NCX] PartitionData.guids).
type UFMGUID struct {
	GUID       string `json:"guid"` // 16 lower-case hex digits, no 0x, no colons ([IBK8S] GUIDToString)
	Index0     bool   `json:"index0"`
	Membership string `json:"membership"` // "full" or "limited"
}

// UFMPKey is one PKey the service holds.
type UFMPKey struct {
	Name         string
	IPoIB        bool
	MTULimit     int     // KiB, "2k or 4k" ([NCX] update_partition_qos; [DOC-PKEY] example "mtu_limit":2)
	RateLimit    float64 // Gb/s ([NCX] update_partition_qos comment lists the values)
	ServiceLevel int
	GUIDs        []UFMGUID
}

// UFM is a running UFM REST test service.
type UFM struct {
	URL                string // https://127.0.0.1:port
	CAPEM              string // the CA that signed the service's certificate
	Username, Password string
	Token              string

	opts   UFMOptions
	srv    *httptest.Server
	closed chan struct{}

	mu        sync.Mutex
	pkeys     map[uint16]*UFMPKey
	requests  []string // "METHOD path" of every authenticated request
	failing   int
	failCode  int
	failMatch string // "METHOD path" the failure applies to ("" = any)
	failSkip  int    // matching requests still let through before failing
	hung      chan struct{}
	emptyOK   bool // answer a missing PKey with 200 {} ([NCX] quirk) instead of 404
}

// StartUFM starts the service on loopback with TLS (trust it with CAPEM) and stops it when the
// test ends. It holds the management PKey 0x7fff as every UFM does ([NCX] list ?guids_data=true).
func StartUFM(t TB, opts UFMOptions) *UFM {
	t.Helper()
	if opts.Username == "" {
		opts.Username = "admin"
	}
	if opts.Password == "" {
		opts.Password = "Ufm-adm1n-pw"
	}
	if opts.Token == "" {
		opts.Token = "3Xb0ufmTok3nForTests0nly"
	}
	u := &UFM{Username: opts.Username, Password: opts.Password, Token: opts.Token, opts: opts,
		closed: make(chan struct{}),
		pkeys:  map[uint16]*UFMPKey{0x7fff: {Name: "management", IPoIB: true, MTULimit: 2, RateLimit: 2.5}}}
	caPEM, cert := rfCertificates(t) // the same loopback CA and certificate maker as the Redfish rig
	u.CAPEM = caPEM
	u.srv = httptest.NewUnstartedServer(http.HandlerFunc(u.serve))
	u.srv.TLS = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	u.srv.Config.ErrorLog = log.New(io.Discard, "", 0) // refused handshakes are tested on purpose
	u.srv.StartTLS()
	addr, ok := u.srv.Listener.Addr().(*net.TCPAddr)
	if !ok {
		t.Fatalf("ufm: listener address %v is not TCP", u.srv.Listener.Addr())
	}
	u.URL = "https://" + net.JoinHostPort("127.0.0.1", strconv.Itoa(addr.Port))
	t.Cleanup(u.stop)
	return u
}

func (u *UFM) stop() {
	select {
	case <-u.closed:
		return
	default:
	}
	close(u.closed)
	u.srv.CloseClientConnections()
	u.srv.Close()
}

// ---- fault modes and out-of-band changes ----

// FailNext answers the next n requests matching "METHOD path" exactly (path after the auth
// prefix, without the query, e.g. "POST /resources/pkeys"; "" matches any) with status (500,
// 401...).
func (u *UFM) FailNext(n, status int, match string) { u.FailAfter(0, n, status, match) }

// FailAfter lets skip matching requests through, then fails the n after them: a batch that
// fails half way.
func (u *UFM) FailAfter(skip, n, status int, match string) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.failSkip, u.failing, u.failCode, u.failMatch = skip, n, status, match
}

// Hang makes every request wait until Unhang or the client gives up: a UFM that times out.
func (u *UFM) Hang() {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.hung == nil {
		u.hung = make(chan struct{})
	}
}

// Unhang releases Hang.
func (u *UFM) Unhang() {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.hung != nil {
		close(u.hung)
		u.hung = nil
	}
}

// EmptyForMissing makes GET of a missing PKey answer 200 with {} instead of 404, a quirk NVIDIA
// records: "UFM in some cases does not return a 404 status code but a 200 status code with a
// body containing {}" ([NCX]).
func (u *UFM) EmptyForMissing(on bool) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.emptyOK = on
}

// SetPKey puts a PKey in place behind the client's back (an operator, another tool).
func (u *UFM) SetPKey(pkey uint16, p UFMPKey) {
	u.mu.Lock()
	defer u.mu.Unlock()
	c := p
	c.GUIDs = append([]UFMGUID(nil), p.GUIDs...)
	u.pkeys[pkey] = &c
}

// RemovePKey removes a PKey behind the client's back.
func (u *UFM) RemovePKey(pkey uint16) {
	u.mu.Lock()
	defer u.mu.Unlock()
	delete(u.pkeys, pkey)
}

// RemoveGUID removes one GUID (16 hex digits, any case) from a PKey behind the client's back.
func (u *UFM) RemoveGUID(pkey uint16, guid string) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if p := u.pkeys[pkey]; p != nil {
		p.GUIDs = dropGUIDs(p.GUIDs, map[string]bool{strings.ToLower(guid): true})
	}
}

// PKeys returns a copy of what the service holds.
func (u *UFM) PKeys() map[uint16]UFMPKey {
	u.mu.Lock()
	defer u.mu.Unlock()
	out := map[uint16]UFMPKey{}
	for k, p := range u.pkeys {
		c := *p
		c.GUIDs = append([]UFMGUID(nil), p.GUIDs...)
		sort.Slice(c.GUIDs, func(i, j int) bool { return c.GUIDs[i].GUID < c.GUIDs[j].GUID })
		out[k] = c
	}
	return out
}

// Requests returns "METHOD path" of every request that passed authentication, in order.
func (u *UFM) Requests() []string {
	u.mu.Lock()
	defer u.mu.Unlock()
	return append([]string(nil), u.requests...)
}

// ---- serving ----

func (u *UFM) serve(w http.ResponseWriter, req *http.Request) {
	u.mu.Lock()
	hung := u.hung
	u.mu.Unlock()
	if hung != nil {
		select {
		case <-hung:
		case <-req.Context().Done():
			return
		case <-u.closed:
			return
		}
	}
	path, ok := u.authorize(req)
	if !ok {
		// [SDK] ufm_rest_client.py: 401 is "Authentication Error, wrong credentials token or
		// username/password".
		w.Header().Set("WWW-Authenticate", `Basic realm="UFM"`)
		http.Error(w, "401 Unauthorized", http.StatusUnauthorized)
		return
	}
	u.mu.Lock()
	u.requests = append(u.requests, req.Method+" "+path)
	if u.failing > 0 && (u.failMatch == "" || req.Method+" "+strings.TrimRight(path, "/") == u.failMatch) && u.failSkip > 0 {
		u.failSkip--
	} else if u.failing > 0 && (u.failMatch == "" || req.Method+" "+strings.TrimRight(path, "/") == u.failMatch) {
		u.failing--
		code := u.failCode
		u.mu.Unlock()
		http.Error(w, http.StatusText(code), code)
		return
	}
	defer u.mu.Unlock()
	u.route(w, req, path)
}

// authorize checks the credentials for the prefix ([DOC-AUTH]): /ufmRest takes HTTP basic
// authentication, /ufmRestV3 a token sent as "Authorization: Basic <token>" ([SDK], [NCX]
// rest.rs). It returns the path after the prefix.
func (u *UFM) authorize(req *http.Request) (string, bool) {
	p := req.URL.Path
	switch {
	case strings.HasPrefix(p, "/ufmRestV3/"):
		return strings.TrimPrefix(p, "/ufmRestV3"), req.Header.Get("Authorization") == "Basic "+u.Token
	case strings.HasPrefix(p, "/ufmRest/"):
		user, pass, ok := req.BasicAuth()
		return strings.TrimPrefix(p, "/ufmRest"), ok && user == u.Username && pass == u.Password
	}
	return p, false
}

// ufmJSON answers 200 with v as JSON (every JSON answer of UFM's PKey API is a 200).
func ufmJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_ = json.NewEncoder(w).Encode(v)
}

func ufmBad(w http.ResponseWriter, format string, args ...any) {
	http.Error(w, "400 BAD REQUEST: "+fmt.Sprintf(format, args...), http.StatusBadRequest)
}

// route serves one authenticated request; u.mu is held.
func (u *UFM) route(w http.ResponseWriter, req *http.Request, path string) {
	p := strings.TrimRight(path, "/")
	q := req.URL.Query()
	switch {
	case req.Method == http.MethodGet && p == "/app/ufm_version":
		// [IBK8S] Validate(), [NCX] version(): JSON with ufm_release_version.
		ufmJSON(w, map[string]string{"ufm_release_version": "6.19.3-1"})
	case req.Method == http.MethodPost && p == "/app/tokens":
		// [SDK] UFM_API_TOKEN = 'app/tokens', response.json().get("access_token").
		ufmJSON(w, map[string]any{"access_token": u.Token, "revoked": false, "username": u.Username})
	case req.Method == http.MethodGet && p == "/resources/pkeys":
		// [NCX]: guids_data and qos_conf together on the list are not supported (nvbug 5409095).
		if q.Get("guids_data") == "true" && q.Get("qos_conf") == "true" {
			ufmBad(w, "guids_data and qos_conf cannot be combined")
			return
		}
		out := map[string]any{}
		for k, pk := range u.pkeys {
			out[ufmKey(k)] = pk.view(q.Get("guids_data") == "true", q.Get("qos_conf") == "true")
		}
		ufmJSON(w, out)
	case req.Method == http.MethodGet && strings.HasPrefix(p, "/resources/pkeys/"):
		k, ok := parseUFMPKey(strings.TrimPrefix(p, "/resources/pkeys/"))
		pk := u.pkeys[k]
		if !ok || pk == nil {
			if u.emptyOK {
				ufmJSON(w, map[string]any{}) // [NCX] quirk
				return
			}
			http.Error(w, "404 NOT FOUND", http.StatusNotFound)
			return
		}
		ufmJSON(w, pk.view(q.Get("guids_data") == "true", q.Get("qos_conf") == "true"))
	case req.Method == http.MethodPost && p == "/resources/pkeys/add":
		u.addPKey(w, req)
	case req.Method == http.MethodPost && p == "/resources/pkeys":
		u.addGUIDs(w, req)
	case req.Method == http.MethodPut && p == "/resources/pkeys/qos_conf":
		u.setQoS(w, req)
	case req.Method == http.MethodPost && p == "/actions/remove_guids_from_pkey":
		// [IBK8S] RemoveGuidsFromPKey: body {"pkey","guids"}, expects 200 (deprecated path).
		var body struct {
			PKey  string   `json:"pkey"`
			GUIDs []string `json:"guids"`
		}
		if err := json.NewDecoder(req.Body).Decode(&body); err != nil {
			ufmBad(w, "body: %v", err)
			return
		}
		u.removeGUIDs(w, body.PKey, body.GUIDs)
	case req.Method == http.MethodDelete && strings.HasPrefix(p, "/resources/pkeys/"):
		rest := strings.TrimPrefix(p, "/resources/pkeys/")
		if key, csv, ok := strings.Cut(rest, "/guids/"); ok {
			// [MLNXBM] DELETE /ufmRest/resources/pkeys/<pkey>/guids/<guid1>,<guid2>,...
			u.removeGUIDs(w, key, strings.Split(csv, ","))
			return
		}
		// [DOC-PKEY] Delete PKey; [SDK] ufm_pkeys.py delete_pkey: 200, or 404 when absent.
		k, ok := parseUFMPKey(rest)
		if !ok {
			ufmBad(w, "invalid pkey %q", rest)
			return
		}
		if k == 0x7fff {
			ufmBad(w, "the management PKey 0x7fff cannot be deleted")
			return
		}
		if u.pkeys[k] == nil {
			http.Error(w, "404 NOT FOUND", http.StatusNotFound)
			return
		}
		delete(u.pkeys, k)
		w.WriteHeader(http.StatusOK)
	default:
		http.Error(w, "404 NOT FOUND", http.StatusNotFound)
	}
}

// view is a PKey as GET returns it ([NCX] test_deserialize_partition_data).
func (p *UFMPKey) view(guids, qos bool) map[string]any {
	v := map[string]any{"partition": p.Name, "ip_over_ib": p.IPoIB}
	if guids {
		g := append([]UFMGUID{}, p.GUIDs...)
		v["guids"] = g
	}
	if qos {
		v["qos_conf"] = map[string]any{"mtu_limit": p.MTULimit, "rate_limit": p.RateLimit, "service_level": p.ServiceLevel}
	}
	return v
}

// ufmKey writes a PKey as UFM keys its answers: lower-case, unpadded ([NCX]: "0x2fb", "0x7fff").
func ufmKey(k uint16) string { return "0x" + strconv.FormatUint(uint64(k), 16) }

// parseUFMPKey reads a pkey as the API takes it: a hex string "between 0x0-0x7fff exclusive"
// ([DOC-PKEY]); the 0x7fff management key is accepted here for reads.
func parseUFMPKey(s string) (uint16, bool) {
	s = strings.TrimSpace(s)
	if !strings.HasPrefix(s, "0x") && !strings.HasPrefix(s, "0X") {
		return 0, false
	}
	v, err := strconv.ParseUint(s[2:], 16, 16)
	if err != nil || v == 0 || v > 0x7fff {
		return 0, false
	}
	return uint16(v), true
}

// checkUFMGUID follows [DOC-PKEY]: "each GUID a hex string, min length 16, max length 20".
func checkUFMGUID(g string) (string, bool) {
	g = strings.ToLower(strings.TrimPrefix(strings.TrimPrefix(g, "0x"), "0X"))
	if len(g) != 16 {
		return "", false
	}
	if _, err := strconv.ParseUint(g, 16, 64); err != nil {
		return "", false
	}
	return g, true
}

type ufmAddBody struct {
	PKey         string   `json:"pkey"`
	Name         string   `json:"partition_name"`
	Index0       *bool    `json:"index0"`
	IPoIB        *bool    `json:"ip_over_ib"`
	MTULimit     *int     `json:"mtu_limit"`
	ServiceLevel *int     `json:"service_level"`
	RateLimit    *float64 `json:"rate_limit"`
	GUIDs        []string `json:"guids"`
	Membership   string   `json:"membership"`
}

func decodeStrict(req *http.Request, v any) error {
	d := json.NewDecoder(req.Body)
	d.DisallowUnknownFields()
	return d.Decode(v)
}

// addPKey is "create empty PKey", POST /ufmRest/resources/pkeys/add ([DOC-PKEY] v6.20.2/v6.22.1
// example body {"pkey","index0","ip_over_ib","mtu_limit","service_level","rate_limit",
// "partition_name"}; only pkey is required, the rest take defaults). An existing PKey answers
// 400 and is left intact (UNCONFIRMED: a third-party client's comment, fabiendupont/nvidia-ufm-api).
func (u *UFM) addPKey(w http.ResponseWriter, req *http.Request) {
	var b ufmAddBody
	if err := decodeStrict(req, &b); err != nil {
		ufmBad(w, "body: %v", err)
		return
	}
	k, ok := parseUFMPKey(b.PKey)
	if !ok || k == 0x7fff {
		ufmBad(w, "pkey %q must be a hex string between 0x0-0x7fff exclusive", b.PKey)
		return
	}
	if u.pkeys[k] != nil {
		ufmBad(w, "pkey %s already exists", ufmKey(k))
		return
	}
	p := &UFMPKey{Name: b.Name, IPoIB: true, MTULimit: 2, RateLimit: 2.5}
	if p.Name == "" {
		p.Name = "api_pkey_" + ufmKey(k) // [NCX] test data: partitions made by the API are named so
	}
	if b.IPoIB != nil {
		p.IPoIB = *b.IPoIB
	}
	if b.MTULimit != nil {
		p.MTULimit = *b.MTULimit
	}
	if b.ServiceLevel != nil {
		p.ServiceLevel = *b.ServiceLevel
	}
	if b.RateLimit != nil {
		p.RateLimit = *b.RateLimit
	}
	if p.ServiceLevel < 0 || p.ServiceLevel > 15 {
		ufmBad(w, "service_level must be 0-15")
		return
	}
	if p.MTULimit != 2 && p.MTULimit != 4 {
		ufmBad(w, "mtu_limit must be 2 or 4 (2k or 4k)")
		return
	}
	if !ufmRates[p.RateLimit] {
		ufmBad(w, "rate_limit %g is not allowed", p.RateLimit)
		return
	}
	u.pkeys[k] = p
	w.WriteHeader(http.StatusOK)
}

// addGUIDs is "Add GUIDs to PKey", POST /ufmRest/resources/pkeys ([DOC-PKEY] table: guids and
// pkey mandatory; index0 default false; ip_over_ib default true; membership "full"|"limited"
// default "full"). A missing PKey is created ([IBK8S] posts GUIDs without creating the PKey
// first); a GUID already there takes the new membership and index0; ip_over_ib applies to the
// PKey. 200 on success ([IBK8S]).
func (u *UFM) addGUIDs(w http.ResponseWriter, req *http.Request) {
	var b ufmAddBody
	if err := decodeStrict(req, &b); err != nil {
		ufmBad(w, "body: %v", err)
		return
	}
	k, ok := parseUFMPKey(b.PKey)
	if !ok || k == 0x7fff {
		ufmBad(w, "pkey %q must be a hex string between 0x0-0x7fff exclusive", b.PKey)
		return
	}
	if len(b.GUIDs) == 0 {
		ufmBad(w, "guids is mandatory")
		return
	}
	if b.Membership == "" {
		b.Membership = "full"
	}
	if b.Membership != "full" && b.Membership != "limited" {
		ufmBad(w, "membership must be full or limited, not %q", b.Membership)
		return
	}
	guids := make([]string, len(b.GUIDs))
	for i, g := range b.GUIDs {
		n, ok := checkUFMGUID(g)
		if !ok {
			ufmBad(w, "guid %q must be 16 hex digits", g)
			return
		}
		guids[i] = n
	}
	p := u.pkeys[k]
	if p == nil {
		p = &UFMPKey{Name: "api_pkey_" + ufmKey(k), IPoIB: true, MTULimit: 2, RateLimit: 2.5}
		u.pkeys[k] = p
	}
	if b.IPoIB != nil {
		p.IPoIB = *b.IPoIB
	}
	index0 := b.Index0 != nil && *b.Index0
	for _, g := range guids {
		found := false
		for i := range p.GUIDs {
			if p.GUIDs[i].GUID == g {
				p.GUIDs[i].Membership, p.GUIDs[i].Index0, found = b.Membership, index0, true
			}
		}
		if !found {
			p.GUIDs = append(p.GUIDs, UFMGUID{GUID: g, Index0: index0, Membership: b.Membership})
		}
	}
	w.WriteHeader(http.StatusOK)
}

// ufmRates are the rate_limit values UFM takes ([NCX] update_partition_qos comment).
var ufmRates = map[float64]bool{2.5: true, 10: true, 30: true, 5: true, 20: true, 40: true, 60: true, 80: true, 120: true,
	14: true, 56: true, 112: true, 168: true, 25: true, 100: true, 200: true, 300: true}

// setQoS is PUT /ufmRest/resources/pkeys/qos_conf ([NCX] update_partition_qos: body
// {"pkey","mtu_limit","service_level","rate_limit"}; service_level 0-15; rate_limit one of the
// listed values).
func (u *UFM) setQoS(w http.ResponseWriter, req *http.Request) {
	var b struct {
		PKey         string   `json:"pkey"`
		MTULimit     *int     `json:"mtu_limit"`
		ServiceLevel *int     `json:"service_level"`
		RateLimit    *float64 `json:"rate_limit"`
	}
	if err := decodeStrict(req, &b); err != nil {
		ufmBad(w, "body: %v", err)
		return
	}
	k, ok := parseUFMPKey(b.PKey)
	if !ok || u.pkeys[k] == nil {
		http.Error(w, "404 NOT FOUND", http.StatusNotFound)
		return
	}
	p := u.pkeys[k]
	if b.RateLimit != nil {
		if !ufmRates[*b.RateLimit] {
			ufmBad(w, "rate_limit %g is not allowed", *b.RateLimit)
			return
		}
		p.RateLimit = *b.RateLimit
	}
	if b.ServiceLevel != nil {
		if *b.ServiceLevel < 0 || *b.ServiceLevel > 15 {
			ufmBad(w, "service_level must be 0-15")
			return
		}
		p.ServiceLevel = *b.ServiceLevel
	}
	if b.MTULimit != nil {
		if *b.MTULimit != 2 && *b.MTULimit != 4 {
			ufmBad(w, "mtu_limit must be 2 or 4 (2k or 4k)")
			return
		}
		p.MTULimit = *b.MTULimit
	}
	w.WriteHeader(http.StatusOK)
}

// removeGUIDs removes GUIDs from a PKey; GUIDs not in it are a no-op (NVIDIA config-manager docs,
// ib-pkey-member-delete: "Removing a GUID that is not currently in the PKey is a no-op on UFM").
// The PKey goes with its last GUID unless KeepEmpty ([NVCM]).
func (u *UFM) removeGUIDs(w http.ResponseWriter, key string, guids []string) {
	k, ok := parseUFMPKey(key)
	if !ok {
		ufmBad(w, "invalid pkey %q", key)
		return
	}
	p := u.pkeys[k]
	if p == nil {
		http.Error(w, "404 NOT FOUND", http.StatusNotFound)
		return
	}
	drop := map[string]bool{}
	for _, g := range guids {
		n, ok := checkUFMGUID(g)
		if !ok {
			ufmBad(w, "guid %q must be 16 hex digits", g)
			return
		}
		drop[n] = true
	}
	p.GUIDs = dropGUIDs(p.GUIDs, drop)
	if len(p.GUIDs) == 0 && !u.opts.KeepEmpty && k != 0x7fff {
		delete(u.pkeys, k)
	}
	w.WriteHeader(http.StatusOK)
}

func dropGUIDs(in []UFMGUID, drop map[string]bool) []UFMGUID {
	out := in[:0]
	for _, g := range in {
		if !drop[strings.ToLower(g.GUID)] {
			out = append(out, g)
		}
	}
	return out
}
