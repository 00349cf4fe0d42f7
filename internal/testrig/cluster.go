package testrig

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Cluster is a simulated GPU cluster on loopback: what `make demo` applies an example to, and
// what its test applies the same example to. Every peer is a real program, as in the other rigs:
//
//   - the SM host: an sshd whose user runs OpenSM's control script and the infiniband-diags,
//     attached to ibsim (StartFabric, once the declared fabric is known);
//   - one BMC per node: ipmi_sim for the first IPMINodes nodes, the Redfish rig for the others;
//   - the nodes' in-band side: one sshd per node, each on a loopback address of its own
//     (127.0.1.N), as real nodes each have their own SSH endpoint, with the mlxconfig double
//     standing in for NVIDIA's tool (each node's wrapper keeps its own card state). One endpoint
//     per node matters: the provider serialises pushes per host and port, so nodes sharing one
//     sshd would queue every HCA of the cluster behind one lock.
//
// Host keys are pinned in one known_hosts file. Credentials are generated per cluster and never
// printed: each BMC leaves the "factory" with an administrator password of its own, and the site's
// automation account (FleetUser, one password for the fleet: the provider's `bmc` defaults) is
// provisioned on every BMC, as a site does before handing BMCs to automation. The SSH key and
// the fleet password are written only to files of mode 0600 under Dir.
type Cluster struct {
	Dir        string
	SM         *SSHD
	KeyFile    string // the SSH client's private key (accepted by every sshd of the cluster)
	KnownHosts string // every sshd's host key: the SM host's and each node's
	ConfDir    string // OpenSM's configuration directory on the SM host
	LogFile    string // OpenSM's log on the SM host
	Nodes      []ClusterNode

	// Control (`Control start|stop|reload|status`) runs OpenSM on the SM host as a service
	// would, and `SimRun prog args` runs an infiniband-diag attached to the simulated fabric.
	// Both exist from the start, and fail saying so until StartFabric has loaded the fabric.
	Control string
	SimRun  string

	// FleetUser is the automation account on every BMC (Administrator); FleetPassword gives
	// its password, for the provider's `bmc` block only.
	FleetUser     string
	fleetPassword string

	Sim    *IBSim         // nil until StartFabric
	OpenSM *OpenSMService // nil until StartFabric
	SMAt   string         // the simulated port OpenSM and the diagnostics attach at
	double string         // directory of the built mlxconfig double
	ipmi   map[string]*IPMISim
	rf     map[string]*Redfish
}

// ClusterNode is one simulated node: its BMC and the mlxconfig wrapper its HCAs use.
type ClusterNode struct {
	Name     string
	Protocol string // "ipmi" or "redfish"
	BMCHost  string
	BMCPort  int
	BMCUser  string // the BMC's own administrator (its password is Password())
	CAPEM    string // the Redfish rig's CA; "" for IPMI
	SSH      *SSHD  // the node's own sshd (its in-band side: mlxconfig, flint)
	Tool     string // absolute path of this node's mlxconfig wrapper on the node's sshd
	State    string // the card state file of the mlxconfig double

	password string
}

// ClusterOptions shape a Cluster.
type ClusterOptions struct {
	Dir       string   // where everything lives; created if missing
	Nodes     []string // node names
	IPMINodes int      // how many of the first nodes get an ipmi_sim BMC; the rest get Redfish
	HCAs      int      // compute HCAs per node (mlx5_0 ... mlx5_{HCAs-1}); default 8
	RepoRoot  string   // the repository, to build the mlxconfig double from
}

// StartCluster starts the SM host, the BMCs and the node sshd. The fabric itself (ibsim and
// OpenSM) waits for StartFabric, which needs the declared topology.
func StartCluster(t TB, o ClusterOptions) *Cluster {
	t.Helper()
	if o.HCAs == 0 {
		o.HCAs = 8
	}
	if err := os.MkdirAll(o.Dir, 0o700); err != nil {
		t.Fatalf("cluster: %v", err)
	}
	c := &Cluster{Dir: o.Dir, ipmi: map[string]*IPMISim{}, rf: map[string]*Redfish{}, FleetUser: "gpucluster", fleetPassword: bmcSecret(t)}
	c.SM = StartSSHD(t, SSHDOptions{})
	c.KeyFile = filepath.Join(o.Dir, "id_ed25519")
	writeFile(t, c.KeyFile, c.SM.PrivateKeyPEM, 0o600)
	c.KnownHosts = c.SM.KnownHostsFile
	c.ConfDir = filepath.Join(c.SM.Dir, "etc-opensm")
	c.LogFile = filepath.Join(c.SM.Dir, "opensm.log")
	if err := os.MkdirAll(c.ConfDir, 0o755); err != nil {
		t.Fatalf("cluster: %v", err)
	}
	c.Control, c.SimRun = filepath.Join(o.Dir, "opensm-control"), filepath.Join(o.Dir, "simrun")
	for _, p := range []string{c.Control, c.SimRun} {
		writeFile(t, p, "#!/bin/sh\necho 'the simulated fabric is not loaded yet' >&2\nexit 1\n", 0o755)
	}
	c.double = buildDouble(t, o.RepoRoot, filepath.Join(o.Dir, "mlxconfig-double"))
	for i, name := range o.Nodes {
		n := ClusterNode{Name: name}
		if i < o.IPMINodes {
			s := StartIPMISimWith(t, IPMIUser{Name: c.FleetUser, Password: c.fleetPassword})
			c.ipmi[name] = s
			n.Protocol, n.BMCHost, n.BMCPort, n.BMCUser, n.password = "ipmi", s.Endpoint, s.Port, s.User, s.Password
		} else {
			r := StartRedfish(t, RedfishOptions{Username: "admin", Password: bmcSecret(t),
				Accounts: []RedfishUser{{UserName: c.FleetUser, Password: c.fleetPassword, RoleID: "Administrator"}}})
			c.rf[name] = r
			n.Protocol, n.BMCHost, n.BMCPort, n.BMCUser, n.password, n.CAPEM = "redfish", r.Host, r.Port, r.Username, r.Password, r.CAPEM
		}
		n.SSH = StartSSHD(t, SSHDOptions{Host: nodeHost(i), Share: c.SM})
		n.Tool, n.State = c.nodeTools(t, n.SSH, name, o.HCAs)
		c.Nodes = append(c.Nodes, n)
	}
	return c
}

// nodeHost is node i's loopback address: 127.0.1.1 for the first node, and so on (all of
// 127.0.0.0/8 is local on Linux, so no interface needs configuring).
func nodeHost(i int) string {
	return fmt.Sprintf("127.0.%d.%d", 1+i/250, 1+i%250)
}

// bmcSecret is a BMC password nobody types: 16 hex digits (64 bits) from crypto/rand, within
// IPMI's 16-byte passwords and Redfish BMCs' usual 8-20 characters.
func bmcSecret(t TB) string {
	b := make([]byte, 8)
	if _, err := rand.Read(b); err != nil {
		t.Fatalf("cluster: %v", err)
	}
	return hex.EncodeToString(b)
}

// buildDouble builds the mlxconfig double once into dir, with the tool names it answers to.
func buildDouble(t TB, repo, dir string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatalf("cluster: %v", err)
	}
	goBin := "go" // from PATH, as `make demo` runs it
	cmd := exec.Command(goBin, "build", "-o", filepath.Join(dir, "mlxconfig"), "./internal/hca/testdata/mlxconfig-double")
	cmd.Dir = repo
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("cluster: building the mlxconfig double: %v\n%s", err, out)
	}
	for _, n := range []string{"flint", "mlxfwreset", "mstconfig", "mstflint", "mstfwreset"} {
		_ = os.Remove(filepath.Join(dir, n))
		if err := os.Symlink("mlxconfig", filepath.Join(dir, n)); err != nil {
			t.Fatalf("cluster: %v", err)
		}
	}
	return dir
}

// nodeTools writes a node's mlxconfig wrappers and its cards as they leave the factory for an
// Ethernet fabric (LINK_TYPE_P1 = ETH), so that the example's firmware_settings have something
// to change.
func (c *Cluster) nodeTools(t TB, host *SSHD, node string, hcas int) (tool, state string) {
	t.Helper()
	dir := filepath.Join(host.Dir, "nodes", node)
	bin := filepath.Join(dir, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatalf("cluster: %v", err)
	}
	state = filepath.Join(dir, "nvconfig.json")
	for _, n := range []string{"mlxconfig", "flint", "mlxfwreset", "mstconfig", "mstflint", "mstfwreset"} {
		script := fmt.Sprintf("#!/bin/sh\nMLXCONFIG_DOUBLE_STATE=%s MLXCONFIG_DOUBLE_LOG=%s exec %s \"$@\"\n",
			shellQuote(state), shellQuote(filepath.Join(dir, "tool-calls.log")), shellQuote(filepath.Join(c.double, n)))
		writeFile(t, filepath.Join(bin, n), script, 0o755)
	}
	var devices []any
	for i := 0; i < hcas; i++ {
		devices = append(devices, map[string]any{
			"device": fmt.Sprintf("/dev/mst/mt4129_pciconf%d", i), "aliases": []string{fmt.Sprintf("mlx5_%d", i)},
			"device_type": "ConnectX7", "name": "MCX75310AAS-NEA_Ax",
			"description": "NVIDIA ConnectX-7 HHHL Adapter card; 400GbE / NDR IB (default mode); Single-port OSFP; PCIe 5.0 x16; Crypto Disabled; Secure Boot Enabled;",
			"params": []any{
				map[string]any{"name": "LINK_TYPE_P1", "next": "ETH(2)"},
				map[string]any{"name": "SRIOV_EN", "next": "False(0)"},
				map[string]any{"name": "NUM_OF_VFS", "next": "0", "max": 127},
				map[string]any{"name": "ADVANCED_PCI_SETTINGS", "next": "False(0)"},
			},
			"firmware": map[string]any{
				"image_type": "FS4", "fw_version": "28.42.1000", "fw_release_date": "8.8.2024", "product_version": "28.42.1000",
				"rom_info":    []string{"type=UEFI version=14.35.15 cpu=AMD64,AARCH64"},
				"description": "UID                GuidsNumber",
				"base_guid":   fmt.Sprintf("e09d7303001264%02x        16", i), "base_mac": fmt.Sprintf("e09d731264%02x            16", i),
				"image_vsd": "N/A", "device_vsd": "N/A", "psid": "MT_0000001244", "security_attributes": "secure-fw",
			},
		})
	}
	b, err := json.MarshalIndent(map[string]any{"devices": devices}, "", "  ")
	if err != nil {
		t.Fatalf("cluster: %v", err)
	}
	writeFile(t, state, string(b), 0o644)
	return filepath.Join(bin, "mlxconfig"), state
}

// StartFabric loads the declared fabric (ibnetdiscover format, as gpucluster_opensm_files gives
// it) into ibsim and writes OpenSM's control script on the SM host. OpenSM itself is started by
// the first push, as on a host where the provider installs the configuration.
func (c *Cluster) StartFabric(t TB, expectedTopology, smAt string) {
	t.Helper()
	c.Sim = StartIBSim(t, expectedTopology)
	c.SMAt = smAt
	c.OpenSM = c.Sim.OpenSMService(t, smAt, filepath.Join(c.ConfDir, "opensm.conf"), c.Sim.Dir)
	var env strings.Builder
	env.WriteString("#!/bin/sh\n")
	for _, kv := range c.Sim.Env(smAt) {
		k, v, _ := strings.Cut(kv, "=")
		fmt.Fprintf(&env, "export %s=%s\n", k, shellQuote(v))
	}
	env.WriteString("exec \"$@\"\n")
	// Written next to and renamed over the stand-ins, so a command never runs a half-written one.
	writeFile(t, c.SimRun+".new", env.String(), 0o755)
	writeFile(t, c.Control+".new", "#!/bin/sh\nexec "+shellQuote(c.OpenSM.Script)+" \"$@\"\n", 0o755)
	for _, p := range []string{c.SimRun, c.Control} {
		if err := os.Rename(p+".new", p); err != nil {
			t.Fatalf("cluster: %v", err)
		}
	}
}

// IPMI and Redfish return a node's BMC rig (nil when the node has the other kind).
func (c *Cluster) IPMI(node string) *IPMISim    { return c.ipmi[node] }
func (c *Cluster) Redfish(node string) *Redfish { return c.rf[node] }

// Password is the node BMC's own administrator password (unique to this BMC), for the operator's
// checks of the BMC (ipmitool, curl); Terraform never gets it.
func (n ClusterNode) Password() string { return n.password }

// FleetPassword is the automation account's password on every BMC: the provider's `bmc`
// default, for the secrets variables file only.
func (c *Cluster) FleetPassword() string { return c.fleetPassword }

// Secrets are every credential the cluster generated (the fleet password, each BMC's own
// password, the SSH client key), for tests that prove none of them leaks.
func (c *Cluster) Secrets() []string {
	out := []string{c.fleetPassword}
	for _, n := range c.Nodes {
		out = append(out, n.password)
	}
	return append(out, c.SM.PrivateKeyPEM)
}

// CredentialStores are the files and directories that hold credentials by design: the SSH key
// file and each IPMI BMC's own directory (its lan.conf is its account table, as a BMC's NVRAM is).
func (c *Cluster) CredentialStores() []string {
	out := []string{c.KeyFile}
	for _, s := range c.ipmi {
		out = append(out, s.Dir)
	}
	return out
}
