package bmc

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/testrig"
)

func TestSameBIOSValue(t *testing.T) {
	for _, c := range []struct {
		a, b string
		same bool
	}{{"Enabled", "enabled", true}, {"4", "4.0", true}, {"4", " 4 ", true}, {"true", "True", true}, {"4", "5", false}, {"Enabled", "Disabled", false}} {
		if SameBIOSValue(c.a, c.b) != c.same {
			t.Errorf("%q vs %q: same %t", c.a, c.b, !c.same)
		}
	}
}

// TestReadBack covers what a refresh records: a used-up one-time override is no drift, another
// device is; IPMI's flags are not compared; BIOS values equal in meaning keep their spelling and
// a pending value wins over the current one; accounts gone from the BMC drop out.
func TestReadBack(t *testing.T) {
	once := BootOverride{Device: "pxe", Persistent: false, EFI: true}
	for _, c := range []struct {
		name string
		have BootOverride
		st   State
		want BootOverride
	}{
		{"one-time override used up", once, State{Protocol: ProtocolRedfish, BootDevice: "none"}, once},
		{"persistent override cleared at the console", BootOverride{"pxe", true, true}, State{Protocol: ProtocolRedfish, BootDevice: "none"}, BootOverride{"none", true, true}},
		{"other device over Redfish", once, State{Protocol: ProtocolRedfish, BootDevice: "disk", BootPersistent: true, BootEFI: false}, BootOverride{"disk", true, false}},
		{"other device over IPMI keeps the flags", once, State{Protocol: ProtocolIPMI, BootDevice: "disk", BootPersistent: true}, BootOverride{"disk", false, true}},
	} {
		if got := ReadBackBoot(c.have, c.st); got != c.want {
			t.Errorf("%s: ReadBackBoot = %+v, want %+v", c.name, got, c.want)
		}
	}

	have := map[string]string{"A": "Enabled", "B": "4", "C": "x", "D": "MaxPerf"}
	st := State{BIOS: map[string]string{"A": "enabled", "B": "4.0", "D": "MaxPerf"}, BIOSPending: map[string]string{"D": "PowerSaver"}}
	got, ok := ReadBackBIOS(have, st)
	if want := map[string]string{"A": "Enabled", "B": "4", "D": "PowerSaver"}; !ok || !reflect.DeepEqual(got, want) {
		t.Errorf("ReadBackBIOS = %v, %v, want %v", got, ok, want)
	}
	if _, ok := ReadBackBIOS(have, State{Protocol: ProtocolIPMI}); ok {
		t.Error("ReadBackBIOS compared BIOS settings an IPMI BMC does not report")
	}

	v := "1"
	users := []User{{Name: "ops", Role: "Operator", Password: "secret", PasswordVersion: &v}, {Name: "gone", Role: "ReadOnly"}}
	kept, ok := ReadBackUsers(users, State{Users: map[string]string{"ops": "ReadOnly", "admin": "Administrator"}})
	if want := []User{{Name: "ops", Role: "ReadOnly", PasswordVersion: &v}}; !ok || !reflect.DeepEqual(kept, want) {
		t.Errorf("ReadBackUsers = %+v, %v, want %+v", kept, ok, want)
	}
	if _, ok := ReadBackUsers(users, State{}); ok {
		t.Error("ReadBackUsers compared accounts the BMC did not report")
	}
}

// TestApplyRedfish applies a node's BMC settings on the Redfish rig: everything on a new BMC;
// against a prior only what changed (an account changed at the console stays as it is while its
// role and password version are unchanged); accounts that left the list are removed; a missing
// password stops the apply; a restart for pending BIOS settings waits until they are in effect.
func TestApplyRedfish(t *testing.T) {
	rig := testrig.StartRedfish(t, testrig.RedfishOptions{})
	ctx := context.Background()
	s := mustOpen(t, rfConfig(rig, nil))
	const pw = "Ops-Passw0rd-1"
	v1 := "1"

	var steps []string
	opts := ApplyOptions{Progress: func(format string, args ...any) { steps = append(steps, fmt.Sprintf(format, args...)) }}
	want := Desired{
		Users: []User{{Name: "ops", Role: "Operator", Password: pw, PasswordVersion: &v1}, {Name: "ro", Role: "ReadOnly", Password: pw}},
		BIOS:  map[string]string{"PowerProfile": "MaxPerf"},
		Boot:  &BootOverride{Device: "pxe", EFI: true},
		Power: "on",
	}
	res, err := s.Apply(ctx, want, nil, opts)
	if err != nil {
		t.Fatal(err)
	}
	wantSteps := []string{`account "ops" set (Operator)`, `account "ro" set (ReadOnly)`, "1 BIOS settings staged", "boot override pxe", "power on"}
	if !reflect.DeepEqual(steps, wantSteps) {
		t.Errorf("steps %q, want %q", steps, wantSteps)
	}
	// Powering on boots the host, which applies the staged settings: no restart needed.
	if st := res.State; st.PowerState != "on" || st.BootDevice != "pxe" || st.BIOS["PowerProfile"] != "MaxPerf" || st.Users["ops"] != "Operator" || st.Users["ro"] != "ReadOnly" {
		t.Fatalf("state after apply: %+v", st)
	}

	// Nothing changed: nothing is sent but the BIOS settings, which the BMC already has.
	changes := len(rig.Changes())
	steps = nil
	if _, err := s.Apply(ctx, want, &want, opts); err != nil {
		t.Fatal(err)
	}
	if got := rig.Changes()[changes:]; len(got) != 0 || !reflect.DeepEqual(steps, []string{"1 BIOS settings staged"}) {
		t.Fatalf("re-apply changed %+v, steps %q", got, steps)
	}

	// ops changed to ReadOnly at the console is not this apply's business while its role and
	// password version stay; a new version sets it again; ro left the list and leaves the BMC.
	if err := s.EnsureUser(ctx, "ops", "ReadOnly", pw); err != nil {
		t.Fatal(err)
	}
	next := want
	next.Users = want.Users[:1]
	if res, err := s.Apply(ctx, next, &want, opts); err != nil || res.State.Users["ops"] != "ReadOnly" {
		t.Fatalf("apply with the same role and version: %v, users %v", err, res.State.Users)
	}
	if _, there := mustRead(t, s).Users["ro"]; there {
		t.Fatal("ro left bmc_users but is still enabled on the BMC")
	}
	v2 := "2"
	bumped := next
	bumped.Users = []User{{Name: "ops", Role: "Operator", Password: pw, PasswordVersion: &v2}}
	if res, err := s.Apply(ctx, bumped, &next, opts); err != nil || res.State.Users["ops"] != "Operator" {
		t.Fatalf("apply with a new password version: %v, users %v", err, res.State.Users)
	}

	// A new account without its password stops the apply before anything after it.
	noPW := bumped
	noPW.Users = append(noPW.Users, User{Name: "new", Role: "Operator"})
	noPW.Power = "off"
	var npe *NoPasswordError
	if _, err := s.Apply(ctx, noPW, &bumped, opts); !errors.As(err, &npe) || npe.User != "new" {
		t.Fatalf("account without a password: %v", err)
	}
	if rig.PowerState() != "On" {
		t.Fatalf("power changed after the apply failed: %s", rig.PowerState())
	}

	// A refused value is a StepError naming the step, wrapping the BMC's kind of error.
	bad := bumped
	bad.BIOS = map[string]string{"PowerProfile": "Turbo"}
	var se *StepError
	if _, err := s.Apply(ctx, bad, &bumped, opts); !errors.As(err, &se) || se.Step != "set BIOS settings" || !errors.Is(err, ErrRejected) {
		t.Fatalf("refused BIOS value: %v", err)
	}

	// Settings staged on a running host wait for a reset; with ResetAfterBIOS the apply makes it.
	reset := bumped
	reset.BIOS = map[string]string{"PowerProfile": "PowerSaver"}
	reset.ResetAfterBIOS = ResetForce
	res, err = s.Apply(ctx, reset, &bumped, opts)
	if err != nil {
		t.Fatal(err)
	}
	if res.BIOSStillPending || res.State.BIOS["PowerProfile"] != "PowerSaver" || len(res.State.BIOSPending) != 0 {
		t.Fatalf("after the restart: pending %v, state %+v", res.BIOSStillPending, res.State)
	}
	restarted := false
	for _, c := range rig.Changes() {
		restarted = restarted || strings.Contains(c.Path, "ComputerSystem.Reset")
	}
	if !restarted {
		t.Errorf("no reset reached the BMC: %+v", rig.Changes())
	}
}
