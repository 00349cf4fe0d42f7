package bmc

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/testrig"
)

// TestRedfishRunPower runs each power operation against the Redfish rig: a restart reaches the
// BMC as the Reset it names, `off` on a host that is off sends nothing, a restart of a host that
// is off is refused before anything is sent, and each step says what it did.
func TestRedfishRunPower(t *testing.T) {
	rig := testrig.StartRedfish(t, testrig.RedfishOptions{})
	rig.SetPowerOutOfBand("On")
	cfg := rfConfig(rig, nil)
	run := func(op string) ([]string, error) {
		var steps []string
		err := RunPower(context.Background(), cfg, op, func(s string) { steps = append(steps, s) })
		return steps, err
	}
	steps, err := run(PowerForceRestart)
	if err != nil {
		t.Fatal(err)
	}
	if got := rig.Resets(); !reflect.DeepEqual(got, []string{"ComputerSystem.Reset ForceRestart"}) {
		t.Fatalf("force_restart: the rig saw %v", got)
	}
	if len(steps) != 2 || !strings.HasPrefix(steps[0], "force_restart (") || steps[1] != "on again after force_restart" {
		t.Errorf("force_restart steps: %q", steps)
	}
	if _, err := run(PowerOff); err != nil || rig.PowerState() != "Off" {
		t.Fatalf("off: %v, host %s", err, rig.PowerState())
	}
	changes := len(rig.Changes())
	if steps, err := run(PowerOff); err != nil || len(rig.Changes()) != changes || len(steps) != 1 || !strings.HasPrefix(steps[0], "already off (") {
		t.Errorf("off again: %v, changes %v, steps %q", err, rig.Changes()[changes:], steps)
	}
	resets := len(rig.Resets())
	_, err = run(PowerCycle)
	var refused *PowerRefusedError
	if !errors.As(err, &refused) || !strings.Contains(refused.Reason, `reports the host off, and power_cycle restarts a running host`) || len(rig.Resets()) != resets {
		t.Errorf("power_cycle of a host that is off: %v, resets %v", err, rig.Resets()[resets:])
	}
	if _, err := run(PowerOn); err != nil || rig.PowerState() != "On" {
		t.Fatalf("on: %v, host %s", err, rig.PowerState())
	}
	bad := cfg
	bad.Password = "wrong"
	err = RunPower(context.Background(), bad, PowerOn, func(string) {})
	var step *StepError
	if !errors.As(err, &step) || step.Step != "open a session" || !errors.Is(step.Err, ErrAuth) {
		t.Errorf("wrong password: %v", err)
	}
	waitSlotsFree(t)
}
