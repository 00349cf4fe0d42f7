package provider

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/hca"
)

// TestSSHConfig: the provider's ssh block is the first layer, a resource's overrides come after
// it (remote.ConfigFor, tested in internal/remote, decides the rest), and no provider data at
// all is no layer.
func TestSSHConfig(t *testing.T) {
	kh := filepath.Join(t.TempDir(), "kh")
	if err := os.WriteFile(kh, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	data := &Data{SSH: SSHDefaults{User: "fabric", PrivateKey: "KEY", KnownHostsFile: kh}}
	cfg, err := sshConfig(data, "h:2222", SSHDefaults{User: "root"})
	if err != nil || cfg.User != "root" || cfg.PrivateKeyPEM != "KEY" || cfg.KnownHostsFile != kh || cfg.Port != 2222 {
		t.Errorf("overrides: %v %v", cfg, err)
	}
	if _, err := sshConfig(nil, "gpu001"); err == nil || !strings.Contains(err.Error(), "no SSH user, private_key") {
		t.Errorf("no provider data: %v", err)
	}
}

// TestHCATool covers a small plan-time rule: which tool spellings pass (which BIOS values count
// as the same is bmc.SameBIOSValue's, tested in internal/bmc).
func TestHCATool(t *testing.T) {
	for tool, ok := range map[string]bool{
		"mlxconfig": true, "mstconfig": true, "/opt/mellanox/mft/bin/mlxconfig": true, "/usr/bin/mstconfig": true,
		"flint": false, "bin/mlxconfig": false, "/usr/bin/mlxconfig; reboot": false, "/usr/bin/ethtool": false, "": false,
	} {
		if hca.ToolRE.MatchString(tool) != ok {
			t.Errorf("tool %q: accepted %t", tool, !ok)
		}
	}
}
