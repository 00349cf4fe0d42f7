package provider

import (
	"github.com/gpucluster/terraform-provider-gpucluster/internal/remote"
)

// sshConfig builds the remote.Config for one host from the provider's `ssh` settings and, in
// order, any per-resource overrides (remote.ConfigFor: a non-empty field of a later override
// wins; a missing setting or an unreadable known_hosts file is refused, naming what to set).
func sshConfig(data *Data, host string, override ...SSHDefaults) (remote.Config, error) {
	layers := make([]remote.Settings, 0, len(override)+1)
	if data != nil {
		layers = append(layers, remote.Settings(data.SSH))
	}
	for _, o := range override {
		layers = append(layers, remote.Settings(o))
	}
	return remote.ConfigFor(host, layers...)
}
