package hca

import (
	"context"
	"fmt"
	"path"
	"strings"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/remote"
)

// Runner runs one command on a host and returns stdout, stderr and the exit
// code. err is for failures to run the command at all (connection lost,
// context cancelled); a command that ran and failed reports a non-zero exit
// with a nil err. cmd is a shell command line: every argument in it has been
// quoted with remote.Quote.
type Runner interface {
	Run(ctx context.Context, cmd string) (stdout, stderr string, exit int, err error)
}

// Tool families. The configuration tool decides the others: MFT ships
// mlxconfig, flint and mlxfwreset; mstflint ships mstconfig, mstflint and
// mstfwreset. They take the same arguments and print the same text.
// ToolAuto ("") leaves the choice to the node: see detect.go.
const (
	ToolMlxconfig = "mlxconfig"
	ToolMstconfig = "mstconfig"
	ToolAuto      = ""
)

// toolset names the three programs of one family, and the tool that named it (name: what
// callers record, ToolMlxconfig, ToolMstconfig or the absolute path given).
type toolset struct {
	name, config, flint, reset string
}

// toolsFor returns the programs of the family that tool names: "mlxconfig"
// for MFT, "mstconfig" for mstflint. tool may also be an absolute path ending in /mlxconfig or /mstconfig, for
// an installation outside the PATH of a non-interactive SSH session (MFT
// under /opt/mellanox, say): the other two programs are then taken from the
// same directory. ToolAuto is not a family: the functions that take a tool resolve it on the
// node (detect.go) before they come here.
func toolsFor(tool string) (toolset, error) {
	switch tool {
	case ToolMlxconfig:
		return toolset{tool, "mlxconfig", "flint", "mlxfwreset"}, nil
	case ToolMstconfig:
		return toolset{tool, "mstconfig", "mstflint", "mstfwreset"}, nil
	}
	if strings.HasPrefix(tool, "/") {
		dir, base := path.Split(path.Clean(tool))
		switch base {
		case ToolMlxconfig:
			return toolset{tool, dir + "mlxconfig", dir + "flint", dir + "mlxfwreset"}, nil
		case ToolMstconfig:
			return toolset{tool, dir + "mstconfig", dir + "mstflint", dir + "mstfwreset"}, nil
		}
	}
	return toolset{}, fmt.Errorf("hca: unknown tool %q: want %q, %q or an absolute path ending in /%s or /%s",
		tool, ToolMlxconfig, ToolMstconfig, ToolMlxconfig, ToolMstconfig)
}

// command joins a program and its arguments into a command line, quoted by remote.Command, the
// provider's one shell quoter: NAME=VALUE arguments stay readable in the commands errors show.
func command(prog string, args ...string) string {
	return remote.Command(append([]string{prog}, args...)...)
}
