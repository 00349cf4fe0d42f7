package bmc

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/testrig"
)

// TestRedfishResetBMC: the reset reaches the manager, not the host, the session it came over is
// given up, and ResetBMC returns only once the BMC answers again (the rig refuses everything
// with 503 while it restarts, so a session opened right after the return proves the wait).
func TestRedfishResetBMC(t *testing.T) {
	rig := testrig.StartRedfish(t, testrig.RedfishOptions{RestartTime: time.Second})
	rig.SetPowerOutOfBand("On")
	logs := &logCapture{}
	var steps []string
	err := ResetBMC(context.Background(), rfConfig(rig, logs), ResetBMCOptions{
		Settle: 50 * time.Millisecond, Poll: 50 * time.Millisecond,
		Progress: func(f string, a ...any) { steps = append(steps, fmt.Sprintf(f, a...)) },
	})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := rig.Resets(), []string{"Manager.Reset GracefulRestart"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("resets %v, want %v", got, want)
	}
	if rig.PowerState() != "On" {
		t.Fatalf("the host's power changed: %s", rig.PowerState())
	}
	s := mustOpen(t, rfConfig(rig, nil))
	if st := mustRead(t, s); st.PowerState != "on" {
		t.Fatalf("after the BMC reset: %+v", st)
	}
	_ = s.Close()
	if len(steps) != 2 || !strings.Contains(steps[1], "answers again") {
		t.Fatalf("progress: %q", steps)
	}
	noSecret(t, "the logs", logs.String(), rig.Password)
	waitSlotsFree(t)
}

// TestRedfishResetBMCNeverBack: a BMC that does not come back within the context fails with
// ErrUnreachable, saying that it accepted the reset.
func TestRedfishResetBMCNeverBack(t *testing.T) {
	rig := testrig.StartRedfish(t, testrig.RedfishOptions{RestartTime: time.Hour})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	cfg := rfConfig(rig, nil)
	cfg.Timeout = time.Second
	err := ResetBMC(ctx, cfg, ResetBMCOptions{Poll: 100 * time.Millisecond})
	var e *Error
	if !errors.As(err, &e) || !errors.Is(err, ErrUnreachable) || !strings.Contains(err.Error(), "accepted the reset but did not answer again") {
		t.Fatalf("got %v", err)
	}
	waitSlotsFree(t)
}

// TestIPMIResetBMC: over IPMI the reset is a cold reset of the management controller, which
// ipmi_sim acknowledges; the chassis (the host) is not touched.
func TestIPMIResetBMC(t *testing.T) {
	testrig.RequirePeers(t)
	sim := testrig.StartIPMISim(t)
	sim.SetPowerOutOfBand(true)
	calls := len(sim.ChassisCalls())
	err := ResetBMC(context.Background(), ipmiConfig(sim, nil), ResetBMCOptions{Settle: 100 * time.Millisecond, Poll: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range sim.ChassisCalls()[calls:] {
		if strings.HasPrefix(c, "set") {
			t.Fatalf("the BMC reset reached the chassis: %q", sim.ChassisCalls()[calls:])
		}
	}
	if sim.PowerState() != "on" {
		t.Fatalf("host power %q after the BMC reset", sim.PowerState())
	}
	waitSlotsFree(t)
}
