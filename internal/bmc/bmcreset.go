package bmc

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	rf "github.com/stmcginnis/gofish/redfish"
)

// Restarting the BMC itself, not the host: the cure for a BMC whose web server or IPMI stack
// hangs, the reset vendors' runbooks start with. Redfish names it in Manager.Reset (DSP2046
// Redfish Resource and Schema Guide, Manager: ResetType GracefulRestart or ForceRestart); IPMI
// has Cold Reset (IPMI v2.0 rev. 1.1, section 20.2, `ipmitool mc reset cold`; a warm reset keeps
// the BMC's state and many BMCs, ipmi_sim among them, do not implement it). The host keeps
// running through it.

// ResetBMCOptions tune ResetBMC.
type ResetBMCOptions struct {
	// Settle is how long the BMC may keep answering after it accepted the reset before it is
	// taken to have restarted already (default 10 s): a BMC finishes its reply before it goes
	// down, so an answer right after the reset says nothing.
	Settle time.Duration
	// Poll is the wait between attempts to reach the BMC again (default 2 s).
	Poll time.Duration
	// Progress, when set, is told of each step.
	Progress func(format string, args ...any)
}

// ResetBMC restarts the BMC of cfg and waits, within ctx, until it accepts a session again. It
// opens its own session (waiting for the BMC's lock and a session slot as Open does), sends the
// reset, and gives the session up without a logout: the BMC drops every session as it restarts.
// Then it waits until the BMC has gone away (or Settle has passed) and until Open succeeds
// again. The error of a failed reset is an *Error, as for every operation; a BMC that does not
// come back within ctx gives an *Error of kind ErrUnreachable saying how long it was waited for.
func ResetBMC(ctx context.Context, cfg Config, o ResetBMCOptions) error {
	if o.Settle <= 0 {
		o.Settle = 10 * time.Second
	}
	if o.Poll <= 0 {
		o.Poll = 2 * time.Second
	}
	say := func(format string, args ...any) {
		if o.Progress != nil {
			o.Progress(format, args...)
		}
	}
	s, err := Open(ctx, cfg)
	if err != nil {
		return err
	}
	proto, endpoint := s.protocol, s.Endpoint()
	err = s.call(ctx, "reset BMC", func(ctx context.Context) error { return s.b.resetBMC(ctx) })
	s.abandon()
	if err != nil {
		return err
	}
	sent := time.Now()
	say("BMC %s (%s) accepted the reset; waiting for it to restart", endpoint, proto)

	// Reach it again over the protocol that took the reset: falling back to another one would
	// report a BMC as back while the interface that was reset is still down.
	again := cfg
	again.Protocols = []string{proto}
	wentAway := false
	for {
		probe, err := Open(ctx, again)
		if err == nil {
			_ = probe.Close()
			if wentAway || time.Since(sent) >= o.Settle {
				say("BMC %s answers again, %s after the reset", endpoint, time.Since(sent).Round(time.Second))
				return nil
			}
		} else {
			if ctx.Err() != nil {
				return &Error{Endpoint: endpoint, Protocol: proto, Op: "reset BMC", Kind: ErrUnreachable, TimedOut: true,
					Detail: fmt.Sprintf("the BMC accepted the reset but did not answer again within %s", time.Since(sent).Round(time.Second))}
			}
			if errors.Is(err, ErrAuth) || errors.Is(err, ErrTLS) {
				return err // it is back, and refuses what it accepted before the reset
			}
			wentAway = true
		}
		select {
		case <-time.After(o.Poll):
		case <-ctx.Done():
		}
	}
}

// abandon gives the session up without a logout (the BMC forgot it) and frees the lock and slot.
func (s *Session) abandon() {
	s.mu.Lock()
	already := s.closed
	s.closed = true
	inflight := s.inflight
	s.mu.Unlock()
	if already {
		return
	}
	if inflight == nil {
		s.release()
		return
	}
	go func() {
		<-inflight
		s.release()
	}()
}

func (b *redfishBackend) resetBMC(ctx context.Context) error {
	gf, err := b.gofish(ctx)
	if err != nil {
		return err
	}
	managers, err := gf.Service.Managers()
	if err != nil {
		return err
	}
	var bmcs []*rf.Manager
	for _, m := range managers {
		if m.ManagerType == rf.BMCManagerType || m.ManagerType == "" {
			bmcs = append(bmcs, m)
		}
	}
	if len(bmcs) == 0 {
		return &Error{Kind: ErrNotSupported, Detail: "the BMC lists no manager of type BMC to reset"}
	}
	sort.Slice(bmcs, func(i, j int) bool { return bmcs[i].ODataID < bmcs[j].ODataID })
	m := bmcs[0]
	want := rf.GracefulRestartResetType
	if len(m.SupportedResetTypes) > 0 && !slices.Contains(m.SupportedResetTypes, want) {
		want = rf.ForceRestartResetType
		if !slices.Contains(m.SupportedResetTypes, want) {
			names := make([]string, len(m.SupportedResetTypes))
			for i, t := range m.SupportedResetTypes {
				names[i] = string(t)
			}
			return &Error{Kind: ErrNotSupported, Detail: fmt.Sprintf("the manager %s offers neither GracefulRestart nor ForceRestart (it allows %s)", m.ODataID, strings.Join(names, ", "))}
		}
	}
	return b.retryBusy(ctx, func() error { return m.Reset(want) })
}

func (b *ipmiBackend) resetBMC(ctx context.Context) error {
	out, err := b.tool.run(ctx, "mc", "reset", "cold")
	if err != nil {
		return err
	}
	// ipmitool prints "Sent cold reset command to MC" once the BMC acknowledged the command.
	if !strings.Contains(out, "Sent cold reset command to MC") {
		return &Error{Kind: ErrRejected, Detail: "the BMC did not acknowledge the cold reset: " + strings.TrimSpace(out)}
	}
	return nil
}
