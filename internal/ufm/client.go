package ufm

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Config is how to reach one UFM. Exactly one of Password (with Username) or Token is set.
type Config struct {
	URL      string // https://host[:port]; plain http is refused
	Username string
	Password string
	Token    string
	// CAPEM is the PEM of the CA that signed UFM's certificate; empty trusts the system roots.
	// Certificate verification is never turned off.
	CAPEM   string
	Timeout time.Duration // per request; 0 means DefaultTimeout
}

// DefaultTimeout bounds each request, so that a UFM that hangs fails the apply instead of
// holding it.
const DefaultTimeout = 30 * time.Second

// Client speaks UFM's REST API.
type Client struct {
	base   string // URL + prefix
	auth   string // the Authorization header value; never printed
	http   *http.Client
	target string // URL for messages, without credentials
}

// New checks cfg and returns a client. Token authentication uses the /ufmRestV3 prefix and
// sends "Authorization: Basic <token>" (UFM user manual "Authentication Methods"; ufm_sdk_3.0
// ufm_rest_client.py); user and password use /ufmRest with HTTP basic authentication.
func New(cfg Config) (*Client, error) {
	u, err := url.Parse(strings.TrimRight(cfg.URL, "/"))
	switch {
	case err != nil || u.Host == "":
		return nil, fmt.Errorf("ufm url %q is not a URL: write https://ufm.example.com", cfg.URL)
	case u.Scheme != "https":
		return nil, fmt.Errorf("ufm url %q must use https: credentials are never sent in the clear", cfg.URL)
	case u.User != nil:
		return nil, errors.New("ufm url must not hold credentials: set username and password, or token")
	}
	c := &Client{target: u.String()}
	switch {
	case cfg.Token != "" && (cfg.Username != "" || cfg.Password != ""):
		return nil, errors.New("ufm: set either token or username and password, not both")
	case cfg.Token != "":
		c.base, c.auth = u.String()+"/ufmRestV3", "Basic "+cfg.Token
	case cfg.Username != "" && cfg.Password != "":
		req := &http.Request{Header: http.Header{}}
		req.SetBasicAuth(cfg.Username, cfg.Password)
		c.base, c.auth = u.String()+"/ufmRest", req.Header.Get("Authorization")
	default:
		return nil, errors.New("ufm: set username and password, or token")
	}
	tlsCfg := &tls.Config{MinVersion: tls.VersionTLS12}
	if cfg.CAPEM != "" {
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM([]byte(cfg.CAPEM)) {
			return nil, errors.New("ufm ca: no PEM certificate found")
		}
		tlsCfg.RootCAs = pool
	}
	timeout := cfg.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	c.http = &http.Client{Timeout: timeout, Transport: &http.Transport{TLSClientConfig: tlsCfg, Proxy: http.ProxyFromEnvironment}}
	return c, nil
}

// StatusError is a UFM answer other than success.
type StatusError struct {
	Method, Path string
	Status       int
	Body         string // at most 200 bytes of UFM's answer
}

func (e *StatusError) Error() string {
	msg := fmt.Sprintf("UFM answered %s %s with %d %s", e.Method, e.Path, e.Status, http.StatusText(e.Status))
	switch e.Status {
	case http.StatusUnauthorized:
		msg += ": the credentials were refused (check ufm.username and ufm.password, or ufm.token)"
	case http.StatusForbidden:
		msg += ": the UFM user may not do this"
	}
	if e.Body != "" {
		msg += ": " + e.Body
	}
	return msg
}

// do sends one request; out, when set, receives the JSON answer.
func (c *Client) do(ctx context.Context, method, path string, body, out any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, rd)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", c.auth)
	if body != nil {
		// ib-kubernetes pkg/drivers/http/client.go sends this content type.
		req.Header.Set("Content-Type", "application/json; charset=utf-8")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // the URL carries no secret, but say it once, below
		}
		return fmt.Errorf("UFM at %s: %s %s: %w", c.target, method, path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return fmt.Errorf("UFM at %s: %s %s: reading the answer: %w", c.target, method, path, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		b := strings.TrimSpace(string(data))
		if len(b) > 200 {
			b = b[:200] + "..."
		}
		return &StatusError{Method: method, Path: path, Status: resp.StatusCode, Body: b}
	}
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			return fmt.Errorf("UFM at %s: %s %s: the answer is not the JSON expected: %v", c.target, method, path, err)
		}
	}
	return nil
}

// Version is UFM's release ("6.19.3-1"), from GET app/ufm_version (ib-kubernetes Validate()).
func (c *Client) Version(ctx context.Context) (string, error) {
	var v struct {
		Release string `json:"ufm_release_version"`
	}
	if err := c.do(ctx, http.MethodGet, "/app/ufm_version", nil, &v); err != nil {
		return "", err
	}
	return v.Release, nil
}

// GUIDEntry is a GUID of a PKey as UFM reports it.
type GUIDEntry struct {
	GUID       string `json:"guid"`
	Index0     bool   `json:"index0"`
	Membership string `json:"membership"`
}

// QoS is a PKey's qos_conf.
type QoS struct {
	MTULimit     int     `json:"mtu_limit"` // IB MTU code (4 = 4096)
	RateLimit    float64 `json:"rate_limit"`
	ServiceLevel int     `json:"service_level"`
}

// PKey is a PKey as UFM reports it.
type PKey struct {
	Partition string      `json:"partition"`
	IPoIB     bool        `json:"ip_over_ib"`
	GUIDs     []GUIDEntry `json:"guids"`
	QoS       *QoS        `json:"qos_conf"`
}

// PKeyString writes a 15-bit P_Key as UFM's requests carry it.
func PKeyString(k uint16) string { return fmt.Sprintf("0x%04x", k) }

// ParsePKey reads a key of UFM's answers ("0x2fb", "0x7fff"; any case, padded or not).
func ParsePKey(s string) (uint16, error) {
	t := strings.TrimSpace(s)
	if !strings.HasPrefix(t, "0x") && !strings.HasPrefix(t, "0X") {
		return 0, fmt.Errorf("pkey %q is not 0x-prefixed hex", s)
	}
	v, err := strconv.ParseUint(t[2:], 16, 16)
	if err != nil {
		return 0, fmt.Errorf("pkey %q is not 0x-prefixed hex of 16 bits", s)
	}
	return uint16(v), nil
}

// PKeys lists every PKey with its GUIDs and QoS. UFM cannot combine guids_data and qos_conf on
// the list (nvbug 5409095, in ncx-infra-controller-core), so it takes two GETs.
func (c *Client) PKeys(ctx context.Context) (map[uint16]PKey, error) {
	var withGUIDs, withQoS map[string]PKey
	if err := c.do(ctx, http.MethodGet, "/resources/pkeys?guids_data=true", nil, &withGUIDs); err != nil {
		return nil, err
	}
	if err := c.do(ctx, http.MethodGet, "/resources/pkeys?qos_conf=true", nil, &withQoS); err != nil {
		return nil, err
	}
	out := map[uint16]PKey{}
	for k, p := range withGUIDs {
		v, err := ParsePKey(k)
		if err != nil {
			return nil, fmt.Errorf("UFM at %s listed %w", c.target, err)
		}
		if q, ok := withQoS[k]; ok {
			p.QoS = q.QoS
		}
		out[v&0x7fff] = p
	}
	return out, nil
}

// CreatePKey creates an empty PKey: POST resources/pkeys/add (REST API guide "PKey GUIDs Rest
// API", v6.16 and later; partition_name from v6.22.1).
func (c *Client) CreatePKey(ctx context.Context, k uint16, name string, ipoib, index0 bool, q QoS) error {
	body := map[string]any{"pkey": PKeyString(k), "index0": index0, "ip_over_ib": ipoib,
		"mtu_limit": q.MTULimit, "service_level": q.ServiceLevel, "rate_limit": q.RateLimit}
	if name != "" {
		body["partition_name"] = name
	}
	return c.do(ctx, http.MethodPost, "/resources/pkeys/add", body, nil)
}

// AddGUIDs adds GUIDs (16 hex digits) to a PKey with one membership: POST resources/pkeys with
// guids, pkey, index0, ip_over_ib, membership (REST API guide; ib-kubernetes AddGuidsToPKey).
func (c *Client) AddGUIDs(ctx context.Context, k uint16, guids []string, membership string, ipoib, index0 bool) error {
	return c.do(ctx, http.MethodPost, "/resources/pkeys", map[string]any{"pkey": PKeyString(k), "guids": guids,
		"membership": membership, "index0": index0, "ip_over_ib": ipoib}, nil)
}

// RemoveGUIDs removes GUIDs from a PKey: DELETE resources/pkeys/<pkey>/guids/<guid,...>.
func (c *Client) RemoveGUIDs(ctx context.Context, k uint16, guids []string) error {
	return c.do(ctx, http.MethodDelete, "/resources/pkeys/"+PKeyString(k)+"/guids/"+strings.Join(guids, ","), nil, nil)
}

// SetQoS sets a PKey's MTU, rate and SL: PUT resources/pkeys/qos_conf.
func (c *Client) SetQoS(ctx context.Context, k uint16, q QoS) error {
	return c.do(ctx, http.MethodPut, "/resources/pkeys/qos_conf", map[string]any{"pkey": PKeyString(k),
		"mtu_limit": q.MTULimit, "service_level": q.ServiceLevel, "rate_limit": q.RateLimit}, nil)
}

// DeletePKey deletes a PKey: DELETE resources/pkeys/<pkey>; an absent PKey (404) is no error.
func (c *Client) DeletePKey(ctx context.Context, k uint16) error {
	err := c.do(ctx, http.MethodDelete, "/resources/pkeys/"+PKeyString(k), nil, nil)
	var se *StatusError
	if errors.As(err, &se) && se.Status == http.StatusNotFound {
		return nil
	}
	return err
}

// PKey reads one PKey with its GUIDs: GET resources/pkeys/<pkey>?guids_data=true. found is
// false for a 404 and for a 200 whose body is {}, which UFM answers "in some cases" for a
// missing PKey (ncx-infra-controller-core ufmclient/mod.rs).
func (c *Client) PKey(ctx context.Context, k uint16) (p PKey, found bool, err error) {
	var raw map[string]json.RawMessage
	err = c.do(ctx, http.MethodGet, "/resources/pkeys/"+PKeyString(k)+"?guids_data=true", nil, &raw)
	if isStatus(err, http.StatusNotFound) {
		return PKey{}, false, nil
	}
	if err != nil || len(raw) == 0 {
		return PKey{}, false, err
	}
	b, _ := json.Marshal(raw)
	if err := json.Unmarshal(b, &p); err != nil {
		return PKey{}, false, fmt.Errorf("UFM at %s: PKey 0x%04x: %v", c.target, k, err)
	}
	return p, true, nil
}
