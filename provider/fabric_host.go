package provider

// How the fabric data sources (gpucluster_discovered_fabric, gpucluster_port_counters) reach a
// host with infiniband-diags over SSH and run a diagnostics command there.

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/opensm"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/remote"
)

// fabricHostModel is how the fabric data sources reach a host with infiniband-diags: the SM host,
// or any host with an HCA on the fabric.
type fabricHostModel struct {
	Host           types.String `tfsdk:"host"`
	Port           types.Int64  `tfsdk:"port"`
	SSHUser        types.String `tfsdk:"ssh_user"`
	SSHPrivateKey  types.String `tfsdk:"ssh_private_key"`
	KnownHostsFile types.String `tfsdk:"known_hosts_file"`
}

// fabricDiagTimeout bounds one data source's work on the host (connect, run, read).
const fabricDiagTimeout = 5 * time.Minute

// fabricHostAttributes are the connection attributes of the fabric data sources.
func fabricHostAttributes(required bool) map[string]schema.Attribute {
	hostDesc := "Host to run the InfiniBand diagnostics on over SSH: the SM host, or any host with an HCA on the fabric " +
		"and infiniband-diags installed; `host` or `host:port`."
	var hostValidators []validator.String
	if !required {
		hostDesc += " Exactly one of `host` and `topology_file`."
		hostValidators = []validator.String{stringvalidator.ExactlyOneOf(path.MatchRoot("host"), path.MatchRoot("topology_file"))}
	}
	return map[string]schema.Attribute{
		"host": schema.StringAttribute{Optional: !required, Required: required, MarkdownDescription: hostDesc, Validators: hostValidators},
		"port": schema.Int64Attribute{Optional: true, MarkdownDescription: "SSH port when `host` has none (default 22)."},
		"ssh_user": schema.StringAttribute{
			Optional: true, MarkdownDescription: "SSH user; default: the provider's `ssh.user`.",
		},
		"ssh_private_key": schema.StringAttribute{
			Optional: true, Sensitive: true, MarkdownDescription: "PEM private key; default: the provider's `ssh.private_key`.",
		},
		"known_hosts_file": schema.StringAttribute{
			Optional: true, MarkdownDescription: "known_hosts file with the host's key; required unless the provider's `ssh.known_hosts_file` is set. " +
				"Host keys are always checked.",
			Validators: []validator.String{knownHostsOverrideValidator()},
		},
	}
}

// dialFabricHost connects to the data source's host with the provider's ssh defaults overridden
// by the data source's own settings.
func dialFabricHost(ctx context.Context, data *Data, m fabricHostModel) (*remote.Client, error) {
	cfg, err := sshConfig(data, m.Host.ValueString(), SSHDefaults{
		User: m.SSHUser.ValueString(), PrivateKey: m.SSHPrivateKey.ValueString(), KnownHostsFile: m.KnownHostsFile.ValueString(),
	})
	if err != nil {
		return nil, err
	}
	if cfg.Port == 0 {
		cfg.Port = int(m.Port.ValueInt64())
	}
	cfg.Timeout = 30 * time.Second
	return remote.Dial(ctx, cfg)
}

// runDiag runs one diagnostics command on the host and returns its stdout; a non-zero exit is an
// error that quotes stderr.
func runDiag(ctx context.Context, c *remote.Client, cmd string) (string, error) {
	stdout, stderr, exit, err := c.Run(ctx, cmd)
	if err != nil {
		return "", err
	}
	if exit != 0 {
		return "", fmt.Errorf("%s on %s exited with status %d: %s", cmd, c.Addr(), exit, strings.TrimSpace(opensm.Truncate(stderr, 2000)))
	}
	return stdout, nil
}
