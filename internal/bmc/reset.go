package bmc

import (
	"context"
	"fmt"
	"strings"

	rf "github.com/stmcginnis/gofish/redfish"
)

// Host resets, for BIOS settings that wait for one. Redfish names them in ComputerSystem.Reset
// (DSP2046 Redfish Resource and Schema Guide, ResetType: GracefulRestart, ForceRestart,
// PowerCycle); IPMI has "chassis power reset" (hard) and "cycle" (IPMI v2.0 section 28.3
// Chassis Control), and no graceful restart.

// Reset kinds, as Reset takes them.
const (
	ResetGraceful   = "graceful"    // the OS shuts down first (Redfish GracefulRestart)
	ResetForce      = "force"       // immediate restart (Redfish ForceRestart, IPMI power reset)
	ResetPowerCycle = "power_cycle" // power off, then on (Redfish PowerCycle, IPMI power cycle)
)

// ResetKinds are the kinds Reset accepts.
var ResetKinds = []string{ResetGraceful, ResetForce, ResetPowerCycle}

var rfResetTypes = map[string]rf.ResetType{
	ResetGraceful:   rf.GracefulRestartResetType,
	ResetForce:      rf.ForceRestartResetType,
	ResetPowerCycle: rf.PowerCycleResetType,
}

// Reset restarts a powered-on host the way kind says and waits until the BMC reports it on
// again. Pending BIOS settings take effect in that boot.
func (s *Session) Reset(ctx context.Context, kind string) error {
	if !containsString(ResetKinds, kind) {
		return s.newError(s.protocol, "reset", ErrInvalid, fmt.Sprintf("reset %q: want one of %s", kind, strings.Join(ResetKinds, ", ")), false, nil)
	}
	return s.call(ctx, "reset ("+kind+")", func(ctx context.Context) error { return s.b.reset(ctx, kind) })
}

func (b *redfishBackend) reset(ctx context.Context, kind string) error {
	gf, err := b.gofish(ctx)
	if err != nil {
		return err
	}
	sys, err := b.system(gf)
	if err != nil {
		return err
	}
	want := rfResetTypes[kind]
	if len(sys.SupportedResetTypes) > 0 {
		ok := false
		var names []string
		for _, t := range sys.SupportedResetTypes {
			ok = ok || t == want
			names = append(names, string(t))
		}
		if !ok {
			return &Error{Kind: ErrNotSupported, Detail: fmt.Sprintf("the BMC offers no %s reset (it allows %s)", want, strings.Join(names, ", "))}
		}
	}
	if err := b.retryBusy(ctx, func() error { return sys.Reset(want) }); err != nil {
		return err
	}
	return waitPower(ctx, "on", b.powerState)
}

func (b *ipmiBackend) reset(ctx context.Context, kind string) error {
	var action string
	switch kind {
	case ResetForce:
		action = "reset"
	case ResetPowerCycle:
		action = "cycle"
	default:
		return &Error{Kind: ErrNotSupported, Detail: "IPMI has no graceful restart (only a hard reset or a power cycle)"}
	}
	if _, err := b.tool.run(ctx, "chassis", "power", action); err != nil {
		return err
	}
	return waitPower(ctx, "on", b.powerState)
}
