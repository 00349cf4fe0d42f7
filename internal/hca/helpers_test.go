package hca

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"sort"
)

// LocalRunner runs commands with "sh -c" on this machine, for the tests (the
// mlxconfig double on PATH). Env, when set, is the whole environment of the
// command (as in exec.Cmd.Env).
type LocalRunner struct {
	Env []string
	Dir string
}

// Run implements Runner.
func (l LocalRunner) Run(ctx context.Context, cmd string) (string, string, int, error) {
	c := exec.CommandContext(ctx, "sh", "-c", cmd)
	c.Env = l.Env
	c.Dir = l.Dir
	var out, errb bytes.Buffer
	c.Stdout, c.Stderr = &out, &errb
	err := c.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) && ctx.Err() == nil {
		return out.String(), errb.String(), ee.ExitCode(), nil
	}
	if err != nil {
		return out.String(), errb.String(), -1, err
	}
	return out.String(), errb.String(), 0, nil
}

// Names returns every parameter name the database knows, with port and module
// suffixes, sorted. Array parameters appear once, without an index.
func Names() []string {
	return append([]string(nil), mustDB().names...)
}

// Defs returns the definitions, sorted by base name.
func Defs() []*Def {
	d := mustDB()
	out := make([]*Def, 0, len(d.defs))
	for _, def := range d.defs {
		out = append(out, def)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Base < out[j].Base })
	return out
}

func (v Value) String() string { return v.Raw }
