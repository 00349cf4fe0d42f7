package bmc

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/testrig"
)

// TestRedfishServerErrorsRetried (issue 22, item 6): 500, 502 and 504 are retried like 503 for
// the requests that can be sent twice (a read, a PATCH), so a BMC whose web server hiccups is
// read and set; a POST (a Reset action) that fails with 500 is not sent again, and as the rig
// did not act on it, the error stands.
func TestRedfishServerErrorsRetried(t *testing.T) {
	rig := testrig.StartRedfish(t, testrig.RedfishOptions{})
	ctx := context.Background()
	s := mustOpen(t, rfConfig(rig, nil))

	rig.FailNext(2, 500, "")
	if st := mustRead(t, s); st.Vendor != "NVIDIA" {
		t.Fatalf("read through two 500s: %+v", st)
	}
	rig.FailNext(2, 502, http.MethodPatch)
	if err := s.SetBootDevice(ctx, "pxe", true, true); err != nil {
		t.Fatalf("boot override through two 502s on its PATCH: %v", err)
	}
	if target, enabled, _ := rig.Boot(); target != "Pxe" || enabled != "Continuous" {
		t.Fatalf("boot %s %s", target, enabled)
	}
	rig.FailNext(1, 504, "")
	mustRead(t, s)
	served := rig.FailServed()
	if len(served) != 5 || !strings.HasPrefix(served[2], "PATCH ") || !strings.HasPrefix(served[3], "PATCH ") {
		t.Fatalf("the rig failed %q, want 2 reads, the boot PATCH twice, 1 read", served)
	}

	rig.FailNext(1, 500, http.MethodPost)
	err := s.SetPower(ctx, "on")
	if err == nil || rig.PowerState() != "Off" {
		t.Fatalf("power on through a 500 on the POST: %v, power %s", err, rig.PowerState())
	}
	if served = rig.FailServed(); len(served) != 6 || !strings.HasPrefix(served[5], "POST ") {
		t.Errorf("failed requests %q: the POST must be sent once", served)
	}
	var e *Error
	if !errors.As(err, &e) || !strings.Contains(err.Error(), "500") {
		t.Errorf("error %v, want the 500 named", err)
	}
	rig.FailNext(0, 0, "")
	_ = s.Close()
	waitSlotsFree(t)
}

// TestRedfishChangeLandedDespiteAnswer (issue 22, item 6): the rig does each change and then
// answers with an error status and a body that is not JSON. The read-back shows the change in
// place, so the call succeeds: power (a POST), a new account (a POST), a role change and a
// password change (PATCHes), BIOS settings (a PATCH). A change the rig refused without acting
// (FailNext) is still an error.
func TestRedfishChangeLandedDespiteAnswer(t *testing.T) {
	rig := testrig.StartRedfish(t, testrig.RedfishOptions{})
	ctx := context.Background()
	s := mustOpen(t, rfConfig(rig, nil))
	const pw1, pw2 = "0ps-Passw0rd-one", "0ps-Passw0rd-two"
	began := time.Now()
	defer func() { t.Logf("took %s", time.Since(began)) }()

	rig.GarbleAfterApply(1, 500)
	if err := s.SetPower(ctx, "on"); err != nil || rig.PowerState() != "On" {
		t.Fatalf("power on answered 500 after it landed: %v, power %s", err, rig.PowerState())
	}
	rig.GarbleAfterApply(1, 500)
	if err := s.EnsureUser(ctx, "ops", "Operator", pw1); err != nil {
		t.Fatalf("account created, answered 500: %v", err)
	}
	if a, ok := rigAccountOf(rig, "ops"); !ok || a.RoleID != "Operator" || !rig.CheckPassword("ops", pw1) {
		t.Fatalf("account after the garbled create: %+v", a)
	}
	rig.GarbleAfterApply(1, 400)
	if err := s.EnsureUser(ctx, "ops", "ReadOnly", pw1); err != nil {
		t.Fatalf("role changed, answered 400: %v", err)
	}
	rig.GarbleAfterApply(1, 400)
	if err := s.EnsureUser(ctx, "ops", "ReadOnly", pw2); err != nil || !rig.CheckPassword("ops", pw2) {
		t.Fatalf("password changed, answered 400: %v", err)
	}
	rig.GarbleAfterApply(1, 400)
	if err := s.SetBIOS(ctx, map[string]string{"ProcHyperthreading": "Disabled"}); err != nil || rig.PendingBIOS()["ProcHyperthreading"] != "Disabled" {
		t.Fatalf("BIOS set, answered 400: %v, pending %v", err, rig.PendingBIOS())
	}

	// Refused without acting: the read-back finds nothing in place, the error stands.
	rig.FailNext(1, 400, http.MethodPatch)
	if err := s.EnsureUser(ctx, "ops", "Operator", pw2); err == nil {
		t.Fatal("a role change the BMC refused without acting was reported as done")
	}
	if a, _ := rigAccountOf(rig, "ops"); a.RoleID != "ReadOnly" {
		t.Fatalf("role %s", a.RoleID)
	}
	rig.GarbleAfterApply(0, 0)
	_ = s.Close()
	waitSlotsFree(t)
}

func rigAccountOf(rig *testrig.Redfish, name string) (testrig.RedfishAccount, bool) {
	for _, a := range rig.Accounts() {
		if a.UserName == name && a.Enabled {
			return a, true
		}
	}
	return testrig.RedfishAccount{}, false
}
