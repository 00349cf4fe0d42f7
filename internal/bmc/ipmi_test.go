package bmc

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/testrig"
)

// TestIPMIPowerBootUsers drives ipmi_sim through bmclib's ipmitool provider: power on and off,
// PXE and disk boot, each read back both through the session and from the simulator's chassis
// state; inventory; and an account created through ipmitool's command file that then logs in.
func TestIPMIPowerBootUsers(t *testing.T) {
	testrig.RequirePeers(t)
	sim := testrig.StartIPMISim(t)
	ctx := context.Background()
	logs := &logCapture{}
	s := mustOpen(t, ipmiConfig(sim, logs))
	if s.Protocol() != ProtocolIPMI || s.Endpoint() != sim.Addr() {
		t.Fatalf("session: %s %s", s.Protocol(), s.Endpoint())
	}

	st := mustRead(t, s)
	if st.PowerState != "off" || st.Protocol != ProtocolIPMI || st.BMCFirmware != "9.08" || st.BIOS != nil {
		t.Fatalf("initial state: %+v", st)
	}
	// ipmi_sim has no system firmware version: ipmitool exits 0 and prints
	// "getsysinfo command failed: Invalid command", which is "unknown", not a version.
	if st.BIOSFirmware != "" {
		t.Fatalf("BIOS firmware from ipmi_sim: %q, want unknown (empty)", st.BIOSFirmware)
	}
	if st.Users[sim.User] != "Administrator" {
		t.Fatalf("users: %v", st.Users)
	}

	if err := s.SetPower(ctx, "on"); err != nil {
		t.Fatalf("power on: %v", err)
	}
	if sim.PowerState() != "on" || mustRead(t, s).PowerState != "on" {
		t.Fatalf("after power on: sim %s", sim.PowerState())
	}

	if err := s.SetBootDevice(ctx, "pxe", false, false); err != nil {
		t.Fatalf("boot pxe: %v", err)
	}
	if sim.BootDevice() != "pxe" || mustRead(t, s).BootDevice != "pxe" {
		t.Fatalf("after boot pxe: sim %s", sim.BootDevice())
	}
	// ipmi_sim keeps no persistent/EFI flags; the device is still set and read back.
	if err := s.SetBootDevice(ctx, "disk", true, true); err != nil {
		t.Fatalf("boot disk: %v", err)
	}
	if sim.BootDevice() != "default" || mustRead(t, s).BootDevice != "disk" {
		t.Fatalf("after boot disk: sim %s", sim.BootDevice())
	}
	if err := s.SetBootDevice(ctx, "usb", false, false); !errors.Is(err, ErrNotSupported) {
		t.Fatalf("usb over IPMI: %v", err)
	}

	if err := s.SetPower(ctx, "off"); err != nil {
		t.Fatalf("power off: %v", err)
	}
	if sim.PowerState() != "off" || mustRead(t, s).PowerState != "off" {
		t.Fatalf("after power off: sim %s", sim.PowerState())
	}

	sim.SetPowerOutOfBand(true)
	if st := mustRead(t, s); st.PowerState != "on" {
		t.Fatalf("out-of-band power on not read: %+v", st)
	}

	const opsPW = "0ps-Passw0rd"
	if err := s.EnsureUser(ctx, "ops", "Operator", opsPW); err != nil {
		t.Fatalf("ensure user: %v", err)
	}
	if st := mustRead(t, s); st.Users["ops"] != "Operator" {
		t.Fatalf("users after EnsureUser: %v", st.Users)
	}
	if err := s.EnsureUser(ctx, "ops", "Administrator", opsPW+"2"); err != nil {
		t.Fatalf("update user: %v", err)
	}
	if err := s.EnsureUser(ctx, "x", "Operator", "has space"); !errors.Is(err, ErrInvalid) {
		t.Fatalf("password with a space: %v", err)
	}

	if err := s.SetBIOS(ctx, map[string]string{"BootMode": "Uefi"}); !errors.Is(err, ErrNotSupported) {
		t.Fatalf("BIOS over IPMI: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	// The new account works.
	cfg := ipmiConfig(sim, logs)
	cfg.Username, cfg.Password = "ops", opsPW+"2"
	ops := mustOpen(t, cfg)
	if st := mustRead(t, ops); st.PowerState != "on" {
		t.Fatalf("read as ops: %+v", st)
	}
	noSecret(t, "logs", logs.String(), sim.Password, opsPW, opsPW+"2")
}

// TestIPMIWrongPassword: ipmitool says the same "Unable to establish IPMI v2 / RMCP+ session"
// for a wrong password and a dead BMC; the session asks again verbosely and reports
// "authentication failed", without the password in the error or the logs.
func TestIPMIWrongPassword(t *testing.T) {
	testrig.RequirePeers(t)
	sim := testrig.StartIPMISim(t)
	logs := &logCapture{}
	cfg := ipmiConfig(sim, logs)
	cfg.Password = "Wr0ngPW-77"
	start := time.Now()
	_, err := Open(context.Background(), cfg)
	if !errors.Is(err, ErrAuth) || time.Since(start) > 5*time.Second {
		t.Fatalf("wrong password: %v after %s", err, time.Since(start))
	}
	for _, want := range []string{sim.Addr(), "(ipmi)", "authentication failed", "RAKP 2 HMAC is invalid"} {
		if !strings.Contains(err.Error(), want) {
			t.Fatalf("error %q does not name %q", err, want)
		}
	}
	noSecret(t, "error", err.Error(), cfg.Password, sim.Password)
	noSecret(t, "logs", logs.String(), cfg.Password, sim.Password)

	cfg = ipmiConfig(sim, logs)
	cfg.Username = "nobody"
	if _, err := Open(context.Background(), cfg); !errors.Is(err, ErrAuth) {
		t.Fatalf("unknown user: %v", err)
	}
}

// TestIPMIFallbackAndDeadBMC: with Redfish first and nothing listening on its port, Open falls
// back to IPMI; with no IPMI BMC either, Open fails with ErrUnreachable within Config.Timeout,
// naming both attempts.
func TestIPMIFallbackAndDeadBMC(t *testing.T) {
	testrig.RequirePeers(t)
	sim := testrig.StartIPMISim(t)
	cfg := ipmiConfig(sim, nil)
	cfg.Protocols = nil // default: redfish, then ipmi
	cfg.Port = testrig.FreePort(t)
	cfg.IPMIPort = sim.Port
	s := mustOpen(t, cfg)
	if s.Protocol() != ProtocolIPMI {
		t.Fatalf("fell back to %q", s.Protocol())
	}
	if st := mustRead(t, s); st.Protocol != ProtocolIPMI {
		t.Fatalf("read: %+v", st)
	}
	_ = s.Close()

	const timeout = 2 * time.Second
	cfg.IPMIPort = testrig.FreeUDPPort(t) // nothing answers there
	cfg.Timeout = timeout
	start := time.Now()
	_, err := Open(context.Background(), cfg)
	if d := time.Since(start); d > timeout+time.Second {
		t.Fatalf("dead BMC took %s (timeout %s)", d, timeout)
	}
	if !errors.Is(err, ErrUnreachable) || !strings.Contains(err.Error(), "(redfish)") || !strings.Contains(err.Error(), "(ipmi)") {
		t.Fatalf("dead BMC: %v", err)
	}
	waitSlotsFree(t)
}
