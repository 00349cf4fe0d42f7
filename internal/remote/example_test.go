package remote_test

import (
	"fmt"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/remote"
)

// Commands reach a host as one shell line: every word is quoted only where a shell would read
// it specially, so the line stays readable and means what it says (a NAME=VALUE argument stays
// bare; a command word that looks like an assignment, a leading '=' that zsh would expand, and
// anything with spaces, quotes or '$' are single-quoted).
func ExampleCommand() {
	fmt.Println(remote.Command("mlxconfig", "-d", "/dev/mst/mt4129_pciconf0", "-y", "set", "SRIOV_EN=1"))
	fmt.Println(remote.Command("cat", "--", "/etc/opensm/partitions conf", "it's", "$(id)", "=x"))
	fmt.Println(remote.Command("A=1", "true"))
	// Output:
	// mlxconfig -d /dev/mst/mt4129_pciconf0 -y set SRIOV_EN=1
	// cat -- '/etc/opensm/partitions conf' 'it'\''s' '$(id)' '=x'
	// 'A=1' true
}

// A Config that lacks what Dial needs names it before any connection is tried.
func ExampleConfig_Missing() {
	cfg := remote.Config{Host: "sm01.example", User: "root"}
	fmt.Println(cfg.Missing())
	fmt.Println(cfg) // the secrets are redacted when a Config is printed
	// Output:
	// [private_key known_hosts_file (host keys are always checked)]
	// ssh://root@sm01.example:22 (known_hosts "", private key (none), passphrase (none), timeout 30s)
}
