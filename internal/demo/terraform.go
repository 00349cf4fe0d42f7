package demo

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

// terraformTimeout bounds one terraform command; the whole demo stays under five minutes.
const terraformTimeout = 4 * time.Minute

// terraform runs one terraform command in the working copy and returns what it printed. An exit
// code other than want ends the run, quoting the log.
func (s *Session) terraform(name string, want int, args ...string) string {
	s.t.Helper()
	out, code := s.terraformEnv(name, nil, args...)
	if code != want {
		s.t.Fatalf("demo: terraform %s exited %d, want %d (log %s):\n%s", args[0], code, want, s.logFile(name), tail(out, 60))
	}
	return out
}

// terraformEnv runs terraform with extra environment variables and returns its output and exit
// code. Output goes to a log file per command as well, without colour.
func (s *Session) terraformEnv(name string, env []string, args ...string) (string, int) {
	s.t.Helper()
	full := append([]string{args[0]}, "-no-color")
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
	if werr := os.WriteFile(s.logFile(name), out, 0o600); werr != nil {
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
