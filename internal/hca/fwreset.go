package hca

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// What a firmware reset can do for a card now. Every mlxconfig change lands in the Next Boot
// values; mlxfwreset (mstfwreset) loads them without a reboot at one of the levels the firmware
// reports as supported in its current state (the MFRL register): 0 live patch, 1 immediate reset
// (the ARM side of a SoC), 3 driver restart and PCI reset, 4 warm reboot (MFT documentation,
// "mlxfwreset - Loading Firmware on 5th Generation Devices Tool"; mstflint
// small_utils/mlxfwresetlib/cmd_reg_mfrl.py). The tool's default is the lowest supported level
// that may be a default (0, 3 or 4; never 1).

// ResetLevel is one line of the "Reset-levels:" section of "mlxfwreset -d DEV query".
type ResetLevel struct {
	Level       int
	Description string
	Supported   bool
	Default     bool
}

// Rebooting reports whether the level reboots the node (warm or cold reboot).
func (l ResetLevel) Rebooting() bool { return l.Level >= 4 }

// ResetLevels is what "mlxfwreset -d DEV query" says of the reset levels.
type ResetLevels struct {
	Levels []ResetLevel // in the order printed
}

// Default returns the level the tool marks "(default)"; ok is false when none is.
func (r *ResetLevels) Default() (ResetLevel, bool) {
	for _, l := range r.Levels {
		if l.Default {
			return l, true
		}
	}
	return ResetLevel{}, false
}

// Supported reports whether level n is supported now.
func (r *ResetLevels) Supported(n int) bool {
	for _, l := range r.Levels {
		if l.Level == n {
			return l.Supported
		}
	}
	return false
}

// SupportedLevels lists the supported levels, in the order printed.
func (r *ResetLevels) SupportedLevels() []int {
	var out []int
	for _, l := range r.Levels {
		if l.Supported {
			out = append(out, l.Level)
		}
	}
	return out
}

// reResetLevel reads "%d: %-62s-%-14s%s" (cmd_reg_mfrl.py query_text): level, description,
// "Supported" or "Not Supported", and "(default)" or nothing. The description may itself hold
// '-', so the status is the last " -Supported" or " -Not Supported" of the line.
var reResetLevel = regexp.MustCompile(`^(\d+): (.*\S)\s+-(Supported|Not [Ss]upported)\s*(\(default\))?\s*$`)

// ParseResetQuery reads the "Reset-levels:" section of "mlxfwreset -d DEV query" (the reset-type
// and reset-sync sections that follow are not needed here). An output without that section, or
// with a line in it that is not a level, is an error quoting it.
func ParseResetQuery(out string) (*ResetLevels, error) {
	lines := strings.Split(strings.ReplaceAll(out, "\r\n", "\n"), "\n")
	start := -1
	for i, l := range lines {
		if strings.TrimSpace(l) == "Reset-levels:" {
			start = i + 1
			break
		}
	}
	if start < 0 {
		return nil, fmt.Errorf("no \"Reset-levels:\" section in the query output")
	}
	r := &ResetLevels{}
	for _, l := range lines[start:] {
		if strings.TrimSpace(l) == "" {
			break
		}
		m := reResetLevel.FindStringSubmatch(l)
		if m == nil {
			return nil, fmt.Errorf("reset level line %q is not \"LEVEL: DESCRIPTION -Supported|-Not Supported [(default)]\"", l)
		}
		n, _ := strconv.Atoi(m[1])
		r.Levels = append(r.Levels, ResetLevel{Level: n, Description: m[2], Supported: m[3] == "Supported", Default: m[4] != ""})
	}
	if len(r.Levels) == 0 {
		return nil, fmt.Errorf("the \"Reset-levels:\" section lists no level")
	}
	return r, nil
}

// QueryReset runs "mlxfwreset -d DEVICE query" (mstfwreset for mstconfig). A card that supports
// no level at all makes the tool fail ("-E- There is no supported reset-level."): that is a
// *ToolError, which the caller can tell from an unreachable node.
func QueryReset(ctx context.Context, r Runner, tool, device string) (*ResetLevels, error) {
	ts, cmd, res, err := runTool(ctx, r, tool, func(ts toolset) string { return command(ts.reset, "-d", device, "query") })
	if err != nil {
		if ts.name == "" {
			return nil, err
		}
		return nil, fmt.Errorf("%s on device %s: %s: %w", ts.reset, device, cmd, err)
	}
	stdout, stderr, exit := res.Stdout, res.Stderr, res.Exit
	if errs := errorLines(stdout + "\n" + stderr); exit != 0 || len(errs) > 0 {
		return nil, newToolError(ts.reset, device, cmd, nil, exit, stdout, stderr, errs)
	}
	levels, err := ParseResetQuery(stdout)
	if err != nil {
		return nil, &ToolError{Tool: ts.reset, Device: device, Command: cmd, Exit: exit, Message: err.Error(), Output: stdout + stderr}
	}
	return levels, nil
}

// NoSupportedLevel reports whether err is the tool's refusal of a card that supports no reset
// level now (only a reboot loads its pending configuration).
func NoSupportedLevel(err error) bool {
	te, ok := err.(*ToolError)
	return ok && strings.Contains(te.Message, "There is no supported reset-level")
}
