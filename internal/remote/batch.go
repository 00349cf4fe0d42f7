package remote

import (
	"context"
	"fmt"
	"strconv"
	"strings"
)

// Runner runs one command line on a host: what *Client offers, and what a caller may put in its
// place (a local shell in tests).
type Runner interface {
	Run(ctx context.Context, cmd string) (stdout, stderr string, exit int, err error)
}

// Result is what one command of a batch printed, and its exit status.
type Result struct {
	Stdout, Stderr string
	Exit           int
}

// RunBatch runs cmds one after the other as ONE command line on r, and returns what each printed
// and its exit status, as if each had been run alone: one session and one start of the remote
// login shell instead of one per command, which on a node whose shell start-up costs a second is
// most of a command's time. Every command runs whatever the others' status, in a /bin/sh of its
// own, as Run runs it (its exit, $$, a syntax error stay its own), with stdin from /dev/null.
//
// After each command the script prints a marker line on stdout (with the status) and on stderr:
// "\n" MARK " " STATUS "\n" and "\n" MARK "\n", where MARK holds a random nonce, so no command's
// output can contain it by chance. The "\n" before a marker is the script's, and is taken off, so
// a command's output comes back byte for byte, a missing final newline included.
//
// err is Run's (the batch could not be run or its status learnt), or says that the batch ended
// before its last command (the shell was killed, the connection dropped): then the results of
// the commands that finished come back with it.
func RunBatch(ctx context.Context, r Runner, cmds ...string) ([]Result, error) {
	if len(cmds) == 0 {
		return nil, nil
	}
	id, err := newID()
	if err != nil {
		return nil, err
	}
	mark := "gpc-batch-" + id
	var script strings.Builder
	for _, c := range cmds {
		// The command runs in a /bin/sh of its own, its stderr through fd 3: the subshell around
		// it has /dev/null for stderr, so that the report dash adds for a command killed by a
		// signal ("Terminated", which a command run alone does not get) goes nowhere, and it
		// ends with exit, so that the batch's shell sees a status and not the signal again.
		fmt.Fprintf(&script, "( /bin/sh -c 'exec 2>&3 3>&-; exec /bin/sh -c \"$1\"' gpc-batch %s </dev/null; exit $? ) 3>&2 2>/dev/null\n"+
			"printf '\\n%%s %%d\\n' %s $?\nprintf '\\n%%s\\n' %s >&2\n", Quote(c), mark, mark)
	}
	stdout, stderr, exit, err := r.Run(ctx, script.String())
	if err != nil {
		return nil, err
	}
	res := make([]Result, 0, len(cmds))
	outs, exits := splitMarked(stdout, "\n"+mark+" ", true)
	errs, _ := splitMarked(stderr, "\n"+mark+"\n", false)
	for i := 0; i < len(outs) && i < len(errs) && i < len(cmds); i++ {
		res = append(res, Result{Stdout: outs[i], Stderr: errs[i], Exit: exits[i]})
	}
	if len(res) < len(cmds) {
		return res, fmt.Errorf("remote: a batch of %d commands ended after %d (exit status %d): %s",
			len(cmds), len(res), exit, strings.TrimSpace(stderr))
	}
	return res, nil
}

// splitMarked cuts s at each sep; with status, each sep is followed by a decimal status and a
// newline. A segment not followed by its marker is not returned.
func splitMarked(s, sep string, status bool) (segs []string, exits []int) {
	for {
		i := strings.Index(s, sep)
		if i < 0 {
			return segs, exits
		}
		seg := s[:i]
		s = s[i+len(sep):]
		if status {
			line, rest, ok := strings.Cut(s, "\n")
			n, err := strconv.Atoi(line)
			if !ok || err != nil {
				return segs, exits
			}
			exits = append(exits, n)
			s = rest
		}
		segs = append(segs, seg)
	}
}
