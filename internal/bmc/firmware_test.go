package bmc

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/testrig"
)

// The rig starts every BMC at these versions (testrig.StartRedfish): the independent truth the
// reads are compared with.
const (
	rigBMCVersion  = "24.09.17"
	rigBIOSVersion = "1.6.7"
)

func TestFirmwareReadUpdateAndNoChange(t *testing.T) {
	rig := testrig.StartRedfish(t, testrig.RedfishOptions{})
	rig.AddFirmwareImage("http://images.example/bmc-25.01.03.bin", "BMC", "25.01.03")
	rig.AddFirmwareImage("http://images.example/bios-1.7.0.bin", "BIOS", "1.7.0")
	s := mustOpen(t, rfConfig(rig, nil))
	defer s.Close()
	ctx := context.Background()

	fw, err := s.Firmware(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if fw != (Firmware{BMC: rigBMCVersion, BIOS: rigBIOSVersion, Source: "FirmwareInventory"}) {
		t.Fatalf("Firmware() = %+v", fw)
	}

	res, err := s.UpdateFirmware(ctx, FirmwareBMC, "http://images.example/bmc-25.01.03.bin", "25.01.03")
	if err != nil {
		t.Fatal(err)
	}
	if !res.Changed || res.Before != rigBMCVersion || res.After != "25.01.03" || res.Task == "" {
		t.Fatalf("update = %+v", res)
	}
	res, err = s.UpdateFirmware(ctx, FirmwareBIOS, "http://images.example/bios-1.7.0.bin", "1.7.0")
	if err != nil || !res.Changed || res.After != "1.7.0" {
		t.Fatalf("BIOS update = %+v, %v", res, err)
	}
	// The rig's own record: two tasks, both completed, and the versions it now serves.
	if got := strings.Join(rig.Updates(), ","); got != "http://images.example/bmc-25.01.03.bin -> Completed,http://images.example/bios-1.7.0.bin -> Completed" {
		t.Fatalf("rig updates: %s", got)
	}
	if fw, _ := s.Firmware(ctx); fw.BMC != "25.01.03" || fw.BIOS != "1.7.0" {
		t.Fatalf("after: %+v", fw)
	}

	// Already at the version: no change, nothing posted, not an error.
	res, err = s.UpdateFirmware(ctx, FirmwareBMC, "http://images.example/bmc-25.01.03.bin", "25.01.03")
	if err != nil || res.Changed || res.Before != "25.01.03" {
		t.Fatalf("same version: %+v, %v", res, err)
	}
	if n := len(rig.Updates()); n != 2 {
		t.Fatalf("same version posted an update: %d tasks", n)
	}
}

func TestFirmwareUpdateTaskFails(t *testing.T) {
	rig := testrig.StartRedfish(t, testrig.RedfishOptions{UpdateTime: 100 * time.Millisecond})
	rig.AddFirmwareImage("http://i/bios-1.7.0.bin", "BIOS", "1.7.0")
	s := mustOpen(t, rfConfig(rig, nil))
	defer s.Close()
	ctx := context.Background()

	rig.FailNextUpdate("Installation of image 'bios-1.7.0.bin' to 'BIOS' failed: signature check failed.")
	_, err := s.UpdateFirmware(ctx, FirmwareBIOS, "http://i/bios-1.7.0.bin", "1.7.0")
	if !errors.Is(err, ErrRejected) || !strings.Contains(err.Error(), "ended in Exception") || !strings.Contains(err.Error(), "signature check failed") {
		t.Fatalf("failed task: %v", err)
	}
	// An image the BMC cannot fetch: the task's TransferFailed message.
	_, err = s.UpdateFirmware(ctx, FirmwareBMC, "http://i/nowhere.bin", "25.01.03")
	if !errors.Is(err, ErrRejected) || !strings.Contains(err.Error(), "Transfer of image 'http://i/nowhere.bin'") {
		t.Fatalf("unknown image: %v", err)
	}
	// The rig's TransferFailed message quotes the URI: a password in it is redacted.
	_, err = s.UpdateFirmware(ctx, FirmwareBMC, "https://fw:Img-s3cret-pw@i/bmc.bin", "25.01.03")
	if err == nil || !strings.Contains(err.Error(), "Transfer of image") {
		t.Fatalf("unknown image with credentials: %v", err)
	}
	noSecret(t, "the error", err.Error(), "Img-s3cret-pw")
	if fw, _ := s.Firmware(ctx); fw.BIOS != rigBIOSVersion || fw.BMC != rigBMCVersion {
		t.Fatalf("failed updates changed firmware: %+v", fw)
	}
	// An image that installs another version than the one declared: caught by the read-back.
	rig.AddFirmwareImage("http://i/bmc-mislabelled.bin", "BMC", "25.02.00")
	defer func(d time.Duration) { firmwareSettle = d }(firmwareSettle)
	firmwareSettle = time.Second
	start := time.Now()
	_, err = s.UpdateFirmware(ctx, FirmwareBMC, "http://i/bmc-mislabelled.bin", "25.01.03")
	if !errors.Is(err, ErrRejected) || !strings.Contains(err.Error(), "shows BMC firmware 25.02.00, not 25.01.03") {
		t.Fatalf("wrong version installed: %v", err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Fatalf("the mismatch took %s to report", took)
	}
}

// TestFirmwareUpdateKilledAndNoContent: a Killed task fails with its messages; a BMC that
// answers 204 with the Task's own URI in Location (sushy-tools) is followed through the Task.
func TestFirmwareUpdateKilledAndNoContent(t *testing.T) {
	for _, noContent := range []bool{false, true} {
		rig := testrig.StartRedfish(t, testrig.RedfishOptions{UpdateTime: 150 * time.Millisecond, UpdateNoContent: noContent})
		rig.AddFirmwareImage("http://i/bmc.bin", "BMC", "25.01.03")
		s := mustOpen(t, rfConfig(rig, nil))
		rig.KillNextUpdate("The update was cancelled by the administrator.")
		_, err := s.UpdateFirmware(context.Background(), FirmwareBMC, "http://i/bmc.bin", "25.01.03")
		if !errors.Is(err, ErrRejected) || !strings.Contains(err.Error(), "ended in Killed: The update was cancelled by the administrator.") {
			t.Fatalf("204=%t killed: %v", noContent, err)
		}
		res, err := s.UpdateFirmware(context.Background(), FirmwareBMC, "http://i/bmc.bin", "25.01.03")
		if err != nil || !res.Changed || res.After != "25.01.03" {
			t.Fatalf("204=%t: %+v, %v", noContent, res, err)
		}
		if got := strings.Join(rig.Updates(), ","); got != "http://i/bmc.bin -> Killed,http://i/bmc.bin -> Completed" {
			t.Fatalf("204=%t: rig updates %s", noContent, got)
		}
		s.Close()
	}
}

// TestFirmwareUpdateRidesOutRestart: the BMC restarts in the middle of the update and answers
// 503 for 1.5 s (longer than the first backoffs); the update still ends Completed and reads the
// new version back.
func TestFirmwareUpdateRidesOutRestart(t *testing.T) {
	rig := testrig.StartRedfish(t, testrig.RedfishOptions{UpdateTime: 200 * time.Millisecond})
	rig.AddFirmwareImage("http://i/bmc.bin", "BMC", "25.01.03")
	s := mustOpen(t, rfConfig(rig, nil))
	defer s.Close()
	rig.RebootDuringNextUpdate(1500 * time.Millisecond)
	start := time.Now()
	res, err := s.UpdateFirmware(context.Background(), FirmwareBMC, "http://i/bmc.bin", "25.01.03")
	if err != nil || res.After != "25.01.03" {
		t.Fatalf("update across a restart: %+v, %v", res, err)
	}
	if took := time.Since(start); took < 1700*time.Millisecond {
		t.Fatalf("finished in %s, before the BMC was back", took)
	}
}

// TestFirmwareUpdateBoundedByContext: a task that outlasts the context fails in time, saying
// where the task was.
func TestFirmwareUpdateBoundedByContext(t *testing.T) {
	rig := testrig.StartRedfish(t, testrig.RedfishOptions{UpdateTime: time.Minute})
	rig.AddFirmwareImage("http://i/bmc.bin", "BMC", "25.01.03")
	s := mustOpen(t, rfConfig(rig, nil))
	defer s.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 700*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := s.UpdateFirmware(ctx, FirmwareBMC, "http://i/bmc.bin", "25.01.03")
	took := time.Since(start)
	if !errors.Is(err, ErrFailed) || !strings.Contains(err.Error(), "still Running") {
		t.Fatalf("timeout: %v", err)
	}
	if took > 1500*time.Millisecond {
		t.Fatalf("a 700 ms bound took %s", took)
	}
}

func TestFirmwareUpdateRefusesBadInput(t *testing.T) {
	rig := testrig.StartRedfish(t, testrig.RedfishOptions{})
	s := mustOpen(t, rfConfig(rig, nil))
	defer s.Close()
	for _, tc := range []struct{ comp, image, version, want string }{
		{"nic", "http://i/x", "1", `component "nic"`},
		{FirmwareBMC, "http://i/x", " ", "version to install is empty"},
		{FirmwareBMC, "", "99", "no image is given"},
	} {
		if _, err := s.UpdateFirmware(context.Background(), tc.comp, tc.image, tc.version); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v", tc, err)
		}
	}
	if n := len(rig.Updates()); n != 0 {
		t.Fatalf("bad input posted %d updates", n)
	}
}

// TestPickFirmware: inventories shaped like the DMTF mockup (RelatedItem), Dell iDRAC
// (Installed-/Previous- members), and one with names only.
func TestPickFirmware(t *testing.T) {
	rel := func(id, version, related string) *rfInventoryMember {
		m := &rfInventoryMember{ODataID: "/inv/" + id, ID: id, Version: version, Updateable: true}
		if related != "" {
			m.RelatedItem = append(m.RelatedItem, struct {
				ODataID string `json:"@odata.id"`
			}{related})
		}
		return m
	}
	for _, tc := range []struct {
		name      string
		members   []*rfInventoryMember
		bmc, bios string
	}{
		{"mockup", []*rfInventoryMember{rel("BMC", "1.45.455b66-rev4", "/redfish/v1/Managers/BMC"), rel("SS", "2.1", ""), rel("BIOS", "P79 v1.45", "/redfish/v1/Systems/437XR1138R2")}, "1.45.455b66-rev4", "P79 v1.45"},
		{"dell", []*rfInventoryMember{rel("Previous-25227-6.00.00.00", "6.00.00.00", "/redfish/v1/Managers/iDRAC.Embedded.1"), rel("Installed-25227-7.00.00.00", "7.00.00.00", "/redfish/v1/Managers/iDRAC.Embedded.1"), rel("Installed-159-1.12.2", "1.12.2", "/redfish/v1/Systems/System.Embedded.1")}, "7.00.00.00", "1.12.2"},
		{"names", []*rfInventoryMember{rel("bmc_active", "2.14.0", ""), rel("host-bios", "3.1", ""), rel("cpld", "5", "")}, "2.14.0", "3.1"},
		{"none", []*rfInventoryMember{rel("cpld", "5", ""), rel("bmcx", "1", "")}, "", ""},
	} {
		got := pickFirmware(tc.members)
		v := func(c string) string {
			if m := got[c]; m != nil {
				return m.Version
			}
			return ""
		}
		if v(FirmwareBMC) != tc.bmc || v(FirmwareBIOS) != tc.bios {
			t.Errorf("%s: bmc %q bios %q, want %q %q", tc.name, v(FirmwareBMC), v(FirmwareBIOS), tc.bmc, tc.bios)
		}
	}
}
