package bmc

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Retrying busy BMCs. A Redfish service answers 503 Service Unavailable while it (re)starts or is
// overloaded, which BMCs are after a firmware update, a BMC reset or under a burst of sessions,
// and may say when to come back in Retry-After (DMTF DSP0266 Redfish Specification 1.20 section
// 8.7 "HTTP status codes": 503 "the service is temporarily unavailable", with Retry-After; RFC
// 9110 section 10.2.3 for its two forms). retryTransport retries such answers with exponential
// backoff, honouring Retry-After, for every request bmclib and gofish send, until the request's
// own deadline: the operation's timeout (Config.Timeout) bounds the retries too.
//
// The other server errors a BMC gives while its web server or Redfish service hiccups (500
// Internal Server Error, 502 Bad Gateway, 504 Gateway Timeout; issue 22 saw 500 never retried)
// are retried the same way for the requests that can be sent twice (RFC 9110 section 9.2.2:
// GET, HEAD, PUT, DELETE; and PATCH, which Redfish uses to set properties to absolute values). A
// POST (a Reset action, an account creation) that failed with one of them may have acted, so it
// is not sent again: the caller reads back whether it landed (redfish.go, landed).

// Backoff bounds: the first wait, its ceiling, and how many attempts at most.
const (
	retryFirstWait = 250 * time.Millisecond
	retryMaxWait   = 8 * time.Second
	retryAttempts  = 8
)

type retryTransport struct {
	next http.RoundTripper
	// sleep waits for d or until ctx ends (false); replaced in unit tests.
	sleep func(ctx context.Context, d time.Duration) bool
}

func newRetryTransport(next http.RoundTripper) *retryTransport {
	return &retryTransport{next: next, sleep: sleepCtx}
}

func sleepCtx(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// busy reports the answers worth retrying whatever the request: 503, and 429 Too Many Requests,
// which some BMCs send for the same reason. Both say the request was not processed.
func busy(status int) bool {
	return status == http.StatusServiceUnavailable || status == http.StatusTooManyRequests
}

// retryable reports the answers retried for a request of this method: busy ones always, and the
// other transient server errors (500, 502, 504) when the request can be sent twice.
func retryable(status int, method string) bool {
	if busy(status) {
		return true
	}
	switch status {
	case http.StatusInternalServerError, http.StatusBadGateway, http.StatusGatewayTimeout:
		switch method {
		case http.MethodGet, http.MethodHead, http.MethodPut, http.MethodPatch, http.MethodDelete, http.MethodOptions:
			return true
		}
	}
	return false
}

func (t *retryTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	wait := retryFirstWait
	for attempt := 1; ; attempt++ {
		resp, err := t.next.RoundTrip(req)
		if err != nil || !retryable(resp.StatusCode, req.Method) || attempt >= retryAttempts {
			return resp, err
		}
		// A body that cannot be sent again (no GetBody) ends the retries: the BMC's answer
		// is returned as it is.
		if req.Body != nil && req.Body != http.NoBody && req.GetBody == nil {
			return resp, nil
		}
		d := wait
		if ra, ok := retryAfter(resp.Header.Get("Retry-After"), time.Now()); ok {
			d = ra
		}
		if dl, ok := req.Context().Deadline(); ok && time.Now().Add(d).After(dl) {
			// Waiting would outlast the operation: give the caller the 503 now, while it
			// still has time to report it.
			return resp, nil
		}
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		resp.Body.Close()
		if !t.sleep(req.Context(), d) {
			return nil, req.Context().Err()
		}
		if req.GetBody != nil {
			body, err := req.GetBody()
			if err != nil {
				return nil, err
			}
			req = req.Clone(req.Context())
			req.Body = body
		}
		if wait *= 2; wait > retryMaxWait {
			wait = retryMaxWait
		}
	}
}

// retryAfter reads a Retry-After value: delay-seconds or an HTTP date (RFC 9110 section 10.2.3).
// A date in the past means now; a value that is neither is ignored.
func retryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		if n < 0 {
			return 0, false
		}
		if n > 3600 {
			n = 3600
		}
		return time.Duration(n) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return d, true
		}
		return 0, true
	}
	return 0, false
}

// CloseIdleConnections passes on to the transport below (http.Client.CloseIdleConnections
// finds it here).
func (t *retryTransport) CloseIdleConnections() {
	if c, ok := t.next.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

// busyErr reports a bmclib error that carries a busy answer (503 or 429). bmclib passes gofish's
// *common.Error on, or only its text.
func busyErr(err error) bool {
	if err == nil {
		return false
	}
	if st := httpStatus(err); st != 0 {
		return busy(st)
	}
	msg := err.Error()
	return strings.Contains(msg, "503") && strings.Contains(strings.ToLower(msg), "unavailable") ||
		strings.Contains(msg, "429") && strings.Contains(strings.ToLower(msg), "too many")
}

// serverErr reports a bmclib error that carries one of the transient server errors retryable
// retries for requests that can be sent twice (500, 502, 504): gofish's *common.Error, or its
// text as bmclib and gofish quote it ("500: {...}", "500 Internal Server Error").
func serverErr(err error) bool {
	if err == nil {
		return false
	}
	if st := httpStatus(err); st != 0 {
		return retryable(st, http.MethodGet) && !busy(st)
	}
	msg := err.Error()
	for _, code := range []string{"500", "502", "504"} {
		if strings.Contains(msg, code+": ") || strings.Contains(msg, code+" "+http.StatusText(atoi(code))) {
			return true
		}
	}
	return false
}

func atoi(s string) int { n, _ := strconv.Atoi(s); return n }

// waitReady asks the service root through the retrying client until it answers other than busy
// (honouring Retry-After) or ctx ends. A transport error is left to the caller's next request.
func (b *redfishBackend) waitReady(ctx context.Context) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, b.cfg.redfishURL()+"/redfish/v1/", nil)
	if err != nil {
		return err
	}
	resp, err := b.httpc.Do(req)
	if err != nil {
		return nil //nolint:nilerr // a probe that cannot connect says nothing about Retry-After: the call itself reports the failure
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	if busy(resp.StatusCode) {
		return &Error{Kind: ErrUnreachable, Detail: fmt.Sprintf("the BMC answers HTTP %d (busy) and kept doing so as long as the timeout allowed (Retry-After: %q)", resp.StatusCode, resp.Header.Get("Retry-After")), TimedOut: true}
	}
	return nil
}

// retryBusy runs a bmclib call, and while it fails because the BMC is busy, backs off and waits
// until the service root answers again through the retrying client (which honours Retry-After),
// then calls again, within ctx. bmclib hides the response, so the Retry-After is learnt from the
// service root's own answer.
func (b *redfishBackend) retryBusy(ctx context.Context, fn func() error) error {
	return b.retryCall(ctx, false, fn)
}

// retryIdempotent is retryBusy for a call that may be made twice (a read, a PATCH of absolute
// values, a logout): it also retries the transient server errors (500, 502, 504), as the
// transport does for such requests.
func (b *redfishBackend) retryIdempotent(ctx context.Context, fn func() error) error {
	return b.retryCall(ctx, true, fn)
}

func (b *redfishBackend) retryCall(ctx context.Context, idempotent bool, fn func() error) error {
	wait := retryFirstWait
	for attempt := 1; ; attempt++ {
		err := fn()
		retry := busyErr(err) || idempotent && serverErr(err)
		if !retry || attempt >= retryAttempts || ctx.Err() != nil {
			return err
		}
		if dl, ok := ctx.Deadline(); ok && time.Now().Add(wait).After(dl) {
			return err
		}
		if !sleepCtx(ctx, wait) {
			return err
		}
		if werr := b.waitReady(ctx); werr != nil {
			return err
		}
		if wait *= 2; wait > retryMaxWait {
			wait = retryMaxWait
		}
	}
}
