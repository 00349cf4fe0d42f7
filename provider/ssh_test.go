package provider

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/hca"
)

// TestSSHConfig: provider defaults, per-resource overrides field by field, host:port forms, and
// refusals that say what to set.
func TestSSHConfig(t *testing.T) {
	dir := t.TempDir()
	etcKH, tmpKH := filepath.Join(dir, "etc_kh"), filepath.Join(dir, "tmp_kh")
	for _, f := range []string{etcKH, tmpKH} {
		if err := os.WriteFile(f, nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	data := &Data{SSH: SSHDefaults{User: "fabric", PrivateKey: "KEY", KnownHostsFile: etcKH}}
	for _, c := range []struct {
		host, wantHost string
		wantPort       int
	}{
		{"gpu001.mgmt.example", "gpu001.mgmt.example", 0},
		{"10.0.0.11:2222", "10.0.0.11", 2222},
		{"[fd00::11]:2222", "fd00::11", 2222},
		{"fd00::11", "fd00::11", 0},
	} {
		cfg, err := sshConfig(data, c.host)
		if err != nil || cfg.Host != c.wantHost || cfg.Port != c.wantPort || cfg.User != "fabric" || cfg.KnownHostsFile != etcKH {
			t.Errorf("%s: %v %v", c.host, cfg, err)
		}
	}
	cfg, err := sshConfig(data, "h", SSHDefaults{User: "root"}, SSHDefaults{KnownHostsFile: tmpKH})
	if err != nil || cfg.User != "root" || cfg.PrivateKeyPEM != "KEY" || cfg.KnownHostsFile != tmpKH {
		t.Errorf("overrides: %v %v", cfg, err)
	}
	if strings.Contains(cfg.String(), "KEY") {
		t.Errorf("Config.String shows the key: %s", cfg)
	}
	for host, want := range map[string]string{
		"h:0":        `port "0" is not a number from 1 to 65535`,
		"h:ssh":      `port "ssh" is not a number`,
		"[fd00::11]": `want host, host:port or [ipv6]:port`,
		"":           `ssh_host is empty`,
	} {
		if _, err := sshConfig(data, host); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", host, err, want)
		}
	}
	_, err = sshConfig(&Data{}, "gpu001", SSHDefaults{User: "root"})
	if err == nil || !strings.Contains(err.Error(), "no SSH private_key, known_hosts_file (host keys are always checked) for gpu001") {
		t.Errorf("missing settings: %v", err)
	}
	if _, err := sshConfig(nil, "gpu001"); err == nil || !strings.Contains(err.Error(), "no SSH user, private_key") {
		t.Errorf("no provider data: %v", err)
	}
	// A known_hosts file that is not there fails here, at plan, naming the path.
	missing := filepath.Join(dir, "missing")
	if _, err := sshConfig(data, "gpu001", SSHDefaults{KnownHostsFile: missing}); err == nil || !strings.Contains(err.Error(), `known_hosts_file "`+missing+`" does not exist`) {
		t.Errorf("missing known_hosts file: %v", err)
	}
	if _, err := sshConfig(data, "gpu001", SSHDefaults{KnownHostsFile: "~/no-such-known_hosts"}); err == nil || !strings.Contains(err.Error(), `do not expand ~; write pathexpand("~/no-such-known_hosts")`) {
		t.Errorf("~ in known_hosts file: %v", err)
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
