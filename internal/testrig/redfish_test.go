package testrig

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

type rfClient struct {
	t     *testing.T
	rig   *Redfish
	http  *http.Client
	token string
	basic [2]string
}

func newRFClient(t *testing.T, rig *Redfish) *rfClient {
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM([]byte(rig.CAPEM)) {
		t.Fatal("CAPEM does not parse")
	}
	return &rfClient{t: t, rig: rig, http: &http.Client{
		Timeout:   5 * time.Second,
		Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}},
	}}
}

func (c *rfClient) do(method, path string, body any, hdr map[string]string) (int, http.Header, map[string]any) {
	c.t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, c.rig.URL+path, rd)
	if c.token != "" {
		req.Header.Set("X-Auth-Token", c.token)
	} else if c.basic[0] != "" {
		req.SetBasicAuth(c.basic[0], c.basic[1])
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		c.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var m map[string]any
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &m); err != nil {
			c.t.Fatalf("%s %s: body is not JSON: %q", method, path, raw)
		}
	}
	return resp.StatusCode, resp.Header, m
}

func rfMessageID(m map[string]any) string {
	e, _ := m["error"].(map[string]any)
	infos, _ := e["@Message.ExtendedInfo"].([]any)
	if len(infos) == 0 {
		return ""
	}
	info, _ := infos[0].(map[string]any)
	id, _ := info["MessageId"].(string)
	return id
}

// TestRedfishRigProtocol checks the rig's own contract with raw HTTP: what is public, how login
// and logout work, that ETags guard updates, that values outside the allowable lists are
// refused with the DMTF message, and that every change is logged.
func TestRedfishRigProtocol(t *testing.T) {
	rig := StartRedfish(t, RedfishOptions{})
	c := newRFClient(t, rig)

	code, _, root := c.do("GET", "/redfish/v1/", nil, nil)
	if code != 200 || root["RedfishVersion"] != "1.15.0" {
		t.Fatalf("service root: %d %v", code, root)
	}
	if links, _ := root["Links"].(map[string]any); links["Sessions"] == nil {
		t.Fatalf("service root has no Links.Sessions: %v", root)
	}
	if code, _, _ := c.do("GET", "/redfish/v1/Systems/1", nil, nil); code != 401 {
		t.Fatalf("unauthenticated system read: got %d, want 401", code)
	}
	if code, _, _ := c.do("POST", "/redfish/v1/SessionService/Sessions", map[string]string{"UserName": rig.Username, "Password": "wrong-one"}, nil); code != 401 {
		t.Fatalf("login with a wrong password: got %d, want 401", code)
	}
	code, hdr, _ := c.do("POST", "/redfish/v1/SessionService/Sessions", map[string]string{"UserName": rig.Username, "Password": rig.Password}, nil)
	if code != 201 || hdr.Get("X-Auth-Token") == "" || !strings.HasPrefix(hdr.Get("Location"), "/redfish/v1/SessionService/Sessions/") {
		t.Fatalf("login: %d token=%q location=%q", code, hdr.Get("X-Auth-Token"), hdr.Get("Location"))
	}
	c.token = hdr.Get("X-Auth-Token")
	if rig.LiveSessions() != 1 {
		t.Fatalf("live sessions after login: %d", rig.LiveSessions())
	}

	code, hdr, sys := c.do("GET", "/redfish/v1/Systems/1", nil, nil)
	etag := hdr.Get("ETag")
	if code != 200 || etag == "" || sys["PowerState"] != "Off" {
		t.Fatalf("system: %d etag=%q %v", code, etag, sys)
	}
	code, _, body := c.do("PATCH", "/redfish/v1/Systems/1", map[string]any{"Boot": map[string]any{"BootSourceOverrideTarget": "Tape"}}, map[string]string{"If-Match": etag})
	if code != 400 || !strings.HasSuffix(rfMessageID(body), ".PropertyValueNotInList") {
		t.Fatalf("boot target outside the allowable values: %d %v", code, body)
	}
	code, _, body = c.do("PATCH", "/redfish/v1/Systems/1", map[string]any{"PowerState": "On"}, nil)
	if code != 400 || !strings.HasSuffix(rfMessageID(body), ".PropertyNotWritable") {
		t.Fatalf("PATCH of PowerState: %d %v", code, body)
	}
	code, _, _ = c.do("PATCH", "/redfish/v1/Systems/1", map[string]any{"Boot": map[string]any{"BootSourceOverrideTarget": "Pxe", "BootSourceOverrideEnabled": "Once"}}, map[string]string{"If-Match": etag})
	if code != 200 {
		t.Fatalf("boot override: %d", code)
	}
	// The resource changed, so the old ETag must now be refused.
	code, _, body = c.do("PATCH", "/redfish/v1/Systems/1", map[string]any{"Boot": map[string]any{"BootSourceOverrideMode": "Legacy"}}, map[string]string{"If-Match": etag})
	if code != 412 || !strings.HasSuffix(rfMessageID(body), ".PreconditionFailed") {
		t.Fatalf("stale If-Match: %d %v", code, body)
	}
	if tgt, en, mode := rig.Boot(); tgt != "Pxe" || en != "Once" || mode != "UEFI" {
		t.Fatalf("boot after PATCH: %s %s %s", tgt, en, mode)
	}

	// BIOS settings are pending until the host restarts.
	code, _, body = c.do("PATCH", "/redfish/v1/Systems/1/Bios/Settings", map[string]any{"Attributes": map[string]any{"PowerProfile": "Turbo"}}, nil)
	if code != 400 || !strings.HasSuffix(rfMessageID(body), ".PropertyValueNotInList") {
		t.Fatalf("BIOS value outside the list: %d %v", code, body)
	}
	code, _, body = c.do("PATCH", "/redfish/v1/Systems/1/Bios/Settings", map[string]any{"Attributes": map[string]any{"NumaNodesPerSocket": "4"}}, nil)
	if code != 400 || !strings.HasSuffix(rfMessageID(body), ".PropertyValueTypeError") {
		t.Fatalf("BIOS value of the wrong type: %d %v", code, body)
	}
	if code, _, _ := c.do("PATCH", "/redfish/v1/Systems/1/Bios/Settings", map[string]any{"Attributes": map[string]any{"PowerProfile": "MaxPerf", "NumaNodesPerSocket": 4}}, nil); code != 200 {
		t.Fatalf("BIOS settings: %d", code)
	}
	if rig.BIOS()["PowerProfile"] != "Balanced" || rig.PendingBIOS()["PowerProfile"] != "MaxPerf" {
		t.Fatalf("BIOS applied before a reset: current %v pending %v", rig.BIOS(), rig.PendingBIOS())
	}
	code, _, body = c.do("POST", "/redfish/v1/Systems/1/Actions/ComputerSystem.Reset", map[string]any{"ResetType": "Explode"}, nil)
	if code != 400 || !strings.HasSuffix(rfMessageID(body), ".ActionParameterValueNotInList") {
		t.Fatalf("bad reset type: %d %v", code, body)
	}
	if code, _, _ := c.do("POST", "/redfish/v1/Systems/1/Actions/ComputerSystem.Reset", map[string]any{"ResetType": "On"}, nil); code != 204 {
		t.Fatalf("reset On: %d", code)
	}
	if rig.PowerState() != "On" || rig.BIOS()["PowerProfile"] != "MaxPerf" || rig.BIOS()["NumaNodesPerSocket"] != float64(4) || len(rig.PendingBIOS()) != 0 {
		t.Fatalf("after power on: power %s bios %v pending %v", rig.PowerState(), rig.BIOS(), rig.PendingBIOS())
	}

	// Logout ends the session; the token no longer works.
	loc := "/redfish/v1/SessionService/Sessions/1"
	if code, _, _ := c.do("DELETE", loc, nil, nil); code != 204 {
		t.Fatalf("logout: %d", code)
	}
	if code, _, _ := c.do("GET", "/redfish/v1/Systems/1", nil, nil); code != 401 || rig.LiveSessions() != 0 {
		t.Fatalf("after logout: %d, live %d", code, rig.LiveSessions())
	}

	// Basic authentication works without a session.
	c.token, c.basic = "", [2]string{rig.Username, rig.Password}
	if code, _, m := c.do("GET", "/redfish/v1/Managers/1", nil, nil); code != 200 || m["FirmwareVersion"] == "" {
		t.Fatalf("basic auth: %d %v", code, m)
	}

	want := []string{"Boot/BootSourceOverrideTarget", "Boot/BootSourceOverrideEnabled", "Bios/Settings/Attributes/NumaNodesPerSocket", "Bios/Settings/Attributes/PowerProfile", "PowerState", "Bios/Attributes/NumaNodesPerSocket", "Bios/Attributes/PowerProfile"}
	got := rig.Changes()
	if len(got) != len(want) {
		t.Fatalf("change log: %+v", got)
	}
	for i, w := range want {
		if got[i].Property != w || got[i].Source != "api" || got[i].User != rig.Username {
			t.Fatalf("change %d: %+v, want property %s", i, got[i], w)
		}
	}
}

// TestRedfishRigAccountsNeverEchoPasswords checks account slots, roles and that passwords appear
// neither in resources, nor in error messages, nor in the change log.
func TestRedfishRigAccountsNeverEchoPasswords(t *testing.T) {
	rig := StartRedfish(t, RedfishOptions{})
	c := newRFClient(t, rig)
	c.basic = [2]string{rig.Username, rig.Password}
	const secret = "0perator-Pw"
	code, hdr, _ := c.do("GET", "/redfish/v1/AccountService/Accounts/3", nil, nil)
	if code != 200 {
		t.Fatalf("empty slot: %d", code)
	}
	code, _, body := c.do("PATCH", "/redfish/v1/AccountService/Accounts/3", map[string]any{"UserName": "ops", "Password": "short", "RoleId": "Operator", "Enabled": true}, map[string]string{"If-Match": hdr.Get("ETag")})
	if code != 400 || strings.Contains(toJSON(body), "short") {
		t.Fatalf("short password: %d %v", code, body)
	}
	code, _, body = c.do("PATCH", "/redfish/v1/AccountService/Accounts/3", map[string]any{"UserName": "ops", "Password": secret, "RoleId": "Operator", "Enabled": true}, map[string]string{"If-Match": hdr.Get("ETag")})
	if code != 200 || body["Password"] != nil {
		t.Fatalf("claiming a slot: %d %v", code, body)
	}
	if !rig.CheckPassword("ops", secret) {
		t.Fatal("the new account does not log in")
	}
	if code, _, _ := c.do("POST", "/redfish/v1/AccountService/Accounts", map[string]any{"UserName": "x", "Password": secret, "RoleId": "ReadOnly"}, nil); code != 405 {
		t.Fatalf("POST to a slot-based collection: %d", code)
	}
	// An Operator may power the host but not manage accounts.
	c.basic = [2]string{"ops", secret}
	if code, _, _ := c.do("POST", "/redfish/v1/Systems/1/Actions/ComputerSystem.Reset", map[string]any{"ResetType": "On"}, nil); code != 204 {
		t.Fatalf("operator power on: %d", code)
	}
	if code, _, _ := c.do("PATCH", "/redfish/v1/AccountService/Accounts/2", map[string]any{"RoleId": "ReadOnly"}, nil); code != 403 {
		t.Fatalf("operator changing accounts: %d", code)
	}
	for _, ch := range rig.Changes() {
		if strings.Contains(toJSON(ch), secret) {
			t.Fatalf("password in the change log: %+v", ch)
		}
	}

	post := StartRedfish(t, RedfishOptions{PostAccounts: true})
	pc := newRFClient(t, post)
	pc.basic = [2]string{post.Username, post.Password}
	code, hdr, body = pc.do("POST", "/redfish/v1/AccountService/Accounts", map[string]any{"UserName": "ro", "Password": secret, "RoleId": "ReadOnly"}, nil)
	if code != 201 || hdr.Get("Location") == "" || body["UserName"] != "ro" {
		t.Fatalf("POST account: %d %v %v", code, hdr, body)
	}
}

// TestRedfishRigHangAndDrift checks the failure injection: a hung rig answers nothing until
// released, and out-of-band changes show in reads and in the change log.
func TestRedfishRigHangAndDrift(t *testing.T) {
	rig := StartRedfish(t, RedfishOptions{Listeners: 2})
	if len(rig.Ports) != 2 || rig.Ports[0] == rig.Ports[1] {
		t.Fatalf("ports: %v", rig.Ports)
	}
	c := newRFClient(t, rig)
	c.http.Timeout = 300 * time.Millisecond
	rig.Hang()
	start := time.Now()
	if _, err := c.http.Get(rig.URL + "/redfish/v1/"); err == nil {
		t.Fatal("a hung rig answered")
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("client timeout took %s", d)
	}
	rig.Unhang()
	c.http.Timeout = 5 * time.Second
	rig.SetPowerOutOfBand("On")
	c.basic = [2]string{rig.Username, rig.Password}
	if _, _, sys := c.do("GET", "/redfish/v1/Systems/1", nil, nil); sys["PowerState"] != "On" {
		t.Fatalf("drifted power state not visible: %v", sys["PowerState"])
	}
	ch := rig.Changes()
	if len(ch) != 1 || ch[0].Source != "out-of-band" || ch[0].New != "On" {
		t.Fatalf("change log: %+v", ch)
	}
	// A rig left hung at the end of a test still stops (Cleanup must not wait forever).
	rig.Hang()
	go func() { _, _ = c.http.Get(rig.URL + "/redfish/v1/") }()
	time.Sleep(50 * time.Millisecond)
}

func toJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestRedfishRigFleetAccount: an account given at start logs in beside the administrator, in the
// first free slot (fixed slots) or appended (POST accounts).
func TestRedfishRigFleetAccount(t *testing.T) {
	for _, post := range []bool{false, true} {
		rig := StartRedfish(t, RedfishOptions{Password: "adminpw123", PostAccounts: post,
			Accounts: []RedfishUser{{UserName: "gpucluster", Password: "fleetpw123", RoleID: "Administrator"}}})
		if !rig.CheckPassword("gpucluster", "fleetpw123") || !rig.CheckPassword("admin", "adminpw123") || rig.CheckPassword("gpucluster", "adminpw123") {
			t.Errorf("post %v: accounts %+v", post, rig.Accounts())
		}
		want := map[bool]string{false: "3", true: "2"}[post]
		for _, a := range rig.Accounts() {
			if a.UserName == "gpucluster" && (a.ID != want || a.RoleID != "Administrator" || !a.Enabled) {
				t.Errorf("post %v: fleet account %+v, want slot %s", post, a, want)
			}
		}
	}
}
