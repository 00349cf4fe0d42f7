package remote

import (
	"context"
	"errors"
	"testing"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/testrig"
)

func TestPoolReusesLiveConnectionsAndRechecksTheHostKeyOnRedial(t *testing.T) {
	testrig.RequirePeers(t)
	a := testrig.StartSSHD(t, testrig.SSHDOptions{})
	b := testrig.StartSSHD(t, testrig.SSHDOptions{Host: "127.0.0.2", Share: a})
	var p Pool
	defer p.Close()
	ctx := context.Background()

	c1, err := p.Get(ctx, configFor(a))
	if err != nil {
		t.Fatal(err)
	}
	c2, err := p.Get(ctx, configFor(a))
	if err != nil || c2 != c1 {
		t.Fatalf("second Get for the same host: %p vs %p, %v; want the same connection", c2, c1, err)
	}
	cb, err := p.Get(ctx, configFor(b))
	if err != nil || cb == c1 {
		t.Fatalf("Get for another host: %v; want its own connection", err)
	}
	if got := runT(t, cb, "echo b"); got != "b\n" {
		t.Fatalf("%q", got)
	}

	// The server goes away and comes back with another key: the dead connection is not handed
	// out, and the redial is refused like any other connection to a changed host.
	a.RestartWithNewHostKey(t)
	_, err = p.Get(ctx, configFor(a))
	var hke *HostKeyError
	if !errors.As(err, &hke) || !hke.Changed {
		t.Fatalf("Get after the host restarted with another key: %v; want a changed-key HostKeyError", err)
	}
	// Host b's connection is untouched.
	if c, err := p.Get(ctx, configFor(b)); err != nil || c != cb {
		t.Fatalf("Get for host b after host a failed: %v", err)
	}

	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := cb.Run(ctx, "true"); err == nil {
		t.Fatalf("a pooled connection still works after Pool.Close")
	}
}
