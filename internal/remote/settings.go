package remote

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/inputfile"
)

// Settings are the credentials of an SSH connection as a configuration layers them: the
// provider's defaults, then a resource's overrides.
type Settings struct {
	User           string
	PrivateKey     string
	KnownHostsFile string
}

// ConfigFor builds the Config for one host from layers of settings, in order: a non-empty field
// of a later layer wins. host is what an ssh_host holds (SplitHost). Timeout is left zero (the
// default); callers bound their work with a context.
//
// It fails, naming the setting to add, when the user, the private key or the known_hosts file is
// missing, and when the known_hosts file cannot be read (CheckKnownHostsFile): host keys are
// always checked, so there is nothing to fall back on, and a plan that dials nothing must still
// find out before the apply does.
func ConfigFor(host string, layers ...Settings) (Config, error) {
	var s Settings
	for _, o := range layers {
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
	h, port, err := SplitHost(host)
	if err != nil {
		return Config{}, err
	}
	cfg := Config{Host: h, Port: port, User: s.User, PrivateKeyPEM: s.PrivateKey, KnownHostsFile: s.KnownHostsFile}
	if missing := cfg.Missing(); len(missing) > 0 {
		return Config{}, fmt.Errorf("no SSH %s for %s: set them in the provider's ssh = { ... } block "+
			"(or the resource's own ssh override)", strings.Join(missing, ", "), host)
	}
	if msg := CheckKnownHostsFile(s.KnownHostsFile); msg != "" {
		return Config{}, errors.New(msg)
	}
	return cfg, nil
}

// CheckKnownHostsFile refuses a known_hosts file that is not there or cannot be read (within
// inputfile.MaxKnownHostsFile): without it every connection fails, and it fails late, at apply,
// after the plan was approved. It returns "" for a usable file, else a sentence that says what to
// do. The check depends on the machine that runs it, not on the configuration alone.
func CheckKnownHostsFile(p string) string {
	const how = "give the path of the OpenSSH known_hosts file on the machine that runs Terraform (ssh-keyscan HOST >> FILE makes one; check the keys it records)"
	st, err := os.Stat(p)
	switch {
	case errors.Is(err, fs.ErrNotExist) && strings.HasPrefix(p, "~"):
		return fmt.Sprintf("known_hosts_file %q does not exist: Terraform and the provider do not expand ~; write pathexpand(%q)", p, p)
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Sprintf("known_hosts_file %q does not exist; %s", p, how)
	case err != nil:
		return fmt.Sprintf("known_hosts_file %q cannot be read: %v; %s", p, err, how)
	case st.IsDir():
		return fmt.Sprintf("known_hosts_file %q is a directory; %s", p, how)
	}
	if err := inputfile.Check(p, inputfile.MaxKnownHostsFile); err != nil {
		return fmt.Sprintf("known_hosts_file %q cannot be read: %v; %s", p, err, how)
	}
	return ""
}

// CheckHostPort checks the port of an ssh_host as SplitHost reads it (1-65535); "" when it is
// right or absent. The host part has its own rule (HostRE, HostPortRE).
func CheckHostPort(s string) string {
	if _, _, err := SplitHost(s); err != nil {
		return err.Error() + "; write the host alone for port 22, or host:port with the port sshd listens on, e.g. \"10.0.0.11:2222\""
	}
	return ""
}
