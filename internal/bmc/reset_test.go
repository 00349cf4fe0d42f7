package bmc

import (
	"context"
	"errors"
	"testing"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/testrig"
)

// TestRedfishResetAppliesPendingBIOS: settings pending on a running host take effect with a
// reset of each kind; an unknown kind is refused.
func TestRedfishResetAppliesPendingBIOS(t *testing.T) {
	rig := testrig.StartRedfish(t, testrig.RedfishOptions{})
	ctx := context.Background()
	s := mustOpen(t, rfConfig(rig, nil))
	if err := s.SetPower(ctx, "on"); err != nil {
		t.Fatal(err)
	}
	for i, kind := range ResetKinds {
		v := []string{"MaxPerf", "PowerSaver", "Balanced"}[i]
		if err := s.SetBIOS(ctx, map[string]string{"PowerProfile": v}); err != nil {
			t.Fatal(err)
		}
		if st := mustRead(t, s); st.BIOSPending["PowerProfile"] != v {
			t.Fatalf("%s: not pending: %v", kind, st.BIOSPending)
		}
		if err := s.Reset(ctx, kind); err != nil {
			t.Fatalf("reset %s: %v", kind, err)
		}
		if st := mustRead(t, s); st.BIOS["PowerProfile"] != v || len(st.BIOSPending) != 0 || st.PowerState != "on" {
			t.Fatalf("after reset %s: %+v", kind, st)
		}
	}
	if err := s.Reset(ctx, "warm"); !errors.Is(err, ErrInvalid) {
		t.Fatalf("unknown kind: %v", err)
	}
}

// TestIPMIHasNoGracefulReset: IPMI's chassis control has no graceful restart, and the session
// says so rather than sending a hard one.
func TestIPMIHasNoGracefulReset(t *testing.T) {
	testrig.RequirePeers(t)
	ctx := context.Background()
	sim := testrig.StartIPMISim(t)
	is := mustOpen(t, ipmiConfig(sim, nil))
	if err := is.Reset(ctx, ResetGraceful); !errors.Is(err, ErrNotSupported) {
		t.Fatalf("graceful over IPMI: %v", err)
	}
}
