package hca

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// ToolError is a tool that ran and failed, or printed an error. It names the
// device and the parameter(s) concerned and carries what the tool printed.
type ToolError struct {
	Tool    string
	Device  string
	Command string
	Params  []string // the parameters the message is about (all of the command's when it names none)
	Exit    int
	Message string // the tool's -E- text, without the prefix
	Output  string // stdout followed by stderr, as printed
}

func (e *ToolError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s on device %s", e.Tool, e.Device)
	switch len(e.Params) {
	case 0:
	case 1:
		fmt.Fprintf(&b, ", parameter %s", e.Params[0])
	default:
		fmt.Fprintf(&b, ", parameters %s", strings.Join(e.Params, ", "))
	}
	b.WriteString(": ")
	if e.Message != "" {
		b.WriteString(e.Message)
	} else {
		b.WriteString("failed")
	}
	fmt.Fprintf(&b, " (exit status %d)", e.Exit)
	return b.String()
}

func newToolError(prog, device, cmd string, params []string, exit int, stdout, stderr string, errs []string) *ToolError {
	e := &ToolError{Tool: prog, Device: device, Command: cmd, Exit: exit, Output: stdout + stderr}
	e.Message = strings.Join(errs, "; ")
	if e.Message == "" {
		// No -E- line: the last thing printed is the best explanation
		// (a shell's "command not found", a usage text's first line...).
		for _, s := range []string{stderr, stdout} {
			lines := strings.Split(strings.TrimSpace(s), "\n")
			if l := strings.TrimSpace(lines[len(lines)-1]); l != "" {
				e.Message = l
				break
			}
		}
	}
	// Name the parameter the message is about, when it names one.
	for _, p := range params {
		if containsWord(e.Message, p) {
			e.Params = append(e.Params, p)
		}
	}
	if len(e.Params) == 0 {
		e.Params = append([]string(nil), params...)
	}
	return e
}

func containsWord(s, w string) bool {
	for i := strings.Index(s, w); i >= 0; {
		end := i + len(w)
		before := i == 0 || !isNameByte(s[i-1])
		after := end == len(s) || !isNameByte(s[end])
		if before && after {
			return true
		}
		j := strings.Index(s[i+1:], w)
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return false
}

func isNameByte(c byte) bool {
	return c == '_' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9'
}

// Query runs "mlxconfig -d DEVICE -e query [NAME...]" (or mstconfig) and
// parses it. With names, only those are queried, and a name the device does
// not support fails the query with the tool's message. -e adds the Default
// and Current columns, which tell whether a change waits for a reboot.
// With ToolAuto the node's tool is found in the same command (runTools).
func Query(ctx context.Context, r Runner, tool, device string, names ...string) (*Config, error) {
	cfg, _, err := query(ctx, r, tool, device, names)
	return cfg, err
}

// query is Query, and the family that ran (ts.name "" when none did).
func query(ctx context.Context, r Runner, tool, device string, names []string) (*Config, toolset, error) {
	ts, cmd, res, err := runTool(ctx, r, tool, func(ts toolset) string { return queryCommand(ts, device, names) })
	if err != nil {
		if ts.name == "" {
			return nil, ts, err
		}
		return nil, ts, fmt.Errorf("%s on device %s: %s: %w", ts.config, device, cmd, err)
	}
	cfg, err := queryResult(ts, device, cmd, names, res.Stdout, res.Stderr, res.Exit)
	return cfg, ts, err
}

func queryCommand(ts toolset, device string, names []string) string {
	return command(ts.config, append([]string{"-d", device, "-e", "query"}, names...)...)
}

// queryResult reads what the query cmd printed, and fails as Query does.
func queryResult(ts toolset, device, cmd string, names []string, stdout, stderr string, exit int) (*Config, error) {
	cfg, perr := ParseQuery(stdout)
	var errs []string
	if cfg != nil {
		errs = cfg.Errors
	}
	if exit != 0 || len(errs) > 0 {
		return nil, newToolError(ts.config, device, cmd, names, exit, stdout, stderr, errs)
	}
	if perr != nil {
		return nil, &ToolError{Tool: ts.config, Device: device, Command: cmd, Params: names, Exit: exit,
			Message: "unreadable query output: " + perr.Error(), Output: stdout + stderr}
	}
	for _, n := range names {
		if _, ok := cfg.Params[n]; !ok {
			return nil, &ToolError{Tool: ts.config, Device: device, Command: cmd, Params: []string{n}, Exit: exit,
				Message: "the query output has no line for " + n, Output: stdout + stderr}
		}
	}
	return cfg, nil
}

// Change is one parameter whose Next Boot value differs from the desired one.
type Change struct {
	Param   string
	From    Value  // the Next Boot value the device reported; zero when it reported none
	To      string // the desired value, as written by the user
	Arg     string // the value handed to set: an enum name or a decimal number
	Missing bool   // the device's query had no such parameter
}

// Plan lists the settings of desired whose value differs from the Next Boot
// value in current, sorted by name. Values compare by meaning (IB == ib ==
// IB(1) == 1 for LINK_TYPE_P1). Next Boot is the reference because every set
// lands there: a value set but not yet loaded by a reboot is not a change to
// make again.
func Plan(current *Config, desired map[string]string) []Change {
	names := make([]string, 0, len(desired))
	for n := range desired {
		names = append(names, n)
	}
	sort.Strings(names)
	var out []Change
	for _, n := range names {
		want := desired[n]
		var p Param
		var ok bool
		if current != nil {
			p, ok = current.Params[n]
		}
		if ok && p.Next.Known() && Equal(n, p.Next.Raw, want) {
			continue
		}
		out = append(out, Change{Param: n, From: p.Next, To: want, Arg: setArg(n, want), Missing: !ok})
	}
	return out
}

// setArg is the value written on the set command line: what the tool parses
// (an enum name, a decimal number), not the printed form NAME(n) it would
// reject.
func setArg(param, value string) string {
	if spec, err := Lookup(param); err == nil {
		if v, err := spec.Parse(value); err == nil {
			if v.Text != "" {
				return v.Text
			}
			return v.Raw
		}
	}
	v := NewValue(value)
	if v.HasNum && v.Text != "" {
		return strconv.FormatUint(v.Num, 10)
	}
	return strings.TrimSpace(value)
}

// ApplyOptions tune Apply.
type ApplyOptions struct {
	// Reset runs mlxfwreset/mstfwreset after the set when something is
	// pending, so the new values take effect without a reboot.
	Reset bool
	// ResetLevel is the reset level: 0 live patch, 3 driver restart and PCI
	// reset (the usual one for mlxconfig changes), 4 warm reboot, 5 cold
	// reboot. 0 means 3 unless ResetLevelSet.
	ResetLevel    int
	ResetLevelSet bool
	// Firmware also reads the firmware version (QueryFirmware), in the same command on the node
	// as the first query (remote.RunBatch), into ApplyResult.Firmware. flint reads the image on
	// the flash, which neither a set nor a firmware reset changes, so reading it first is reading
	// it last.
	Firmware bool
}

// ApplyResult reports what Apply did and found.
type ApplyResult struct {
	Device        string
	Changes       []Change // what was set; empty when nothing differed
	Before, After *Config  // the queries before and after (After == Before when nothing was set)
	Message       string   // the set's -I- line, e.g. "Please reboot machine to load new configurations."
	PendingReboot bool     // some desired parameter's Next Boot value is not yet the Current one
	Pending       []string // those parameters
	Reset         bool     // a firmware reset ran
	Commands      []string // every command run, in order
	// Tool is the family that ran: the tool given, or with ToolAuto the one the node has.
	Tool string
	// Firmware is the firmware version read with ApplyOptions.Firmware; FirmwareErr is why it
	// could not be (nil without the option, and when the settings were empty: nothing ran).
	Firmware    *FirmwareInfo
	FirmwareErr error
}

// Apply makes the Next Boot values of device match desired: it queries the
// desired parameters, sets only those that differ with one
// "mlxconfig -d DEV -y set A=1 B=2", and runs nothing when nothing differs.
// After a set it queries again to confirm. PendingReboot reports parameters
// whose Next Boot value differs from Current (a set always does this, until a
// reboot or a firmware reset); with opts.Reset a firmware reset follows.
// Names are not checked against the database first: the device decides, and
// its refusal comes back as a *ToolError naming the parameter. On error the
// result still holds what was learnt and the commands that ran.
//
// The flow is NVIDIA's for NVConfig (mstflint man pages mstconfig and mstfwreset;
// GenericCommander::loadConfigurationGetStr): every set lands in Next Boot and
// takes effect at a reboot or a firmware reset (mlxfwreset level 3 and up).
//
// With ToolAuto the node's tool is found in the first query's command (runTools) and used for
// the rest; ApplyResult.Tool says which.
func Apply(ctx context.Context, r Runner, tool, device string, desired map[string]string, opts *ApplyOptions) (*ApplyResult, error) {
	if tool != ToolAuto {
		if _, err := toolsFor(tool); err != nil {
			return nil, err
		}
	}
	if opts == nil {
		opts = &ApplyOptions{}
	}
	res := &ApplyResult{Device: device, Tool: tool}
	rec := &recorder{r: r, cmds: &res.Commands}
	names := sortedKeys(desired)
	if len(names) == 0 {
		return res, nil
	}

	before, ts, err := firstQuery(ctx, r, tool, device, names, opts.Firmware, res)
	if ts.name == "" {
		return res, err
	}
	tool, res.Tool = ts.name, ts.name
	if err != nil {
		return res, err
	}
	res.Before, res.After = before, before
	res.Changes = Plan(before, desired)

	if len(res.Changes) > 0 {
		args := []string{"-d", device, "-y", "set"}
		params := make([]string, 0, len(res.Changes))
		for _, c := range res.Changes {
			args = append(args, c.Param+"="+c.Arg)
			params = append(params, c.Param)
		}
		cmd := command(ts.config, args...)
		stdout, stderr, exit, err := rec.Run(ctx, cmd)
		if err != nil {
			return res, fmt.Errorf("%s on device %s: %s: %w", ts.config, device, cmd, err)
		}
		out, _ := ParseQuery(stdout)
		var errs []string
		if out != nil {
			errs = out.Errors
		}
		if exit != 0 || len(errs) > 0 || !strings.Contains(stdout, "Done!") {
			return res, newToolError(ts.config, device, cmd, params, exit, stdout, stderr, errs)
		}
		if len(out.Info) > 0 {
			res.Message = out.Info[len(out.Info)-1]
		}
		after, err := Query(ctx, rec, tool, device, names...)
		if err != nil {
			return res, err
		}
		res.After = after
		// The tool said Done; make sure the device agrees.
		if left := Plan(after, desired); len(left) > 0 {
			var miss []string
			for _, c := range left {
				miss = append(miss, fmt.Sprintf("%s is %s, want %s", c.Param, c.From.Raw, c.To))
			}
			return res, &ToolError{Tool: ts.config, Device: device, Command: cmd, Params: params,
				Message: "set reported success but Next Boot differs: " + strings.Join(miss, "; "), Output: stdout + stderr}
		}
	}

	res.Pending, res.PendingReboot = pending(res.After, names, len(res.Changes) > 0)
	if opts.Reset && res.PendingReboot {
		level := opts.ResetLevel
		if !opts.ResetLevelSet && level == 0 {
			level = 3
		}
		if err := Reset(ctx, rec, tool, device, level); err != nil {
			return res, err
		}
		res.Reset = true
		after, err := Query(ctx, rec, tool, device, names...)
		if err != nil {
			return res, err
		}
		res.After = after
		res.Pending, res.PendingReboot = pending(after, names, false)
	}
	return res, nil
}

// firstQuery is Apply's first query, with flint's beside it when firmware is asked for, in one
// command on the node (with the probe first for ToolAuto). ts is the family that ran ("" name
// when none did).
func firstQuery(ctx context.Context, r Runner, tool, device string, names []string, firmware bool, res *ApplyResult) (*Config, toolset, error) {
	ts, cmds, out, err := runTools(ctx, r, tool, func(ts toolset) []string {
		if firmware {
			return []string{queryCommand(ts, device, names), firmwareCommand(ts, device)}
		}
		return []string{queryCommand(ts, device, names)}
	})
	if ts.name == "" {
		return nil, ts, err
	}
	res.Commands = append(res.Commands, cmds...)
	if len(out) == 0 {
		return nil, ts, fmt.Errorf("%s on device %s: %s: %w", ts.config, device, cmds[0], err)
	}
	if firmware {
		if len(out) > 1 {
			res.Firmware, res.FirmwareErr = firmwareResult(ts, device, cmds[1], out[1].Stdout, out[1].Stderr, out[1].Exit)
		} else {
			res.FirmwareErr = fmt.Errorf("%s on device %s: %s: %w", ts.flint, device, cmds[1], err)
		}
	}
	cfg, err := queryResult(ts, device, cmds[0], names, out[0].Stdout, out[0].Stderr, out[0].Exit)
	return cfg, ts, err
}

// pending lists the names whose Next Boot value differs from Current. When
// the tool could not show Current (firmware without that support), a change
// just made is assumed pending.
func pending(cfg *Config, names []string, changed bool) ([]string, bool) {
	if cfg == nil || !cfg.HasColumn("Current") {
		return nil, changed
	}
	var out []string
	for _, n := range names {
		if p, ok := cfg.Params[n]; ok && p.Pending() {
			out = append(out, n)
		}
	}
	return out, len(out) > 0
}

// Reset runs "mlxfwreset -d DEVICE -l LEVEL -y reset" (mstfwreset for
// mstconfig), which loads the Next Boot configuration without a reboot.
func Reset(ctx context.Context, r Runner, tool, device string, level int) error {
	if level < 0 || level > 5 {
		return fmt.Errorf("firmware reset: reset level %d: want 0 to 5", level)
	}
	ts, cmd, res, err := runTool(ctx, r, tool, func(ts toolset) string {
		return command(ts.reset, "-d", device, "-l", strconv.Itoa(level), "-y", "reset")
	})
	if err != nil {
		if ts.name == "" {
			return err
		}
		return fmt.Errorf("%s on device %s: %s: %w", ts.reset, device, cmd, err)
	}
	stdout, stderr, exit := res.Stdout, res.Stderr, res.Exit
	errs := errorLines(stdout + "\n" + stderr)
	if exit != 0 || len(errs) > 0 {
		return newToolError(ts.reset, device, cmd, nil, exit, stdout, stderr, errs)
	}
	return nil
}

// QueryFirmware runs "flint -d DEVICE query" (mstflint for mstconfig; with ToolAuto, the one
// the node has, found in the same command: FirmwareInfo.Tool says which).
func QueryFirmware(ctx context.Context, r Runner, tool, device string) (*FirmwareInfo, error) {
	ts, cmd, res, err := runTool(ctx, r, tool, func(ts toolset) string { return firmwareCommand(ts, device) })
	if err != nil {
		if ts.name == "" {
			return nil, err
		}
		return nil, fmt.Errorf("%s on device %s: %s: %w", ts.flint, device, cmd, err)
	}
	return firmwareResult(ts, device, cmd, res.Stdout, res.Stderr, res.Exit)
}

func firmwareCommand(ts toolset, device string) string {
	return command(ts.flint, "-d", device, "query")
}

// firmwareResult reads what flint's query cmd printed, and fails as QueryFirmware does.
func firmwareResult(ts toolset, device, cmd, stdout, stderr string, exit int) (*FirmwareInfo, error) {
	if errs := errorLines(stdout + "\n" + stderr); exit != 0 || len(errs) > 0 {
		return nil, newToolError(ts.flint, device, cmd, nil, exit, stdout, stderr, errs)
	}
	fi, err := ParseFlintQuery(stdout)
	if err != nil {
		return nil, &ToolError{Tool: ts.flint, Device: device, Command: cmd, Exit: exit, Message: err.Error(), Output: stdout + stderr}
	}
	fi.Tool = ts.name
	return fi, nil
}

// errorLines are the tools' -E- messages (reportErr: "-E- %s" on stdout). A burn that fails
// while writing prints its message right after a progress line that has no newline
// ("\rWriting Boot image component -  30%-E- Burning FS4 image failed: ..."), so a message is
// also taken from within a line, after a carriage return or a percentage.
func errorLines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		l = strings.TrimSpace(l)
		i := strings.Index(l, "-E-")
		if i < 0 || (i > 0 && !strings.ContainsAny(l[i-1:i], "\r%")) {
			continue
		}
		out = append(out, strings.TrimSpace(l[i+len("-E-"):]))
	}
	return out
}

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// recorder notes every command for ApplyResult.Commands.
type recorder struct {
	r    Runner
	cmds *[]string
}

func (rc *recorder) Run(ctx context.Context, cmd string) (string, string, int, error) {
	*rc.cmds = append(*rc.cmds, cmd)
	return rc.r.Run(ctx, cmd)
}
