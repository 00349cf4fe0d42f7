package demo

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// terraformTimeout bounds one terraform command; the whole demo stays under five minutes.
const terraformTimeout = 4 * time.Minute

// terraform runs one terraform command in the working copy and returns what it printed. An exit
// code other than 0 ends the run, quoting the log.
func (s *Session) terraform(name string, args ...string) string {
	s.t.Helper()
	out, code := s.terraformEnv(name, nil, args...)
	if code != 0 {
		s.t.Fatalf("demo: terraform %s exited %d (log %s):\n%s", args[0], code, s.logFile(name), tail(out, 60))
	}
	return out
}

// terraformEnv runs terraform with extra environment variables and returns its output and exit
// code. Output goes to a log file per command as well, without colour.
func (s *Session) terraformEnv(name string, env []string, args ...string) (string, int) {
	s.t.Helper()
	return s.run(name, env, "", args...)
}

// terraformUnlogged runs a terraform command whose output must not be kept (a plan's JSON holds
// the sensitive variables in clear): its log says so instead. An exit code other than 0 ends the
// run, without quoting the output.
func (s *Session) terraformUnlogged(name string, args ...string) string {
	s.t.Helper()
	out, code := s.run(name, nil, "(not kept: the output of terraform "+strings.Join(args, " ")+
		" holds every variable's value, the sensitive ones in clear; the demo reads it and keeps nothing of it)\n", args...)
	if code != 0 {
		s.t.Fatalf("demo: terraform %s exited %d (output not shown: it may hold secrets)", args[0], code)
	}
	return out
}

// run runs terraform; the log gets the output, or note when note is set.
func (s *Session) run(name string, env []string, note string, args ...string) (string, int) {
	s.t.Helper()
	full := []string{args[0]}
	if args[0] != "providers" { // `providers schema -json` takes no -no-color
		full = append(full, "-no-color")
	}
	switch args[0] {
	case "plan", "apply", "destroy":
		full = append(full, "-input=false")
	}
	full = append(full, args[1:]...)
	ctx, cancel := context.WithTimeout(context.Background(), terraformTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, s.o.Terraform, full...)
	cmd.Dir = s.Work
	cmd.Env = append(append([]string{}, s.env...), env...)
	out, err := cmd.CombinedOutput()
	logged := out
	if note != "" {
		logged = []byte(note)
	}
	if werr := os.WriteFile(s.logFile(name), logged, 0o600); werr != nil {
		s.t.Fatalf("demo: %v", werr)
	}
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		return string(out), exit.ExitCode()
	case err != nil:
		s.t.Fatalf("demo: running terraform %s: %v", args[0], err)
	}
	return string(out), 0
}

func (s *Session) logFile(name string) string {
	return filepath.Join(s.logs, fmt.Sprintf("%02d-%s.log", s.step, name))
}

// tail is the last n lines of text.
func tail(text string, n int) string {
	lines := 0
	for i := len(text) - 1; i >= 0; i-- {
		if text[i] == '\n' {
			lines++
			if lines > n {
				return text[i+1:]
			}
		}
	}
	return text
}
