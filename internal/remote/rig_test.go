package remote

import (
	"context"
	"testing"
	"time"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/testrig"
)

// configFor is the Config that reaches a test sshd.
func configFor(s *testrig.SSHD) Config {
	return Config{
		Host:           s.Host,
		Port:           s.Port,
		User:           s.User,
		PrivateKeyPEM:  s.PrivateKeyPEM,
		KnownHostsFile: s.KnownHostsFile,
		Timeout:        10 * time.Second,
	}
}

// dialT connects to a test sshd and closes the connection when the test ends.
func dialT(t *testing.T, s *testrig.SSHD) *Client {
	t.Helper()
	c, err := Dial(context.Background(), configFor(s))
	if err != nil {
		t.Fatalf("Dial %s: %v\nsshd output:\n%s", s, err, s.Proc.Output())
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// runT runs a command that must succeed.
func runT(t *testing.T, c *Client, cmd string) string {
	t.Helper()
	out, errOut, exit, err := c.Run(context.Background(), cmd)
	if err != nil || exit != 0 {
		t.Fatalf("%s: exit %d, err %v, stderr %q", cmd, exit, err, errOut)
	}
	return out
}
