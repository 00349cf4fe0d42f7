package demo

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"
)

// stallLimit bounds how long one terraform command may go without progress: without a line of
// output other than Terraform's own heartbeat ("Still creating... [1m10s elapsed]"). It bounds
// progress, not the command's length, so that a loaded machine (CI runs the demo beside the
// other packages' tests) slows the demo down without failing it, while a command that hangs (a
// peer that never answers) still ends the run. Every step of the demo prints a line at least per
// resource it completes, and no single resource of the example takes minutes.
const stallLimit = 5 * time.Minute

// heartbeat matches the lines Terraform prints while a resource is still being worked on; they
// show the command is alive, not that it is getting anywhere.
var heartbeat = regexp.MustCompile(`: Still [a-z]+\.\.\. \[[0-9hms]+ elapsed\]$`)

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
	cmd := exec.Command(s.o.Terraform, full...)
	cmd.Dir = s.Work
	cmd.Env = append(append([]string{}, s.env...), env...)
	out, stalled, err := runWatched(cmd, stallLimit)
	if stalled != "" {
		s.t.Fatalf("demo: terraform %s made no progress for %s and was stopped; its last line: %q (log %s)",
			args[0], stallLimit, stalled, s.logFile(name))
	}
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

// runWatched runs cmd and returns its combined output. When cmd prints nothing but heartbeats
// for limit, it is killed and stalled is its last line ("(no output)" when it printed none).
func runWatched(cmd *exec.Cmd, limit time.Duration) (out []byte, stalled string, err error) {
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	cmd.WaitDelay = 10 * time.Second // a child that keeps the output open cannot hold Wait forever
	var (
		mu       sync.Mutex
		buf      bytes.Buffer
		last     = "(no output)"
		progress = time.Now()
	)
	read := make(chan struct{})
	go func() {
		defer close(read)
		sc := bufio.NewScanner(pr)
		sc.Buffer(make([]byte, 64*1024), 16*1024*1024)
		for sc.Scan() {
			line := sc.Text()
			mu.Lock()
			buf.WriteString(line)
			buf.WriteByte('\n')
			if t := strings.TrimSpace(line); t != "" {
				last = t
				if !heartbeat.MatchString(t) {
					progress = time.Now()
				}
			}
			mu.Unlock()
		}
		_, _ = io.Copy(io.Discard, pr) // a line past the scanner's limit: keep the pipe flowing
	}()
	if err := cmd.Start(); err != nil {
		pw.Close()
		<-read
		return nil, "", err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case err = <-done:
			pw.Close()
			<-read
			return buf.Bytes(), stalled, err
		case <-tick.C:
			mu.Lock()
			if stalled == "" && time.Since(progress) > limit {
				stalled = last
				_ = cmd.Process.Kill()
			}
			mu.Unlock()
		}
	}
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
