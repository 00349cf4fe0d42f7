package bmc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"

	bmclib "github.com/bmc-toolbox/bmclib/v2"
	rfprovider "github.com/bmc-toolbox/bmclib/v2/providers/redfish"
	"github.com/go-logr/logr"
	"github.com/stmcginnis/gofish"
	"github.com/stmcginnis/gofish/common"
	rf "github.com/stmcginnis/gofish/redfish"
)

// redfishBackend drives a BMC through bmclib's gofish provider (power, boot override, users)
// and through gofish directly where bmclib v2.3.4 falls short:
//   - BIOS settings: no provider satisfies bmclib's BiosConfigurationSetter, so Client
//     .SetBiosConfiguration can never succeed; bmclib's BIOS and inventory reads also skip
//     systems whose ID is not on its list of well-known vendor IDs and then return empty.
//   - Boot read-back: bmclib's BootDeviceOverride cannot say "no override" (it drops
//     BootSourceOverrideEnabled=Disabled) and fails on targets outside its table.
//   - Inventory: bmclib's Inventory walks every component (dozens of requests per node); Read
//     needs five strings.
//
// The gofish client uses HTTP Basic authentication, so it opens no second Redfish session on
// the BMC: the session bound (DefaultMaxSessions) stays one BMC session per Session.
type redfishBackend struct {
	cfg   *config
	cl    *bmclib.Client
	httpc *http.Client // retries busy answers itself (retry.go)
	libc  *http.Client // bmclib's: its calls go through retryBusy
	log   logr.Logger
}

func openRedfish(ctx context.Context, c *config, log logr.Logger, _ *redactor) (backend, error) {
	httpc, libc := c.httpClient(), c.plainHTTPClient()
	opts := []bmclib.Option{
		bmclib.WithLogger(log),
		bmclib.WithHTTPClient(libc),
		bmclib.WithRedfishPort(strconv.Itoa(c.rfPort)),
	}
	if !c.InsecureTLS {
		// bmclib skips verification unless told otherwise; a nil pool means the system roots.
		opts = append(opts, bmclib.WithSecureTLS(c.pool))
	}
	cl := bmclib.NewClient(c.hostArg, c.Username, c.Password, opts...)
	// Filter for good: For() alone filters one call only (and is lost without
	// WithPerProviderTimeout), after which bmclib would try every vendor provider in turn.
	cl.Registry.Drivers = cl.Registry.For(rfprovider.ProviderName)
	if len(cl.Registry.Drivers) == 0 {
		return nil, &Error{Kind: ErrFailed, Detail: "bmclib has no gofish (Redfish) provider"}
	}
	b := &redfishBackend{cfg: c, cl: cl, httpc: httpc, libc: libc, log: log}
	// Ask the (unauthenticated) service root first, through the retrying client: a BMC that is
	// busy says so there with its Retry-After, which bmclib's login would hide.
	if err := b.waitReady(ctx); err != nil {
		return nil, err
	}
	if err := b.retryBusy(ctx, func() error { return cl.Open(ctx) }); err != nil {
		return nil, err
	}
	return b, nil
}

func (b *redfishBackend) classify(err error) (error, string, bool) { return classifyRedfish(err) } //nolint:staticcheck // ST1008: see classifyRedfish

func (b *redfishBackend) close(ctx context.Context) error {
	b.httpc.CloseIdleConnections()
	b.libc.CloseIdleConnections()
	return b.retryIdempotent(ctx, func() error { return b.cl.Close(ctx) })
}

// gofish opens a gofish client for one operation: the context bounds every request it makes
// (gofish takes the context at connect time only).
func (b *redfishBackend) gofish(ctx context.Context) (*gofish.APIClient, error) {
	return gofish.ConnectContext(ctx, gofish.ClientConfig{
		Endpoint:   b.cfg.redfishURL(),
		Username:   b.cfg.Username,
		Password:   b.cfg.Password,
		BasicAuth:  true,
		HTTPClient: b.httpc,
	})
}

// system returns the BMC's computer system. Single-system BMCs are the case of GPU nodes; with
// several, the first by URI is read (bmclib writes to all of them).
func (b *redfishBackend) system(gf *gofish.APIClient) (*rf.ComputerSystem, error) {
	systems, err := gf.Service.Systems()
	if err != nil {
		return nil, err
	}
	if len(systems) == 0 {
		return nil, &Error{Kind: ErrNotSupported, Detail: "the BMC lists no computer system"}
	}
	sort.Slice(systems, func(i, j int) bool { return systems[i].ODataID < systems[j].ODataID })
	return systems[0], nil
}

func getJSON(gf *gofish.APIClient, uri string, v any) (etag string, err error) {
	resp, err := gf.Get(uri)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(io.LimitReader(resp.Body, 8<<20)).Decode(v); err != nil {
		return "", fmt.Errorf("decoding %s: %w", uri, err)
	}
	return resp.Header.Get("ETag"), nil
}

func (b *redfishBackend) powerState(ctx context.Context) (string, error) {
	var raw string
	err := b.retryIdempotent(ctx, func() (err error) { raw, err = b.cl.GetPowerState(ctx); return err })
	if err != nil {
		return "", err
	}
	return normalisePower(raw)
}

func (b *redfishBackend) read(ctx context.Context) (State, error) {
	var st State
	var err error
	if st.PowerState, err = b.powerState(ctx); err != nil {
		return st, err
	}
	gf, err := b.gofish(ctx)
	if err != nil {
		return st, err
	}
	sys, err := b.system(gf)
	if err != nil {
		return st, err
	}
	st.Vendor, st.Model, st.Serial, st.BIOSFirmware = sys.Manufacturer, sys.Model, sys.SerialNumber, sys.BIOSVersion
	st.BootDevice, st.BootPersistent, st.BootEFI = bootFromRedfish(sys.Boot)

	bios, err := b.readBIOS(gf, sys)
	if err != nil {
		return st, err
	}
	if bios != nil {
		st.BIOS = map[string]string{}
		for k, v := range bios.current {
			st.BIOS[k] = biosText(v)
		}
		st.BIOSPending = map[string]string{}
		for k, v := range bios.pending {
			if cur, ok := bios.current[k]; !ok || biosText(cur) != biosText(v) {
				st.BIOSPending[k] = biosText(v)
			}
		}
	}

	managers, err := gf.Service.Managers()
	if err != nil {
		return st, err
	}
	sort.Slice(managers, func(i, j int) bool { return managers[i].ODataID < managers[j].ODataID })
	for _, m := range managers {
		if m.ManagerType == rf.BMCManagerType || st.BMCFirmware == "" {
			st.BMCFirmware = m.FirmwareVersion
			if m.ManagerType == rf.BMCManagerType {
				break
			}
		}
	}

	users, err := b.readUsers(ctx)
	switch {
	case httpStatus(err) == http.StatusForbidden:
		// An Operator account may not read the account service on some BMCs: the rest of the
		// state is still worth having, and Users stays nil ("unknown").
		b.log.V(1).Info("cannot read BMC accounts with this account's role")
		return st, nil
	case err != nil:
		return st, err
	}
	st.Users = map[string]string{}
	for _, u := range users {
		if name := u["Username"]; name != "" {
			st.Users[name] = u["RoleID"]
		}
	}
	return st, nil
}

// httpStatus is the HTTP status of a Redfish error, or 0.
func httpStatus(err error) int {
	var rfErr *common.Error
	if errors.As(err, &rfErr) {
		return rfErr.HTTPReturnedStatusCode
	}
	return 0
}

// rfBootNames maps Redfish BootSourceOverrideTarget values to bmclib's device names.
var rfBootNames = map[rf.BootSourceOverrideTarget]string{
	rf.NoneBootSourceOverrideTarget:        "none",
	rf.PxeBootSourceOverrideTarget:         "pxe",
	rf.HddBootSourceOverrideTarget:         "disk",
	rf.CdBootSourceOverrideTarget:          "cdrom",
	rf.BiosSetupBootSourceOverrideTarget:   "bios",
	rf.UsbBootSourceOverrideTarget:         "usb",
	rf.DiagsBootSourceOverrideTarget:       "diag",
	rf.FloppyBootSourceOverrideTarget:      "floppy",
	rf.UtilitiesBootSourceOverrideTarget:   "utilities",
	rf.SDCardBootSourceOverrideTarget:      "sd_card",
	rf.RemoteDriveBootSourceOverrideTarget: "remote_drive",
}

func bootFromRedfish(boot rf.Boot) (device string, persistent, efi bool) {
	efi = boot.BootSourceOverrideMode == rf.UEFIBootSourceOverrideMode
	if boot.BootSourceOverrideEnabled == rf.DisabledBootSourceOverrideEnabled || boot.BootSourceOverrideEnabled == "" {
		return "none", false, efi
	}
	device, ok := rfBootNames[boot.BootSourceOverrideTarget]
	if !ok {
		device = strings.ToLower(string(boot.BootSourceOverrideTarget))
	}
	return device, boot.BootSourceOverrideEnabled == rf.ContinuousBootSourceOverrideEnabled, efi
}

// landed decides a change the BMC answered with an error by what it shows afterwards (issue 22):
// a BMC can do the work and then fail to say so (a 500 from its web server, a body that is not
// JSON), and an apply that landed must not be reported as failed. inPlace reads back whether the
// change is in place; when it is, the answer is logged and the change counts as done. Refused
// credentials or certificates and an unreachable BMC are never second-guessed.
func (b *redfishBackend) landed(err error, what string, inPlace func() bool) error {
	if err == nil {
		return nil
	}
	if kind, _, _ := classifyRedfish(err); kind == ErrAuth || kind == ErrTLS || kind == ErrUnreachable {
		return err
	}
	if !inPlace() {
		return err
	}
	kind, _, _ := classifyRedfish(err)
	b.log.V(1).Info("the BMC answered the change with an error, but reading it back shows it in place", "change", what, "answer", kind.Error())
	return nil
}

func (b *redfishBackend) setPower(ctx context.Context, state string) error {
	var ok bool
	err := b.retryBusy(ctx, func() (err error) { ok, err = b.cl.SetPowerState(ctx, state); return err })
	if err != nil {
		return b.landed(err, "power "+state, func() bool { return waitPower(ctx, state, b.powerState) == nil })
	}
	if !ok {
		return &Error{Kind: ErrRejected, Detail: "bmclib reports that the power action failed"}
	}
	return waitPower(ctx, state, b.powerState)
}

// waitPower polls until the BMC reports the power state asked for. BMCs apply resets
// asynchronously; a Terraform apply must not report success before the host is where it asked.
// It stops a little before ctx's deadline so that its own, more precise, error wins the race.
func waitPower(ctx context.Context, want string, get func(context.Context) (string, error)) error {
	stop := time.Now().Add(10 * time.Second)
	if d, ok := ctx.Deadline(); ok {
		stop = time.Now().Add(time.Until(d) * 9 / 10)
	}
	wait := 100 * time.Millisecond
	var last string
	for {
		got, err := get(ctx)
		if err == nil && got == want {
			return nil
		}
		if err == nil {
			last = got
		}
		if time.Now().Add(wait).After(stop) {
			if last == "" && err != nil {
				return err
			}
			return &Error{Kind: ErrRejected, Detail: fmt.Sprintf("the BMC accepted power %s but still reports %s", want, last)}
		}
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return ctx.Err()
		}
		if wait < time.Second {
			wait *= 2
		}
	}
}

func (b *redfishBackend) setBootDevice(ctx context.Context, device string, persistent, efi bool) error {
	var ok bool
	err := b.retryIdempotent(ctx, func() (err error) { ok, err = b.cl.SetBootDevice(ctx, device, persistent, efi); return err })
	if err == nil && !ok {
		err = &Error{Kind: ErrRejected, Detail: "bmclib reports that setting the boot device failed"}
	}
	if err != nil {
		return b.landed(err, "boot device "+device, func() bool { return b.bootIs(ctx, device, persistent, efi) == nil })
	}
	// Read back: bmclib retries a refused PATCH with target and enable only, silently dropping
	// the UEFI/Legacy mode; a BMC may also accept and ignore.
	return b.bootIs(ctx, device, persistent, efi)
}

// bootIs reads the boot override back and compares it with the one asked for.
func (b *redfishBackend) bootIs(ctx context.Context, device string, persistent, efi bool) error {
	gf, err := b.gofish(ctx)
	if err != nil {
		return err
	}
	sys, err := b.system(gf)
	if err != nil {
		return err
	}
	got, gotPersistent, gotEFI := bootFromRedfish(sys.Boot)
	if got != device || (device != "none" && (gotPersistent != persistent || gotEFI != efi)) {
		return &Error{Kind: ErrRejected, Detail: fmt.Sprintf("asked for boot %s (persistent=%t, uefi=%t), the BMC reports %s (persistent=%t, uefi=%t)",
			device, persistent, efi, got, gotPersistent, gotEFI)}
	}
	return nil
}

func (b *redfishBackend) ensureUser(ctx context.Context, name, role, password string) error {
	users, err := b.readUsers(ctx)
	if err != nil {
		return err
	}
	exists, roleBefore := false, ""
	for _, u := range users {
		if u["Username"] == name {
			exists, roleBefore = true, u["RoleID"]
		}
	}
	var ok bool
	if exists {
		err = b.retryIdempotent(ctx, func() (err error) { ok, err = b.cl.UpdateUser(ctx, name, password, role); return err })
	} else {
		err = b.retryBusy(ctx, func() (err error) { ok, err = b.cl.CreateUser(ctx, name, password, role); return err })
		// bmclib claims an empty, disabled slot (iDRAC, Supermicro). Services that create
		// accounts by POST (OpenBMC, the DMTF model) have no such slot, and an existing but
		// disabled account is not one: both go through gofish.
		if err != nil && (errors.Is(err, rfprovider.ErrNoUserSlotsAvailable) || errors.Is(err, rfprovider.ErrUserExists)) {
			ok, err = true, b.ensureUserGofish(ctx, name, role, password)
		}
	}
	if err != nil {
		// Landed when the account is now there with the role, and the change shows: it was
		// created, or its role changed (the role and the password go in one request), or the
		// new password logs in.
		return b.landed(err, "account "+name, func() bool {
			users, rerr := b.readUsers(ctx)
			if rerr != nil {
				return false
			}
			for _, u := range users {
				if u["Username"] == name && u["RoleID"] == role {
					return !exists || roleBefore != role || b.logsIn(ctx, name, password)
				}
			}
			return false
		})
	}
	if !ok {
		return &Error{Kind: ErrRejected, Detail: "bmclib reports that the account change failed"}
	}
	users, err = b.readUsers(ctx)
	if err != nil {
		return err
	}
	for _, u := range users {
		if u["Username"] == name {
			if u["RoleID"] != role {
				return &Error{Kind: ErrRejected, Detail: fmt.Sprintf("account %s has role %s after setting %s", name, u["RoleID"], role)}
			}
			return nil
		}
	}
	return &Error{Kind: ErrRejected, Detail: fmt.Sprintf("account %s is not enabled after the change", name)}
}

func (b *redfishBackend) ensureUserGofish(ctx context.Context, name, role, password string) error {
	gf, err := b.gofish(ctx)
	if err != nil {
		return err
	}
	as, err := gf.Service.AccountService()
	if err != nil {
		return err
	}
	accounts, err := as.Accounts()
	if err != nil {
		return err
	}
	for _, a := range accounts {
		if a.UserName == name {
			a.Enabled, a.Password, a.RoleID = true, password, role
			return a.Update()
		}
	}
	_, err = as.CreateAccount(name, password, role)
	return err
}

// rfBIOS is the part of a Bios resource this package reads; gofish keeps the settings link
// unexported.
type rfBIOS struct {
	ODataID    string         `json:"@odata.id"`
	Attributes map[string]any `json:"Attributes"`
	Settings   struct {
		SettingsObject struct {
			ODataID string `json:"@odata.id"`
		} `json:"SettingsObject"`
	} `json:"@Redfish.Settings"`
}

type biosView struct {
	uri, settingsURI, settingsETag string
	current, pending               map[string]any
}

// readBIOS reads the current attributes and, when the BMC has a separate settings object, the
// pending ones. It returns nil when the system has no Bios resource.
func (b *redfishBackend) readBIOS(gf *gofish.APIClient, sys *rf.ComputerSystem) (*biosView, error) {
	var link struct {
		Bios struct {
			ODataID string `json:"@odata.id"`
		} `json:"Bios"`
	}
	if _, err := getJSON(gf, sys.ODataID, &link); err != nil {
		return nil, err
	}
	if link.Bios.ODataID == "" {
		return nil, nil
	}
	var cur rfBIOS
	etag, err := getJSON(gf, link.Bios.ODataID, &cur)
	if httpStatus(err) == http.StatusNotFound {
		return nil, nil // linked but absent: treat as no BIOS resource
	}
	if err != nil {
		return nil, err
	}
	v := &biosView{uri: link.Bios.ODataID, settingsURI: link.Bios.ODataID, settingsETag: etag, current: cur.Attributes}
	if v.current == nil {
		v.current = map[string]any{}
	}
	if s := cur.Settings.SettingsObject.ODataID; s != "" && s != v.uri {
		var pend rfBIOS
		if v.settingsETag, err = getJSON(gf, s, &pend); err != nil {
			return nil, err
		}
		v.settingsURI, v.pending = s, pend.Attributes
	}
	return v, nil
}

func (b *redfishBackend) setBIOS(ctx context.Context, settings map[string]string) error {
	gf, err := b.gofish(ctx)
	if err != nil {
		return err
	}
	sys, err := b.system(gf)
	if err != nil {
		return err
	}
	v, err := b.readBIOS(gf, sys)
	if err != nil {
		return err
	}
	if v == nil {
		return &Error{Kind: ErrNotSupported, Detail: "the system has no Bios resource"}
	}
	// Check every attribute before changing any, and send the BMC's types: Redfish refuses
	// "4" for an integer attribute.
	payload := map[string]any{}
	for _, name := range sortedKeys(settings) {
		cur, ok := v.current[name]
		if !ok {
			return &Error{Kind: ErrNotSupported, Detail: fmt.Sprintf("BIOS attribute %q does not exist on this BMC", name)}
		}
		want, err := typedLike(cur, settings[name])
		if err != nil {
			return &Error{Kind: ErrInvalid, Detail: fmt.Sprintf("BIOS attribute %s: %v", name, err)}
		}
		effective := cur
		if p, ok := v.pending[name]; ok {
			effective = p
		}
		if biosText(effective) != biosText(want) {
			payload[name] = want
		}
	}
	if len(payload) == 0 {
		return nil
	}
	hdr := map[string]string{}
	if v.settingsETag != "" {
		hdr["If-Match"] = v.settingsETag
	}
	resp, err := gf.PatchWithHeaders(v.settingsURI, map[string]any{"Attributes": payload}, hdr)
	if err != nil {
		return b.landed(err, "BIOS settings", func() bool { return biosIs(gf, v.settingsURI, payload) == nil })
	}
	resp.Body.Close()
	if v.settingsURI == v.uri {
		return nil // no separate settings object to read the pending values from
	}
	return biosIs(gf, v.settingsURI, payload)
}

// biosIs reads the settings object at uri back and compares the attributes of payload.
func biosIs(gf *gofish.APIClient, uri string, payload map[string]any) error {
	var after rfBIOS
	if _, err := getJSON(gf, uri, &after); err != nil {
		return err
	}
	for _, name := range sortedKeys(payload) {
		if biosText(after.Attributes[name]) != biosText(payload[name]) {
			return &Error{Kind: ErrRejected, Detail: fmt.Sprintf("the BMC accepted BIOS attribute %s = %s but its pending settings show %q", name, biosText(payload[name]), biosText(after.Attributes[name]))}
		}
	}
	return nil
}

// logsIn tells whether name and password open the account service (HTTP Basic, through the
// session's TLS settings): how an account's new password is read back.
func (b *redfishBackend) logsIn(ctx context.Context, name, password string) bool {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, b.cfg.redfishURL()+"/redfish/v1/AccountService", nil)
	if err != nil {
		return false
	}
	req.SetBasicAuth(name, password)
	resp, err := b.httpc.Do(req)
	if err != nil {
		return false
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

// typedLike converts text to the JSON type of the BMC's current value.
func typedLike(cur any, text string) (any, error) {
	switch cur.(type) {
	case float64:
		f, err := strconv.ParseFloat(strings.TrimSpace(text), 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not a number", text)
		}
		return f, nil
	case bool:
		v, err := strconv.ParseBool(strings.TrimSpace(text))
		if err != nil {
			return nil, fmt.Errorf("%q is not true or false", text)
		}
		return v, nil
	}
	return text, nil
}

// biosText renders an attribute value as text: integers without exponent, booleans as
// true/false.
func biosText(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case bool:
		return strconv.FormatBool(x)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func (b *redfishBackend) readUsers(ctx context.Context) ([]map[string]string, error) {
	var users []map[string]string
	err := b.retryIdempotent(ctx, func() (err error) { users, err = b.cl.ReadUsers(ctx); return err })
	return users, err
}
