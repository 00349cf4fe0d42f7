package bmc

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/testrig"
)

// TestIPMIFallbackSaysRedfishWasTried: a power action on a BMC whose Redfish port does not
// answer falls back to IPMI (ipmi_sim) and says so: its first step names the Redfish endpoint
// that was tried and why it failed, the step that acts says it runs over IPMI after Redfish
// failed, the session's log says it at the default verbosity, and nothing of it holds the
// password.
func TestIPMIFallbackSaysRedfishWasTried(t *testing.T) {
	testrig.RequirePeers(t)
	sim := testrig.StartIPMISim(t)
	logs := &logCapture{}
	cfg := ipmiConfig(sim, logs)
	cfg.Protocols = nil // default: redfish, then ipmi
	cfg.Port = testrig.FreePort(t)
	cfg.IPMIPort = sim.Port
	var steps []string
	if err := RunPower(context.Background(), cfg, PowerOn, func(s string) { steps = append(steps, s) }); err != nil {
		t.Fatalf("power on over the IPMI fallback: %v", err)
	}
	redfishAt := fmt.Sprintf("redfish at %s:%d was tried first and failed (BMC %s:%d (redfish): open: ", cfg.Endpoint, cfg.Port, cfg.Endpoint, cfg.Port)
	if len(steps) < 2 || !strings.HasPrefix(steps[0], redfishAt) || !strings.HasSuffix(steps[0], fmt.Sprintf("this session uses ipmi at %s:%d", cfg.Endpoint, sim.Port)) {
		t.Fatalf("the first step does not say Redfish was tried (want prefix %q): %q", redfishAt, steps)
	}
	if !strings.Contains(steps[1], "over ipmi, after redfish failed") {
		t.Errorf("the acting step does not say it runs on the fallback: %q", steps)
	}
	// The default level (V(0)): what a user sees with TF_LOG=INFO.
	var line string
	for _, l := range strings.Split(logs.String(), "\n") {
		if strings.Contains(l, "BMC session open on a fallback protocol") {
			line = l
		}
	}
	if line == "" || !strings.Contains(line, `"level"=0`) || !strings.Contains(line, "was tried first and failed") {
		t.Errorf("no fallback line at the default level in the log:\n%s", logs.String())
	}
	noSecret(t, "steps", strings.Join(steps, "\n"), cfg.Password)
	noSecret(t, "logs", logs.String(), cfg.Password)
	waitSlotsFree(t)
}

// TestFallbackErrorKeepsItsKind: an error after a fallback says what was tried first and is
// still the error it wraps to errors.Is.
func TestFallbackErrorKeepsItsKind(t *testing.T) {
	inner := &Error{Endpoint: "bmc01:623", Protocol: ProtocolIPMI, Op: "set power", Kind: ErrUnreachable}
	err := error(&StepError{Step: "power on", Err: &fallbackError{err: inner, fallback: "redfish at bmc01:443 was tried first and failed (x); this session uses ipmi at bmc01:623"}})
	if !errors.Is(err, ErrUnreachable) || !strings.Contains(err.Error(), "redfish at bmc01:443 was tried first") {
		t.Fatalf("%v", err)
	}
}
