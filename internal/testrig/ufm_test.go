package testrig

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// ufmDo sends one raw request to the UFM test service, as NVIDIA's clients do.
func ufmDo(t *testing.T, u *UFM, method, path, body string, auth func(*http.Request)) (int, string) {
	t.Helper()
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM([]byte(u.CAPEM))
	c := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}}}
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, u.URL+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	if auth != nil {
		auth(req)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestUFMServiceShapes checks the service against the shapes NVIDIA documents and its clients
// rely on (wave4-facts section 1), written out here by hand.
func TestUFMServiceShapes(t *testing.T) {
	u := StartUFM(t, UFMOptions{})
	basic := func(r *http.Request) { r.SetBasicAuth(u.Username, u.Password) }
	token := func(r *http.Request) { r.Header.Set("Authorization", "Basic "+u.Token) }

	if st, _ := ufmDo(t, u, "GET", "/ufmRest/resources/pkeys", "", nil); st != 401 {
		t.Errorf("no credentials: %d, want 401", st)
	}
	if st, _ := ufmDo(t, u, "GET", "/ufmRest/resources/pkeys", "", token); st != 401 {
		t.Errorf("a token on /ufmRest (basic only): %d, want 401", st)
	}
	if st, _ := ufmDo(t, u, "GET", "/ufmRestV3/resources/pkeys", "", token); st != 200 {
		t.Errorf("a token on /ufmRestV3: %d, want 200", st)
	}
	// ib-kubernetes' body, padded upper-case pkey.
	st, body := ufmDo(t, u, "POST", "/ufmRest/resources/pkeys",
		`{"pkey": "0x02FB", "index0": true, "ip_over_ib": true, "membership": "full", "guids": ["0011223344556677"]}`, basic)
	if st != 200 {
		t.Fatalf("POST resources/pkeys: %d %s", st, body)
	}
	st, body = ufmDo(t, u, "GET", "/ufmRest/resources/pkeys?guids_data=true", "", basic)
	var all map[string]map[string]any
	if err := json.Unmarshal([]byte(body), &all); st != 200 || err != nil {
		t.Fatalf("GET pkeys?guids_data=true: %d %v %s", st, err, body)
	}
	if _, ok := all["0x2fb"]; !ok {
		t.Errorf("keys %v: want the lower-case unpadded \"0x2fb\"", body)
	}
	if m := all["0x7fff"]; m == nil || m["partition"] != "management" {
		t.Errorf("0x7fff = %v, want the management partition", all["0x7fff"])
	}
	g, _ := all["0x2fb"]["guids"].([]any)
	if len(g) != 1 || !strings.Contains(body, `"guid":"0011223344556677","index0":true,"membership":"full"`) {
		t.Errorf("guids of 0x2fb: %s", body)
	}
	if st, _ := ufmDo(t, u, "GET", "/ufmRest/resources/pkeys?guids_data=true&qos_conf=true", "", basic); st != 400 {
		t.Errorf("guids_data with qos_conf on the list: %d, want 400 (nvbug 5409095)", st)
	}
	for _, bad := range []string{
		`{"pkey": "0x7fff", "guids": ["0011223344556677"]}`,
		`{"pkey": "0x8001", "guids": ["0011223344556677"]}`,
		`{"pkey": "0x0", "guids": ["0011223344556677"]}`,
		`{"pkey": "0x10", "guids": ["00:11:22:33:44:55:66:77"]}`,
		`{"pkey": "0x10", "guids": ["0011223344556677"], "membership": "both"}`,
	} {
		if st, _ := ufmDo(t, u, "POST", "/ufmRest/resources/pkeys", bad, basic); st != 400 {
			t.Errorf("POST %s: %d, want 400", bad, st)
		}
	}
	if st, body := ufmDo(t, u, "GET", "/ufmRest/resources/pkeys/0x555", "", basic); st != 404 {
		t.Errorf("missing pkey: %d %s, want 404", st, body)
	}
	u.EmptyForMissing(true)
	if st, body := ufmDo(t, u, "GET", "/ufmRest/resources/pkeys/0x555", "", basic); st != 200 || strings.TrimSpace(body) != "{}" {
		t.Errorf("missing pkey with the quirk: %d %q, want 200 {}", st, body)
	}
	// Removing the last GUID removes the PKey; deleting it again is a 404.
	if st, _ := ufmDo(t, u, "DELETE", "/ufmRest/resources/pkeys/0x2fb/guids/0011223344556677", "", basic); st != 200 {
		t.Errorf("DELETE guids: %d", st)
	}
	if _, ok := u.PKeys()[0x2fb]; ok {
		t.Error("0x2fb stayed without members")
	}
	if st, _ := ufmDo(t, u, "DELETE", "/ufmRest/resources/pkeys/0x2fb", "", basic); st != 404 {
		t.Errorf("DELETE absent pkey: %d, want 404", st)
	}
	if st, _ := ufmDo(t, u, "DELETE", "/ufmRest/resources/pkeys/0x7fff", "", basic); st == 200 {
		t.Error("the management PKey was deleted")
	}
}
