package remote

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestConfigFor: layers field by field, host:port forms, and refusals that say what to set.
func TestConfigFor(t *testing.T) {
	dir := t.TempDir()
	etcKH, tmpKH := filepath.Join(dir, "etc_kh"), filepath.Join(dir, "tmp_kh")
	for _, f := range []string{etcKH, tmpKH} {
		if err := os.WriteFile(f, nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	base := Settings{User: "fabric", PrivateKey: "KEY", KnownHostsFile: etcKH}
	for _, c := range []struct {
		host, wantHost string
		wantPort       int
	}{
		{"gpu001.mgmt.example", "gpu001.mgmt.example", 0},
		{"10.0.0.11:2222", "10.0.0.11", 2222},
		{"[fd00::11]:2222", "fd00::11", 2222},
		{"fd00::11", "fd00::11", 0},
	} {
		cfg, err := ConfigFor(c.host, base)
		if err != nil || cfg.Host != c.wantHost || cfg.Port != c.wantPort || cfg.User != "fabric" || cfg.KnownHostsFile != etcKH {
			t.Errorf("%s: %v %v", c.host, cfg, err)
		}
	}
	cfg, err := ConfigFor("h", base, Settings{User: "root"}, Settings{KnownHostsFile: tmpKH})
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
		if _, err := ConfigFor(host, base); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", host, err, want)
		}
	}
	_, err = ConfigFor("gpu001", Settings{}, Settings{User: "root"})
	if err == nil || !strings.Contains(err.Error(), "no SSH private_key, known_hosts_file (host keys are always checked) for gpu001") {
		t.Errorf("missing settings: %v", err)
	}
	if _, err := ConfigFor("gpu001"); err == nil || !strings.Contains(err.Error(), "no SSH user, private_key") {
		t.Errorf("no settings: %v", err)
	}
	// A known_hosts file that is not there fails here, at plan, naming the path.
	missing := filepath.Join(dir, "missing")
	if _, err := ConfigFor("gpu001", base, Settings{KnownHostsFile: missing}); err == nil || !strings.Contains(err.Error(), `known_hosts_file "`+missing+`" does not exist`) {
		t.Errorf("missing known_hosts file: %v", err)
	}
	if _, err := ConfigFor("gpu001", base, Settings{KnownHostsFile: "~/no-such-known_hosts"}); err == nil || !strings.Contains(err.Error(), `do not expand ~; write pathexpand("~/no-such-known_hosts")`) {
		t.Errorf("~ in known_hosts file: %v", err)
	}
}

// TestCheckKnownHostsFile: a directory is refused, naming the path; a readable file passes.
func TestCheckKnownHostsFile(t *testing.T) {
	dir := t.TempDir()
	ok := filepath.Join(dir, "kh")
	if err := os.WriteFile(ok, []byte("h ssh-ed25519 AAAA\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if msg := CheckKnownHostsFile(ok); msg != "" {
		t.Errorf("readable file refused: %s", msg)
	}
	if msg := CheckKnownHostsFile(dir); !strings.Contains(msg, "is a directory") {
		t.Errorf("directory: %q", msg)
	}
}

// TestCheckHostPort: a port out of range is refused with the way to write it; no port passes.
func TestCheckHostPort(t *testing.T) {
	for s, want := range map[string]string{
		"gpu001": "", "gpu001:2222": "", "fd00::11": "",
		"gpu001:70000": `port "70000" is not a number from 1 to 65535; write the host alone for port 22`,
	} {
		if got := CheckHostPort(s); (want == "") != (got == "") || !strings.Contains(got, want) {
			t.Errorf("%q: %q, want %q", s, got, want)
		}
	}
}
