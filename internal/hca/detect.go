package hca

import (
	"context"
	"fmt"
	"path"
	"strings"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/remote"
)

// Choosing the tool family on the node (ToolAuto). DESIGN ("Firmware and maintenance waves")
// reads a card with "flint -d DEV q, or mstflint, whichever the node has": NVIDIA MFT ships
// flint, mlxconfig and mlxfwreset, mstflint (its open-source subset, the Debian and Ubuntu
// package "mstflint") ships mstflint, mstconfig and mstfwreset, and both take the same
// arguments and print the same text (wave4-facts 5.1 and 5.2; mstflint's flint/subcommands.cpp
// serves both). So one family serves the configuration, the firmware and the reset, and the
// flint of the family names it.
//
// The choice costs no round trip: the first command of the batch that a read or an apply runs
// anyway (remote.RunBatch) is the probe "command -v flint || command -v mstflint" (POSIX
// command -v prints the path the shell would run and fails when there is none), and every
// command after it is written for both families behind the same test, so the commands run
// what the probe found. MFT wins when a node has both, as the probe's order says. Neither is
// a *NoToolError, which says what to install.

// probeCommand prints the path of the flint the node's shell would run, MFT's first.
const probeCommand = "command -v flint || command -v mstflint"

// either is the command mft on a node with MFT's flint, else mst: the probe's test.
func either(mft, mst string) string {
	return "if command -v flint >/dev/null 2>&1; then " + mft + "; else " + mst + "; fi"
}

// NoToolError is a node on which neither flint (NVIDIA MFT) nor mstflint is found on the PATH
// of a command run over SSH.
type NoToolError struct {
	// Output is what the probe printed (nothing, usually; a login shell's chatter otherwise).
	Output string
}

func (e *NoToolError) Error() string {
	return "neither flint (NVIDIA MFT) nor mstflint is on the PATH of a command run over SSH on the node (`" + probeCommand +
		"` found neither): install NVIDIA MFT (flint, mlxconfig, mlxfwreset; from NVIDIA's MFT download page) or mstflint " +
		"(mstflint, mstconfig, mstfwreset; `apt-get install mstflint` on Debian and Ubuntu, or github.com/Mellanox/mstflint), " +
		"or set tool to the absolute path of mlxconfig or mstconfig when they are installed outside that PATH"
}

// parseProbe reads what probeCommand printed: the family of the flint it found (ToolMlxconfig
// for flint, ToolMstconfig for mstflint). A login shell may print before the probe does, so the
// last line is the probe's.
func parseProbe(res remote.Result) (string, error) {
	out := strings.TrimSpace(res.Stdout)
	line := out
	if i := strings.LastIndexByte(out, '\n'); i >= 0 {
		line = strings.TrimSpace(out[i+1:])
	}
	if res.Exit == 0 && strings.HasPrefix(line, "/") {
		switch path.Base(line) {
		case "flint":
			return ToolMlxconfig, nil
		case "mstflint":
			return ToolMstconfig, nil
		}
	}
	if res.Exit != 0 {
		return "", &NoToolError{Output: res.Stdout + res.Stderr}
	}
	return "", fmt.Errorf("hca: cannot tell flint from mstflint by what `%s` printed on the node: %q", probeCommand, line)
}

var (
	mftTools, _ = toolsFor(ToolMlxconfig)
	mstTools, _ = toolsFor(ToolMstconfig)
)

// runTools runs the commands that build writes for a family as ONE command on the node
// (remote.RunBatch; a lone command of a known family runs as it is). With ToolAuto the probe
// runs first in the same batch and each command is written for both families (either). ts is
// the family that ran and cmds the commands as it runs them (what errors show); out holds what
// each finished command printed, and err is RunBatch's when the batch stopped early. When
// ts.name is "" nothing ran that the caller can read: err is an unknown tool, a node without
// either tool (*NoToolError) or a batch that could not run.
func runTools(ctx context.Context, r Runner, tool string, build func(toolset) []string) (ts toolset, cmds []string, out []remote.Result, err error) {
	if tool != ToolAuto {
		if ts, err = toolsFor(tool); err != nil {
			return toolset{}, nil, nil, err
		}
		cmds = build(ts)
		if len(cmds) == 1 {
			var res remote.Result
			res.Stdout, res.Stderr, res.Exit, err = r.Run(ctx, cmds[0])
			if err != nil {
				return ts, cmds, nil, err
			}
			return ts, cmds, []remote.Result{res}, nil
		}
		out, err = remote.RunBatch(ctx, r, cmds...)
		return ts, cmds, out, err
	}
	mft, mst := build(mftTools), build(mstTools)
	script := make([]string, 0, 1+len(mft))
	script = append(script, probeCommand)
	for i := range mft {
		script = append(script, either(mft[i], mst[i]))
	}
	out, err = remote.RunBatch(ctx, r, script...)
	if len(out) == 0 {
		if err == nil {
			err = fmt.Errorf("the batch printed nothing")
		}
		return toolset{}, nil, nil, fmt.Errorf("hca: finding flint or mstflint on the node: %s: %w", probeCommand, err)
	}
	name, perr := parseProbe(out[0])
	if perr != nil {
		return toolset{}, nil, nil, perr
	}
	ts, _ = toolsFor(name)
	return ts, build(ts), out[1:], err
}

// runTool is runTools for one command: its result, or err when it did not run (see runTools
// for ts.name == "").
func runTool(ctx context.Context, r Runner, tool string, build func(toolset) string) (toolset, string, remote.Result, error) {
	ts, cmds, out, err := runTools(ctx, r, tool, func(ts toolset) []string { return []string{build(ts)} })
	if ts.name == "" {
		return ts, "", remote.Result{}, err
	}
	if len(out) == 0 {
		if err == nil {
			err = fmt.Errorf("the command did not run")
		}
		return ts, cmds[0], remote.Result{}, err
	}
	return ts, cmds[0], out[0], nil
}
