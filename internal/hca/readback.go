package hca

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/remote"
)

var (
	// ToolRE is what may name the configuration tool: mlxconfig, mstconfig, or an absolute path
	// to either. It is one shell-safe word, because it goes into a command line on the node.
	ToolRE = regexp.MustCompile(`^(mlxconfig|mstconfig|/([A-Za-z0-9._+-]+/)*(mlxconfig|mstconfig))$`)
	// ParamNameRE is what mlxconfig takes as a parameter name (NAME, NAME_P1, NAME[3]).
	ParamNameRE = regexp.MustCompile(`^[A-Za-z0-9_]+(\[[0-9]+\])?$`)
)

// ReadBack is the firmware settings to record after a query, given the recorded ones (have):
// each parameter's Next Boot value, since every set lands there; a value equal in meaning to the
// recorded one (Equal) keeps the recorded spelling, so that IB and 1 show no drift; a parameter
// the card shows no value for keeps the recorded one (there is nothing to compare with). pending
// tells whether any of them waits for a reboot or firmware reset; pendingKnown is false when the
// query had no Current column and nothing can be said.
func ReadBack(have map[string]string, q *Config) (out map[string]string, pending, pendingKnown bool) {
	out = map[string]string{}
	for n, v := range have {
		p, ok := q.Params[n]
		switch {
		case !ok || !p.Next.Known():
			out[n] = v
		case Equal(n, p.Next.Raw, v):
			out[n] = v
		default:
			out[n] = p.Next.Raw
		}
		if ok && p.Pending() {
			pending = true
		}
	}
	return out, pending, q.HasColumn("Current")
}

// ReadSettings queries the parameters of have, the recorded settings, on device and reads them
// back (ReadBack). The names are queried in order, so that the command is the same every time.
func ReadSettings(ctx context.Context, r Runner, tool, device string, have map[string]string) (out map[string]string, pending, pendingKnown bool, err error) {
	names := make([]string, 0, len(have))
	for n := range have {
		names = append(names, n)
	}
	sort.Strings(names)
	q, err := Query(ctx, r, tool, device, names...)
	if err != nil {
		return nil, false, false, err
	}
	out, pending, pendingKnown = ReadBack(have, q)
	return out, pending, pendingKnown, nil
}

// Reading is what a refresh learns of one HCA (Read). Each half fails on its own, as it would
// alone.
type Reading struct {
	// Settings is ReadBack of the recorded settings; Pending and PendingKnown are ReadBack's.
	// Settings is nil when SettingsErr is set (ReadSettings's error).
	Settings              map[string]string
	Pending, PendingKnown bool
	SettingsErr           error
	// Firmware is what QueryFirmware reads; nil when FirmwareErr is set (its error).
	Firmware    *FirmwareInfo
	FirmwareErr error
	// Tool is the family that ran: the tool given, or with ToolAuto the one the node has.
	Tool string
}

// Read is ReadSettings and QueryFirmware in ONE command on the node (remote.RunBatch): a refresh
// of an HCA costs one session and one start of the node's login shell, not two. The commands
// and their parsing are those of Query and QueryFirmware. err is for what stopped both: an
// unknown tool, a node without either tool (*NoToolError, with ToolAuto: the tool is found in
// the same command, runTools), or a batch that could not run (a lost connection, ctx ending).
func Read(ctx context.Context, r Runner, tool, device string, have map[string]string) (*Reading, error) {
	names := sortedKeys(have) // in order, so that the command is the same every time
	ts, cmds, out, err := runTools(ctx, r, tool, func(ts toolset) []string {
		return []string{queryCommand(ts, device, names), firmwareCommand(ts, device)}
	})
	if ts.name == "" {
		return nil, err
	}
	qcmd, fcmd := cmds[0], cmds[1]
	if len(out) == 0 {
		return nil, fmt.Errorf("%s on device %s: %s: %w", ts.config, device, qcmd, err)
	}
	rd := &Reading{Tool: ts.name}
	if q, qerr := queryResult(ts, device, qcmd, names, out[0].Stdout, out[0].Stderr, out[0].Exit); qerr != nil {
		rd.SettingsErr = qerr
	} else {
		rd.Settings, rd.Pending, rd.PendingKnown = ReadBack(have, q)
	}
	if len(out) > 1 {
		rd.Firmware, rd.FirmwareErr = firmwareResult(ts, device, fcmd, out[1].Stdout, out[1].Stderr, out[1].Exit)
	} else {
		rd.FirmwareErr = fmt.Errorf("%s on device %s: %s: %w", ts.flint, device, fcmd, err)
	}
	return rd, nil
}

// ResetOptions is how Apply treats a reset setting: "" or "none", no reset; otherwise the
// mlxfwreset level as text ("0", "3", "4", "5"), which the caller has checked.
func ResetOptions(reset string) *ApplyOptions {
	opts := &ApplyOptions{}
	if reset != "" && reset != "none" {
		opts.Reset, opts.ResetLevelSet = true, true
		opts.ResetLevel, _ = strconv.Atoi(reset)
	}
	return opts
}

// SetText lists what Apply set, "LINK_TYPE_P1=IB SRIOV_EN=True", as the set command's arguments.
func (r *ApplyResult) SetText() string {
	set := make([]string, 0, len(r.Changes))
	for _, c := range r.Changes {
		set = append(set, c.Param+"="+c.Arg)
	}
	return strings.Join(set, " ")
}

// Failure is the detail of err about one HCA (name, device on addr, with tool): the error, what
// the tool printed (a *ToolError's output), the commands run before it, in order, and what to do
// about reaching the node (SSHHint).
func Failure(name, device, addr, tool string, err error, commands []string) string {
	detail := fmt.Sprintf("HCA %q (device %s on %s, %s): %s.", name, device, addr, tool, strings.TrimSuffix(err.Error(), "."))
	var te *ToolError
	if errors.As(err, &te) && strings.TrimSpace(te.Output) != "" {
		detail += "\n\nThe tool printed:\n" + strings.TrimRight(te.Output, "\n")
	}
	if len(commands) > 0 {
		detail += "\n\nCommands run, in order:\n  " + strings.Join(commands, "\n  ")
	}
	if hint := SSHHint(err); hint != "" {
		detail += "\n\n" + hint
	}
	return detail
}

// Waiting words what waits for a reboot or was loaded by the reset, for a person: the pending
// parameters, or what can be said of them when the firmware shows no Current values.
func (r *ResetPendingResult) Waiting() string {
	switch {
	case r.Unknown && r.RebootNeeded:
		return "the settings (the firmware cannot show whether any wait)"
	case r.Unknown && r.Reset:
		return "whatever was pending (the firmware cannot show it)"
	}
	return strings.Join(r.Pending, ", ")
}

// LevelsText lists the reset levels the card supports now, "3, 4", or "none" when the levels
// were not queried or the card reported none it supports.
func (r *ResetPendingResult) LevelsText() string {
	if r.Levels == nil {
		return "none"
	}
	var ls []string
	for _, l := range r.Levels.SupportedLevels() {
		ls = append(ls, strconv.Itoa(l))
	}
	return strings.Join(ls, ", ")
}

// SSHHint says what to do about an error reaching an HCA's node over SSH, or "" when the error
// says it already (a host key error) or nothing more can be said.
func SSHHint(err error) string {
	var hk *remote.HostKeyError
	switch {
	case errors.As(err, &hk):
		return ""
	case remote.Unreachable(err):
		return "The node did not answer over SSH: check that it is up and that ssh_host is right, or raise the HCA's timeouts."
	case remote.KeyRefused(err):
		return "Check the SSH user and private_key in the provider's ssh block (or the HCA's ssh override)."
	}
	return ""
}
