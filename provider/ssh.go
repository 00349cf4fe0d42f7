package provider

import (
	"errors"
	"fmt"
	"strings"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/remote"
)

// sshConfig builds the remote.Config for one host from the provider's `ssh` settings and, in
// order, any per-resource overrides: a non-empty field of a later override wins. host is what a
// resource's ssh_host holds: a name or address, optionally with a port as "host:port" or
// "[v6addr]:port" (a bare IPv6 address has no port). Timeout is left zero (the remote default);
// callers bound their work with a context.
//
// It fails, naming the attribute to set, when the user, the private key or the known_hosts file
// is missing: host keys are always checked, so there is nothing to fall back on.
func sshConfig(data *Data, host string, override ...SSHDefaults) (remote.Config, error) {
	var s SSHDefaults
	if data != nil {
		s = data.SSH
	}
	for _, o := range override {
		if o.User != "" {
			s.User = o.User
		}
		if o.PrivateKey != "" {
			s.PrivateKey = o.PrivateKey
		}
		if o.KnownHostsFile != "" {
			s.KnownHostsFile = o.KnownHostsFile
		}
	}
	h, port, err := remote.SplitHost(host)
	if err != nil {
		return remote.Config{}, err
	}
	cfg := remote.Config{Host: h, Port: port, User: s.User, PrivateKeyPEM: s.PrivateKey, KnownHostsFile: s.KnownHostsFile}
	if missing := cfg.Missing(); len(missing) > 0 {
		return remote.Config{}, fmt.Errorf("no SSH %s for %s: set them in the provider's ssh = { ... } block "+
			"(or the resource's own ssh override)", strings.Join(missing, ", "), host)
	}
	if msg := checkKnownHostsFile(s.KnownHostsFile); msg != "" {
		return remote.Config{}, errors.New(msg)
	}
	return cfg, nil
}
