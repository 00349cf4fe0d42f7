package bmc

import (
	"context"
	"fmt"
)

// PowerStep is what a one-off power operation has to do, given the host's power state.
type PowerStep int

const (
	// PowerNothing: the host is already in the asked state; power operations are not toggles.
	PowerNothing PowerStep = iota
	// PowerSet: SetPower to the asked state.
	PowerSet
	// PowerRestart: Reset the running host.
	PowerRestart
	// PowerRefused: a restart of a host that is off. Restarting it would start it, which the
	// user did not ask for (and some BMCs refuse or ignore a reset of a host that is off).
	PowerRefused
)

// DecidePower decides what op does to a host whose power state is current ("on" or "off"). op
// is "on", "off", or a restart under the name the user gave it. where names the BMC and the
// protocol it answered with. For PowerRefused, the string says why and what to do instead.
func DecidePower(current, op, where string) (PowerStep, string) {
	switch op {
	case "on", "off":
		if current == op {
			return PowerNothing, ""
		}
		return PowerSet, ""
	}
	if current != "on" {
		return PowerRefused, fmt.Sprintf("the BMC (%s) reports the host off, and %s restarts a running host. Use power = %q to start it.", where, op, "on")
	}
	return PowerRestart, ""
}

// Power operations, as a one-off power action names them: on and off set the power, the
// restarts reset a running host (their Reset kind in restartKinds), PowerBMCReset restarts the
// BMC itself and leaves the host alone.
const (
	PowerOn              = "on"
	PowerOff             = "off"
	PowerGracefulRestart = "graceful_restart"
	PowerForceRestart    = "force_restart"
	PowerCycle           = "power_cycle"
	PowerBMCReset        = "bmc_reset"
)

// PowerOps are the operations RunPower takes.
var PowerOps = []string{PowerOn, PowerOff, PowerGracefulRestart, PowerForceRestart, PowerCycle, PowerBMCReset}

var restartKinds = map[string]string{
	PowerGracefulRestart: ResetGraceful,
	PowerForceRestart:    ResetForce,
	PowerCycle:           ResetPowerCycle,
}

// PowerRefusedError is an operation DecidePower refused before anything was sent to the BMC:
// Reason says why and what to do instead.
type PowerRefusedError struct{ Reason string }

func (e *PowerRefusedError) Error() string { return e.Reason }

// RunPower performs op (one of PowerOps) on the host behind cfg, or on the BMC itself for
// PowerBMCReset, telling progress each step as it starts and ends. It returns a *StepError that
// names what could not be done (the BMC's error inside), or a *PowerRefusedError.
func RunPower(ctx context.Context, cfg Config, op string, progress func(string)) error {
	if op == PowerBMCReset {
		progress("restarting its BMC at " + cfg.Endpoint)
		err := ResetBMC(ctx, cfg, ResetBMCOptions{Progress: func(f string, args ...any) { progress(fmt.Sprintf(f, args...)) }})
		if err != nil {
			return &StepError{Step: "restart the BMC", Err: err}
		}
		return nil
	}
	s, err := Open(ctx, cfg)
	if err != nil {
		return &StepError{Step: "open a session", Err: err}
	}
	defer func() { _ = s.Close() }()
	// A fallback (Redfish failed, IPMI answered) is said first and stays with any failure
	// after it: the operator must know that the preferred protocol did not answer.
	if fb := s.Fallback(); fb != "" {
		progress(fb)
	}
	step := func(what string, err error) error {
		if fb := s.Fallback(); fb != "" {
			err = &fallbackError{err: err, fallback: fb}
		}
		return &StepError{Step: what, Err: err}
	}
	st, err := s.Read(ctx)
	if err != nil {
		return step("read the power state", err)
	}
	where := fmt.Sprintf("%s over %s", s.Endpoint(), s.Protocol())
	if s.Fallback() != "" {
		where += ", after " + s.cfg.Protocols[0] + " failed"
	}
	decision, refusal := DecidePower(st.PowerState, op, where)
	switch decision {
	case PowerNothing:
		progress(fmt.Sprintf("already %s (%s); nothing to do", op, where))
	case PowerSet:
		progress(fmt.Sprintf("powering %s (%s)", op, where))
		if err := s.SetPower(ctx, op); err != nil {
			return step("power "+op, err)
		}
		progress(op)
	case PowerRefused:
		return &PowerRefusedError{Reason: refusal}
	case PowerRestart:
		progress(fmt.Sprintf("%s (%s)", op, where))
		if err := s.Reset(ctx, restartKinds[op]); err != nil {
			return step(op, err)
		}
		progress("on again after " + op)
	}
	return nil
}

// fallbackError is an operation's error on a session that fell back to a later protocol: its
// text ends with what was tried first, and errors.Is and errors.As still see the error itself.
type fallbackError struct {
	err      error
	fallback string
}

func (e *fallbackError) Error() string { return e.err.Error() + " (" + e.fallback + ")" }
func (e *fallbackError) Unwrap() error { return e.err }
