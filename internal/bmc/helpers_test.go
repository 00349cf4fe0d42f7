package bmc

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/testrig"
)

// logCapture collects every log line at every verbosity, bmclib's included, so that tests can
// prove no password is ever logged.
type logCapture struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *logCapture) logger() logr.Logger {
	return funcr.New(func(prefix, args string) {
		l.mu.Lock()
		defer l.mu.Unlock()
		l.b.WriteString(prefix + " " + args + "\n")
	}, funcr.Options{Verbosity: 10})
}

func (l *logCapture) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// noSecret fails the test when text holds any of the secrets.
func noSecret(t *testing.T, what, text string, secrets ...string) {
	t.Helper()
	for _, s := range secrets {
		if s != "" && strings.Contains(text, s) {
			t.Fatalf("%s contains a password:\n%s", what, text)
		}
	}
}

func rfConfig(rig *testrig.Redfish, logs *logCapture) Config {
	c := Config{
		Endpoint:  rig.Host,
		Port:      rig.Port,
		Username:  rig.Username,
		Password:  rig.Password,
		Protocols: []string{ProtocolRedfish},
		TLSCAPEM:  rig.CAPEM,
		Timeout:   10 * time.Second,
	}
	if logs != nil {
		c.Logger = logs.logger()
	}
	return c
}

func ipmiConfig(sim *testrig.IPMISim, logs *logCapture) Config {
	c := Config{
		Endpoint:  sim.Endpoint,
		Port:      sim.Port,
		Username:  sim.User,
		Password:  sim.Password,
		Protocols: []string{ProtocolIPMI},
		Timeout:   10 * time.Second,
	}
	if logs != nil {
		c.Logger = logs.logger()
	}
	return c
}

func mustOpen(t *testing.T, cfg Config) *Session {
	t.Helper()
	s, err := Open(context.Background(), cfg)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func mustRead(t *testing.T, s *Session) State {
	t.Helper()
	st, err := s.Read(context.Background())
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	return st
}

// waitSlotsFree waits until no session holds a slot: sessions abandoned on timeout free theirs
// in the background.
func waitSlotsFree(t *testing.T) {
	t.Helper()
	if !testrig.WaitFor(15*time.Second, func() bool { return OpenSessions() == 0 }) {
		t.Fatalf("%d session slots still held", OpenSessions())
	}
}
