package bmc

// Bringing a BMC to what a node's configuration asks (Apply), and reading what the BMC reports
// back into the configuration's terms (ReadBack*): the order of the operations, which accounts
// an apply may touch, when a boot override or power change is sent, when a host is restarted for
// its BIOS settings, and which differences a refresh reports as drift.

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// ResetNone is the reset kind that never restarts the host: pending BIOS settings wait for a
// reset nobody forces.
const ResetNone = "none"

// After a reset for BIOS settings, how long and how often the BMC is read until they are in
// effect (POST of a GPU server takes minutes).
const (
	biosApplyWait = 10 * time.Minute
	biosApplyPoll = 5 * time.Second
)

// Desired is what a node's configuration asks of its BMC; a zero field is not managed. The same
// type records what an earlier apply on the same BMC left (the prior of Apply).
type Desired struct {
	Users []User            // accounts kept enabled, with their role
	BIOS  map[string]string // BIOS attributes to stage; nil: not managed
	Boot  *BootOverride     // nil: not managed
	Power string            // "on" or "off"; "": not managed
	// ResetAfterBIOS is one of ResetKinds to restart a powered-on host whose BIOS settings are
	// pending, or "" / ResetNone to leave them for the next reset.
	ResetAfterBIOS string
}

// User is one managed BMC account.
type User struct {
	Name, Role string
	// Password is write-only: known from the configuration only, "" when it is not.
	Password string
	// PasswordVersion changes when the password is to be set again; nil when unset.
	PasswordVersion *string
}

// BootOverride is a boot override as a configuration states it.
type BootOverride struct {
	Device     string
	Persistent bool
	EFI        bool
}

// ApplyResult is what Apply did and found.
type ApplyResult struct {
	// State is the BMC read after the changes (and after the restart for BIOS, if any).
	State State
	// Disabled names the accounts removed from the configuration that the BMC kept under their
	// name, disabled (it refused to clear their IPMI slot).
	Disabled []string
	// BIOSStillPending: the host was restarted for its BIOS settings, but they were still
	// pending when the wait ended.
	BIOSStillPending bool
}

// StepError is the failure of one step of Apply; Step says what it was doing ("set BIOS
// settings"), Err is the Session's *Error.
type StepError struct {
	Step string
	Err  error
}

func (e *StepError) Error() string { return "cannot " + e.Step + ": " + e.Err.Error() }
func (e *StepError) Unwrap() error { return e.Err }

// NoPasswordError is an account Apply must set whose password is not known (it is write-only,
// so only the configuration has it).
type NoPasswordError struct{ User string }

func (e *NoPasswordError) Error() string {
	return fmt.Sprintf("the BMC account %q needs its password", e.User)
}

// ApplyOptions tune Apply.
type ApplyOptions struct {
	// Progress, when set, is told of each change made, for the operator's progress log.
	Progress func(format string, args ...any)
}

// Apply makes the BMC match want: accounts, BIOS, boot override, power, in that order (the boot
// override and BIOS settings are in place before a host is powered on), then reads the BMC back;
// with ResetAfterBIOS it restarts a powered-on host whose settings are pending and reads until
// they are in effect (at most 10 minutes, and one call's timeout before ctx's deadline).
//
// prior is what the last apply on this same BMC left; nil (a new node, or one that now points at
// another BMC) sets everything. Against a prior, only accounts that are new or whose role or
// password version changed are set, the boot override and power only when they changed, and the
// accounts prior had that want lacks are removed: an account this node never managed is none of
// its business. Apply stops at the first failure, a *StepError or *NoPasswordError; the result
// still tells which accounts were disabled before it.
func (s *Session) Apply(ctx context.Context, want Desired, prior *Desired, o ApplyOptions) (ApplyResult, error) {
	var res ApplyResult
	progress := o.Progress
	if progress == nil {
		progress = func(string, ...any) {}
	}

	priorUsers := map[string]User{}
	if prior != nil {
		for _, u := range prior.Users {
			priorUsers[u.Name] = u
		}
	}
	for _, u := range want.Users {
		if p, ok := priorUsers[u.Name]; ok && p.Role == u.Role && sameVersion(p.PasswordVersion, u.PasswordVersion) {
			continue
		}
		if u.Password == "" {
			return res, &NoPasswordError{User: u.Name}
		}
		if err := s.EnsureUser(ctx, u.Name, u.Role, u.Password); err != nil {
			return res, &StepError{fmt.Sprintf("set the BMC account %q", u.Name), err}
		}
		progress("account %q set (%s)", u.Name, u.Role)
	}

	planned := map[string]bool{}
	for _, u := range want.Users {
		planned[u.Name] = true
	}
	for _, name := range sortedKeys(priorUsers) {
		if planned[name] {
			continue
		}
		how, err := s.RemoveUser(ctx, name)
		if err != nil {
			return res, &StepError{fmt.Sprintf("remove the BMC account %q (no longer in bmc_users)", name), err}
		}
		if how == RemovedDisabled {
			res.Disabled = append(res.Disabled, name)
		}
	}

	if want.BIOS != nil {
		if err := s.SetBIOS(ctx, want.BIOS); err != nil {
			return res, &StepError{"set BIOS settings", err}
		}
		progress("%d BIOS settings staged", len(want.BIOS))
	}

	if want.Boot != nil && (prior == nil || prior.Boot == nil || *want.Boot != *prior.Boot) {
		if err := s.SetBootDevice(ctx, want.Boot.Device, want.Boot.Persistent, want.Boot.EFI); err != nil {
			return res, &StepError{"set the boot device to " + want.Boot.Device, err}
		}
		progress("boot override %s", want.Boot.Device)
	}

	if want.Power != "" && (prior == nil || want.Power != prior.Power) {
		if err := s.SetPower(ctx, want.Power); err != nil {
			return res, &StepError{"power " + want.Power, err}
		}
		progress("power %s", want.Power)
	}

	st, err := s.Read(ctx)
	if err != nil {
		return res, &StepError{"read the state back", err}
	}
	res.State = st
	kind := want.ResetAfterBIOS
	if kind == "" || kind == ResetNone || want.BIOS == nil || st.PowerState != "on" {
		return res, nil
	}
	waiting := func(st State) bool {
		for k := range want.BIOS {
			if _, ok := st.BIOSPending[k]; ok {
				return true
			}
		}
		return false
	}
	if !waiting(st) {
		return res, nil
	}
	if err := s.Reset(ctx, kind); err != nil {
		return res, &StepError{"restart the host (" + kind + ") for its pending BIOS settings", err}
	}
	// A BMC applies pending settings while the host goes through POST, after the reset was
	// accepted: read until they are in effect, leaving one call's time before ctx's deadline.
	stop := time.Now().Add(biosApplyWait)
	if d, ok := ctx.Deadline(); ok && d.Add(-s.cfg.Timeout).Before(stop) {
		stop = d.Add(-s.cfg.Timeout)
	}
	for {
		if st, err = s.Read(ctx); err != nil {
			return res, &StepError{"read the state back after the restart", err}
		}
		res.State = st
		if !waiting(st) {
			return res, nil
		}
		if time.Now().Add(biosApplyPoll).After(stop) {
			res.BIOSStillPending = true
			return res, nil
		}
		select {
		case <-time.After(biosApplyPoll):
		case <-ctx.Done():
		}
	}
}

func sameVersion(a, b *string) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// ReadBackBoot is the boot override to record after a read, given the recorded one: what the BMC
// reports, except that a one-time override the host has used up (the BMC shows none) is not
// drift. Over IPMI only the device is compared, because BMCs differ in keeping IPMI's
// persistent and EFI flags.
func ReadBackBoot(have BootOverride, st State) BootOverride {
	consumed := !have.Persistent && st.BootDevice == "none" && have.Device != "none"
	if consumed {
		return have
	}
	have.Device = st.BootDevice
	if st.Protocol != ProtocolIPMI && st.BootDevice != "none" {
		have.Persistent, have.EFI = st.BootPersistent, st.BootEFI
	}
	return have
}

// ReadBackBIOS is the BIOS settings to record after a read, given the recorded ones: each
// attribute's pending value if any, else its current one; a value equal in meaning to the
// recorded one (SameBIOSValue) keeps the recorded spelling, and an attribute the BMC no longer
// has is left out, so the plan shows it. ok is false when the BMC reported no BIOS (IPMI):
// nothing can be compared.
func ReadBackBIOS(have map[string]string, st State) (out map[string]string, ok bool) {
	if st.BIOS == nil {
		return nil, false
	}
	out = map[string]string{}
	for k, v := range have {
		eff, ok := st.BIOSPending[k]
		if !ok {
			eff, ok = st.BIOS[k]
		}
		switch {
		case !ok:
		case SameBIOSValue(v, eff):
			out[k] = v
		default:
			out[k] = eff
		}
	}
	return out, true
}

// ReadBackUsers is the managed accounts to record after a read: those the BMC still has enabled,
// with the role it reports, passwords cleared; an account deleted or disabled on the BMC is left
// out, so the plan shows it again. ok is false when the BMC reported no accounts.
func ReadBackUsers(have []User, st State) (kept []User, ok bool) {
	if st.Users == nil {
		return nil, false
	}
	for _, u := range have {
		role, ok := st.Users[u.Name]
		if !ok {
			continue
		}
		u.Role, u.Password = role, ""
		kept = append(kept, u)
	}
	return kept, true
}

// SameBIOSValue compares BIOS values by meaning: Enabled and enabled, 4 and 4.0 are the same.
func SameBIOSValue(a, b string) bool {
	a, b = strings.TrimSpace(a), strings.TrimSpace(b)
	if strings.EqualFold(a, b) {
		return true
	}
	x, errA := strconv.ParseFloat(a, 64)
	y, errB := strconv.ParseFloat(b, 64)
	return errA == nil && errB == nil && x == y
}
