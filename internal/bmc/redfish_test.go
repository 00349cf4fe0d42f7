package bmc

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/testrig"
)

// TestRedfishPowerBootInventory drives the Redfish rig through bmclib's gofish provider: power
// on and off, boot override once/persistent and Legacy/UEFI, and reads every one back, along
// with the inventory; the rig's change log shows exactly the changes made, by the session's user.
func TestRedfishPowerBootInventory(t *testing.T) {
	rig := testrig.StartRedfish(t, testrig.RedfishOptions{})
	ctx := context.Background()
	s := mustOpen(t, rfConfig(rig, nil))
	if s.Protocol() != ProtocolRedfish || s.Endpoint() != rig.Addr(0) {
		t.Fatalf("session: %s %s", s.Protocol(), s.Endpoint())
	}

	st := mustRead(t, s)
	if st.PowerState != "off" || st.BootDevice != "none" || st.Protocol != ProtocolRedfish {
		t.Fatalf("initial state: %+v", st)
	}
	if st.Vendor != "NVIDIA" || st.Model != "DGX H100" || st.Serial != "1560823000042" || st.BMCFirmware != "24.09.17" || st.BIOSFirmware != "1.6.7" {
		t.Fatalf("inventory: %+v", st)
	}
	if st.BIOS["PowerProfile"] != "Balanced" || st.BIOS["NumaNodesPerSocket"] != "1" || st.BIOS["PcieAspm"] != "false" || len(st.BIOSPending) != 0 {
		t.Fatalf("BIOS: %v pending %v", st.BIOS, st.BIOSPending)
	}
	if st.Users[rig.Username] != "Administrator" || len(st.Users) != 1 {
		t.Fatalf("users: %v", st.Users)
	}

	if err := s.SetPower(ctx, "on"); err != nil {
		t.Fatalf("power on: %v", err)
	}
	if rig.PowerState() != "On" || mustRead(t, s).PowerState != "on" {
		t.Fatalf("after power on: rig %s", rig.PowerState())
	}
	if err := s.SetPower(ctx, "on"); err != nil { // already on: no action, no error
		t.Fatalf("power on again: %v", err)
	}

	for _, c := range []struct {
		device           string
		persistent, efi  bool
		target, en, mode string
	}{
		{"pxe", false, false, "Pxe", "Once", "Legacy"},
		{"pxe", true, true, "Pxe", "Continuous", "UEFI"},
		{"disk", false, true, "Hdd", "Once", "UEFI"},
		{"cdrom", true, false, "Cd", "Continuous", "Legacy"},
	} {
		if err := s.SetBootDevice(ctx, c.device, c.persistent, c.efi); err != nil {
			t.Fatalf("boot %+v: %v", c, err)
		}
		if tgt, en, mode := rig.Boot(); tgt != c.target || en != c.en || mode != c.mode {
			t.Fatalf("boot %+v: rig has %s %s %s", c, tgt, en, mode)
		}
		st := mustRead(t, s)
		if st.BootDevice != c.device || st.BootPersistent != c.persistent || st.BootEFI != c.efi {
			t.Fatalf("boot %+v read back as %s persistent=%t efi=%t", c, st.BootDevice, st.BootPersistent, st.BootEFI)
		}
	}
	if err := s.SetBootDevice(ctx, "tape", false, false); !errors.Is(err, ErrInvalid) {
		t.Fatalf("unknown boot device: %v", err)
	}

	if err := s.SetPower(ctx, "off"); err != nil {
		t.Fatalf("power off: %v", err)
	}
	if rig.PowerState() != "Off" {
		t.Fatalf("after power off: rig %s", rig.PowerState())
	}

	var got []string
	for _, c := range rig.Changes() {
		if c.Source != "api" || c.User != rig.Username {
			t.Fatalf("unexpected change: %+v", c)
		}
		got = append(got, c.Property+"="+c.New)
	}
	want := []string{
		"PowerState=On",
		"Boot/BootSourceOverrideTarget=Pxe", "Boot/BootSourceOverrideEnabled=Once", "Boot/BootSourceOverrideMode=Legacy",
		"Boot/BootSourceOverrideEnabled=Continuous", "Boot/BootSourceOverrideMode=UEFI",
		"Boot/BootSourceOverrideTarget=Hdd", "Boot/BootSourceOverrideEnabled=Once",
		"Boot/BootSourceOverrideTarget=Cd", "Boot/BootSourceOverrideEnabled=Continuous", "Boot/BootSourceOverrideMode=Legacy",
		"PowerState=Off",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("change log:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	if err := s.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	if rig.LiveSessions() != 0 || rig.SessionsCreated() != 1 {
		t.Fatalf("sessions after close: live %d, created %d", rig.LiveSessions(), rig.SessionsCreated())
	}
	if err := s.SetPower(ctx, "on"); !errors.Is(err, ErrInvalid) {
		t.Fatalf("use after close: %v", err)
	}
}

// TestRedfishDriftIsRead changes the rig behind the session's back and expects Read to see it.
func TestRedfishDriftIsRead(t *testing.T) {
	rig := testrig.StartRedfish(t, testrig.RedfishOptions{})
	s := mustOpen(t, rfConfig(rig, nil))
	rig.SetPowerOutOfBand("On")
	rig.SetBootOutOfBand("Usb", "Continuous", "Legacy")
	rig.SetBIOSOutOfBand("ProcHyperthreading", "Disabled")
	rig.SetFirmwareOutOfBand("25.01.02", "1.7.0")
	st := mustRead(t, s)
	if st.PowerState != "on" || st.BootDevice != "usb" || !st.BootPersistent || st.BootEFI ||
		st.BIOS["ProcHyperthreading"] != "Disabled" || st.BMCFirmware != "25.01.02" || st.BIOSFirmware != "1.7.0" {
		t.Fatalf("drift not read: %+v", st)
	}
	rig.SetBootOutOfBand("Pxe", "Disabled", "UEFI")
	if st := mustRead(t, s); st.BootDevice != "none" {
		t.Fatalf("a disabled override must read as none, got %s", st.BootDevice)
	}
}

// TestRedfishBIOS sets BIOS attributes through gofish (bmclib v2.3.4 cannot): they are pending
// until the host restarts, typed as the BMC wants, refused whole when one is unknown, and not
// re-sent when already pending.
func TestRedfishBIOS(t *testing.T) {
	rig := testrig.StartRedfish(t, testrig.RedfishOptions{})
	ctx := context.Background()
	s := mustOpen(t, rfConfig(rig, nil))

	want := map[string]string{"PowerProfile": "MaxPerf", "NumaNodesPerSocket": "4", "PcieAspm": "true", "SriovGlobalEnable": "Disabled"}
	if err := s.SetBIOS(ctx, want); err != nil {
		t.Fatalf("SetBIOS: %v", err)
	}
	pending := rig.PendingBIOS()
	if pending["PowerProfile"] != "MaxPerf" || pending["NumaNodesPerSocket"] != float64(4) || pending["PcieAspm"] != true {
		t.Fatalf("pending on the rig: %v", pending)
	}
	if _, sent := pending["SriovGlobalEnable"]; sent {
		t.Fatal("an attribute that already had its value was sent")
	}
	st := mustRead(t, s)
	if st.BIOS["PowerProfile"] != "Balanced" || st.BIOSPending["PowerProfile"] != "MaxPerf" || st.BIOSPending["NumaNodesPerSocket"] != "4" || st.BIOSPending["PcieAspm"] != "true" {
		t.Fatalf("read before reset: BIOS %v pending %v", st.BIOS, st.BIOSPending)
	}

	changes := len(rig.Changes())
	if err := s.SetBIOS(ctx, want); err != nil {
		t.Fatalf("SetBIOS again: %v", err)
	}
	if len(rig.Changes()) != changes {
		t.Fatalf("re-applying pending values changed the rig: %+v", rig.Changes()[changes:])
	}

	err := s.SetBIOS(ctx, map[string]string{"PowerProfile": "PowerSaver", "NoSuchKnob": "1"})
	if !errors.Is(err, ErrNotSupported) || !strings.Contains(err.Error(), "NoSuchKnob") {
		t.Fatalf("unknown attribute: %v", err)
	}
	if rig.PendingBIOS()["PowerProfile"] != "MaxPerf" {
		t.Fatal("a refused SetBIOS changed an attribute")
	}
	if err := s.SetBIOS(ctx, map[string]string{"NumaNodesPerSocket": "four"}); !errors.Is(err, ErrInvalid) {
		t.Fatalf("non-numeric value for a number: %v", err)
	}
	err = s.SetBIOS(ctx, map[string]string{"PowerProfile": "Turbo"})
	if !errors.Is(err, ErrRejected) || !strings.Contains(err.Error(), "PropertyValueNotInList") {
		t.Fatalf("value outside the BMC's list: %v", err)
	}

	if err := s.SetPower(ctx, "on"); err != nil { // the host boots: pending settings apply
		t.Fatal(err)
	}
	st = mustRead(t, s)
	if st.BIOS["PowerProfile"] != "MaxPerf" || st.BIOS["NumaNodesPerSocket"] != "4" || st.BIOS["PcieAspm"] != "true" || len(st.BIOSPending) != 0 {
		t.Fatalf("after reset: BIOS %v pending %v", st.BIOS, st.BIOSPending)
	}
}

// TestRedfishUsers creates and updates accounts: through bmclib on a slot-based BMC, through
// gofish on a BMC that creates accounts by POST, and re-enables a disabled account.
func TestRedfishUsers(t *testing.T) {
	ctx := context.Background()
	const pw1, pw2 = "F1rst-Passw0rd", "Second-Passw0rd"
	logs := &logCapture{}

	rig := testrig.StartRedfish(t, testrig.RedfishOptions{})
	s := mustOpen(t, rfConfig(rig, logs))
	if err := s.EnsureUser(ctx, "ops", "Operator", pw1); err != nil {
		t.Fatalf("create: %v", err)
	}
	if !rig.CheckPassword("ops", pw1) {
		t.Fatal("the account does not log in with its password")
	}
	if err := s.EnsureUser(ctx, "ops", "ReadOnly", pw2); err != nil {
		t.Fatalf("update: %v", err)
	}
	if !rig.CheckPassword("ops", pw2) || rig.CheckPassword("ops", pw1) {
		t.Fatal("password not changed")
	}
	if st := mustRead(t, s); st.Users["ops"] != "ReadOnly" || st.Users[rig.Username] != "Administrator" {
		t.Fatalf("users: %v", st.Users)
	}
	if err := s.EnsureUser(ctx, "bad", "Root", pw1); !errors.Is(err, ErrInvalid) {
		t.Fatalf("unknown role: %v", err)
	}
	err := s.EnsureUser(ctx, "short", "Operator", "abc")
	if !errors.Is(err, ErrRejected) {
		t.Fatalf("password the BMC refuses: %v", err)
	}
	noSecret(t, "error", err.Error(), "abc", pw1, pw2, rig.Password)

	post := testrig.StartRedfish(t, testrig.RedfishOptions{PostAccounts: true})
	ps := mustOpen(t, rfConfig(post, logs))
	if err := ps.EnsureUser(ctx, "ro", "ReadOnly", pw1); err != nil {
		t.Fatalf("create by POST: %v", err)
	}
	if !post.CheckPassword("ro", pw1) {
		t.Fatal("POST-created account does not log in")
	}
	if err := ps.EnsureUser(ctx, "ro", "Administrator", pw2); err != nil {
		t.Fatalf("update of a POST-created account: %v", err)
	}
	if !post.CheckPassword("ro", pw2) {
		t.Fatal("password not changed")
	}

	noSecret(t, "logs", logs.String(), pw1, pw2, rig.Password, post.Password)
	for _, r := range []*testrig.Redfish{rig, post} {
		for _, c := range r.Changes() {
			noSecret(t, "rig change log", fmt.Sprintf("%+v", c), pw1, pw2)
		}
	}
}

// TestRedfishWrongPasswordAndTLS: a wrong password fails as ErrAuth naming endpoint and
// protocol, and neither the error nor any log line holds a password; an untrusted certificate
// fails as ErrTLS unless InsecureTLS is chosen.
func TestRedfishWrongPasswordAndTLS(t *testing.T) {
	rig := testrig.StartRedfish(t, testrig.RedfishOptions{})
	logs := &logCapture{}
	cfg := rfConfig(rig, logs)
	cfg.Password = "Wr0ng-Passw0rd-42"
	_, err := Open(context.Background(), cfg)
	if !errors.Is(err, ErrAuth) {
		t.Fatalf("wrong password: %v", err)
	}
	for _, want := range []string{rig.Addr(0), "redfish", "authentication failed"} {
		if !strings.Contains(err.Error(), want) {
			t.Fatalf("error %q does not name %q", err, want)
		}
	}
	noSecret(t, "error", err.Error(), cfg.Password, rig.Password)
	if !strings.Contains(logs.String(), "redfish") {
		t.Fatalf("the failure was not logged:\n%s", logs.String())
	}
	noSecret(t, "logs", logs.String(), cfg.Password, rig.Password)
	if rig.FailedLogins() == 0 {
		t.Fatal("the rig saw no failed login")
	}

	// Refused credentials do not fall back to IPMI: that would be a downgrade, and here it
	// would wait out the timeout on a port where nothing answers.
	cfg.Protocols = nil
	cfg.IPMIPort = testrig.FreeUDPPort(t)
	_, err = Open(context.Background(), cfg)
	if !errors.Is(err, ErrAuth) || strings.Contains(err.Error(), "(ipmi)") {
		t.Fatalf("wrong password with IPMI as fallback: %v", err)
	}

	cfg = rfConfig(rig, logs)
	cfg.TLSCAPEM = ""
	_, err = Open(context.Background(), cfg)
	if !errors.Is(err, ErrTLS) {
		t.Fatalf("untrusted certificate: %v", err)
	}
	cfg.Protocols, cfg.IPMIPort = nil, testrig.FreeUDPPort(t)
	if _, err = Open(context.Background(), cfg); !errors.Is(err, ErrTLS) || strings.Contains(err.Error(), "(ipmi)") {
		t.Fatalf("untrusted certificate must not fall back to IPMI: %v", err)
	}
	cfg.InsecureTLS = true
	s := mustOpen(t, cfg)
	if st := mustRead(t, s); st.Vendor != "NVIDIA" {
		t.Fatalf("insecure read: %+v", st)
	}
	noSecret(t, "logs", logs.String(), rig.Password)
}

// TestRedfishDeadBMC: a BMC that hangs, before or after login, and a port where nothing listens,
// all fail with ErrUnreachable within Config.Timeout, and give their session slot back.
func TestRedfishDeadBMC(t *testing.T) {
	const timeout = 1500 * time.Millisecond
	slack := time.Second
	rig := testrig.StartRedfish(t, testrig.RedfishOptions{})
	cfg := rfConfig(rig, nil)
	cfg.Timeout = timeout

	rig.Hang()
	start := time.Now()
	_, err := Open(context.Background(), cfg)
	if d := time.Since(start); d > timeout+slack {
		t.Fatalf("Open of a hung BMC took %s (timeout %s)", d, timeout)
	}
	if !errors.Is(err, ErrUnreachable) || !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), rig.Addr(0)) {
		t.Fatalf("hung BMC: %v", err)
	}
	// Worded as when the caller's deadline fires first (below): a node whose timeout equals
	// Config.Timeout gets either, and one cause must read the same.
	if !strings.Contains(err.Error(), "no answer within 1.5s") {
		t.Fatalf("hung BMC, Config.Timeout first: %v, want \"no answer within 1.5s\"", err)
	}
	rig.Unhang()
	waitSlotsFree(t)

	s, err := Open(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rig.Unhang(); _ = s.Close() })
	rig.Hang()
	start = time.Now()
	_, err = s.Read(context.Background())
	if d := time.Since(start); d > timeout+slack || !errors.Is(err, ErrUnreachable) {
		t.Fatalf("Read of a BMC that hung after login: %v after %s", err, time.Since(start))
	}
	// A broken session fails at once: it does not send the request to the BMC that let it down.
	sent := rig.Requests()
	if err := s.SetPower(context.Background(), "on"); !errors.Is(err, ErrUnreachable) || rig.Requests() != sent {
		t.Fatalf("a broken session must fail without asking the BMC: %v (%d requests sent)", err, rig.Requests()-sent)
	}
	// Close does not wait for the hung BMC: waiting would end in the timeout's error, and the
	// logout goes on in the background.
	if err := s.Close(); err != nil {
		t.Fatalf("Close of a broken session waited for the BMC: %v", err)
	}
	rig.Unhang()
	waitSlotsFree(t)

	// The caller's context is honoured too.
	rig.Hang()
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	start = time.Now()
	_, err = Open(ctx, cfg)
	cancel()
	if !errors.Is(err, ErrUnreachable) || time.Since(start) > 300*time.Millisecond+slack || !strings.Contains(err.Error(), "no answer within ") {
		t.Fatalf("Open with a short context: %v after %s", err, time.Since(start))
	}
	rig.Unhang()
	waitSlotsFree(t)

	cfg.Port = testrig.FreePort(t) // nothing listens there
	start = time.Now()
	_, err = Open(context.Background(), cfg)
	if !errors.Is(err, ErrUnreachable) || time.Since(start) > timeout || !strings.Contains(err.Error(), "127.0.0.1:"+strconv.Itoa(cfg.Port)) {
		t.Fatalf("closed port: %v after %s", err, time.Since(start))
	}
	waitSlotsFree(t)
}

// TestRedfishConcurrencyBound opens many sessions at once against six "BMCs" (ports of one
// rig) and checks that the rig never sees more live Redfish sessions than the process-wide
// bound, that the bound was actually reached (the sessions did overlap), and that sessions to one
// BMC never overlap.
func TestRedfishConcurrencyBound(t *testing.T) {
	defer SetMaxSessions(MaxSessions())
	const limit, workers = 3, 12
	SetMaxSessions(limit)
	sessionSlots.mu.Lock()
	sessionSlots.peak = 0
	sessionSlots.mu.Unlock()

	rig := testrig.StartRedfish(t, testrig.RedfishOptions{Listeners: 6, Latency: 5 * time.Millisecond})
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for i := 0; i < workers; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			cfg := rfConfig(rig, nil)
			cfg.Port = rig.Ports[i%len(rig.Ports)]
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			s, err := Open(ctx, cfg)
			if err != nil {
				errs <- err
				return
			}
			defer s.Close()
			// Reads only: the six ports share one state, and concurrent writes to it would
			// (rightly) meet ETag conflicts.
			if _, err := s.Read(ctx); err != nil {
				errs <- err
			}
		}(i)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("worker: %v", err)
	}
	if got := rig.MaxLiveSessions(); got > limit || got < 2 {
		t.Fatalf("max live Redfish sessions on the rig: %d, want between 2 and %d", got, limit)
	}
	sessionSlots.mu.Lock()
	peak := sessionSlots.peak
	sessionSlots.mu.Unlock()
	if peak > limit {
		t.Fatalf("slot peak %d > %d", peak, limit)
	}
	if rig.SessionsCreated() != workers || rig.LiveSessions() != 0 || OpenSessions() != 0 {
		t.Fatalf("sessions: created %d, live %d, slots held %d", rig.SessionsCreated(), rig.LiveSessions(), OpenSessions())
	}

	// One BMC: the per-BMC lock serialises sessions whatever the slot bound.
	SetMaxSessions(16)
	one := testrig.StartRedfish(t, testrig.RedfishOptions{})
	var wg2 sync.WaitGroup
	for i := 0; i < 4; i++ {
		wg2.Add(1)
		go func() {
			defer wg2.Done()
			s, err := Open(context.Background(), rfConfig(one, nil))
			if err != nil {
				t.Error(err)
				return
			}
			defer s.Close()
			if _, err := s.Read(context.Background()); err != nil {
				t.Error(err)
			}
		}()
	}
	wg2.Wait()
	if one.MaxLiveSessions() != 1 || one.SessionsCreated() != 4 {
		t.Fatalf("one BMC: max live %d, created %d", one.MaxLiveSessions(), one.SessionsCreated())
	}
}
