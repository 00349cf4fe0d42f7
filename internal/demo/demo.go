package demo

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/testrig"
)

// Options say what to apply and where.
type Options struct {
	Repo        string // the repository: the example and the mlxconfig double are built from it
	Example     string // the example to apply, relative to Repo
	Dir         string // work directory: the peers, the example's copy, its state, the logs
	ProviderDir string // directory holding the built terraform-provider-gpucluster
	Terraform   string // the terraform binary
	Out         io.Writer
}

// DefaultExample is the example `make demo` applies. Its generator names the nodes Nodes.
const DefaultExample = "examples/clusters/simulated"

// Nodes are the example's nodes; the first IPMINodes have an IPMI BMC, the others Redfish.
var Nodes = []string{"gpu001", "gpu002", "gpu003", "gpu004", "gpu005", "gpu006", "gpu007", "gpu008"}

// IPMINodes is how many of Nodes get ipmi_sim; the rest get the Redfish rig.
const IPMINodes = 4

// smAt is the simulated port OpenSM attaches at: the SM host's HCA.
const smAt = "gpu001 mlx5_0"

// Session is a simulated cluster with the example's working copy, ready for terraform.
type Session struct {
	t       testrig.TB
	o       Options
	Cluster *testrig.Cluster
	Work    string   // the example's working copy: run terraform here
	CLIConf string   // TF_CLI_CONFIG_FILE with the dev_overrides of the built provider
	env     []string // terraform's environment
	logs    string
	step    int
	facts   facts
}

// facts are what the first plan tells about the declared fabric.
type facts struct {
	topology string            // expected_topology of gpucluster_opensm_files
	guids    map[string]string // HCA name -> port GUID; switch name -> node GUID
	uplink   cableEnd          // a leaf-spine link, for the unplugged-cable fault
	spine    cableEnd
	day2     day2Cable    // another leaf-spine link, the one that goes bad on day 2
	links    int          // the design's links (cables), every one judged by first light
	hcas     int          // the design's HCAs, each one's firmware read
	swap     [2]nodeCable // two node cables on one leaf, the ones first light's wave exchanges
}

// day2Cable is the cable of the day-2 step: its label and both ends.
type day2Cable struct {
	label string
	a, b  cableEnd
}

type cableEnd struct {
	Device string `json:"device"`
	Port   int    `json:"port"`
}

// Up starts the simulated cluster, writes the example's working copy with the variables that
// point at it, plans once to learn the declared fabric and loads it into ibsim. The peers stop
// when t's cleanups run.
func Up(t testrig.TB, o Options) *Session {
	t.Helper()
	if o.Out == nil {
		o.Out = io.Discard
	}
	s := &Session{t: t, o: o, Work: filepath.Join(o.Dir, "work"), logs: filepath.Join(o.Dir, "logs")}
	for _, d := range []string{s.Work, s.logs} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatalf("demo: %v", err)
		}
	}
	s.say("Starting the simulated cluster in %s", o.Dir)
	began := time.Now()
	s.Cluster = testrig.StartCluster(t, testrig.ClusterOptions{
		Dir: filepath.Join(o.Dir, "peers"), Nodes: Nodes, IPMINodes: IPMINodes, RepoRoot: o.Repo,
	})
	c := s.Cluster
	s.detail("SM host      sshd %s (OpenSM's files in %s)", c.SM.Addr(), c.ConfDir)
	for _, n := range c.Nodes {
		s.detail("%s       sshd %s (mlxconfig double), BMC %-7s %s:%d", n.Name, n.SSH.Addr(), n.Protocol, n.BMCHost, n.BMCPort)
	}
	s.writeWorkDir()
	s.say("Planning the declared fabric alone, for the simulator to load it")
	s.terraform("plan-fabric", "plan", "-target=data.gpucluster_opensm_files.demo", "-out=fabric.tfplan")
	s.readFacts()
	c.StartFabric(t, s.facts.topology, smAt)
	s.detail("ibsim        %s loaded, OpenSM will attach at %q", filepath.Base(c.Sim.NetFile), smAt)
	s.detail("ready in %s", time.Since(began).Round(100*time.Millisecond))
	return s
}

// writeWorkDir copies the example and writes its variables and the CLI configuration.
func (s *Session) writeWorkDir() {
	t, c := s.t, s.Cluster
	t.Helper()
	src, err := os.ReadFile(filepath.Join(s.o.Repo, s.o.Example, "main.tf"))
	if err != nil {
		t.Fatalf("demo: reading the example: %v", err)
	}
	s.write("main.tf", string(src), 0o644)
	nodes := map[string]any{}
	for _, n := range c.Nodes {
		var ca any
		if n.CAPEM != "" {
			ca = n.CAPEM
		}
		nodes[n.Name] = map[string]any{
			"bmc_protocol": n.Protocol, "bmc_endpoint": n.BMCHost, "bmc_port": n.BMCPort,
			"tls_ca_pem": ca, "ssh_host": n.SSH.Addr(), "mlxconfig": n.Tool,
		}
	}
	vars := map[string]any{"sim": map[string]any{
		"ssh_user": c.SM.User, "ssh_private_key_file": c.KeyFile, "known_hosts_file": c.KnownHosts, "simulated_fabric": true,
		"bmc_username": c.FleetUser,
		"sm": map[string]any{
			"host": c.SM.Host, "port": c.SM.Port, "config_dir": c.ConfDir, "log_file": c.LogFile,
			"control": c.Control, "diag": c.SimRun, "counters_file": filepath.Join(c.SM.Dir, "port-counters.json"),
		},
		"nodes": nodes,
	}}
	s.writeJSON("terraform.tfvars.json", vars, 0o644)
	// The one credential Terraform gets: the fleet account's, for the provider's bmc block. Each
	// BMC's own administrator password stays with the operator's checks (peers.go).
	s.writeJSON(secretsFile, map[string]any{"bmc_password": c.FleetPassword()}, 0o600)
	s.CLIConf = filepath.Join(s.o.Dir, "dev.tfrc")
	conf := fmt.Sprintf("provider_installation {\n  dev_overrides {\n    \"gpucluster/gpucluster\" = %q\n  }\n  direct {}\n}\n", s.o.ProviderDir)
	if err := os.WriteFile(s.CLIConf, []byte(conf), 0o644); err != nil {
		t.Fatalf("demo: %v", err)
	}
	s.env = append(os.Environ(), "TF_CLI_CONFIG_FILE="+s.CLIConf, "TF_IN_AUTOMATION=1", "CHECKPOINT_DISABLE=1")
}

func (s *Session) write(name, body string, mode os.FileMode) {
	s.t.Helper()
	if err := os.WriteFile(filepath.Join(s.Work, name), []byte(body), mode); err != nil {
		s.t.Fatalf("demo: %v", err)
	}
}

func (s *Session) writeJSON(name string, v any, mode os.FileMode) {
	s.t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		s.t.Fatalf("demo: %v", err)
	}
	s.write(name, string(b)+"\n", mode)
}

// secretsFile holds the credentials Terraform gets, mode 0600 in the working copy.
const secretsFile = "secrets.auto.tfvars.json"

// readFacts reads what the demo needs of the declared fabric from the first plan: the data
// sources' values are in its prior state. A plan's JSON (and the plan file itself) holds every
// variable's value, the sensitive ones in clear: the JSON is read here and not logged, and the
// plan file is removed once read.
func (s *Session) readFacts() {
	t := s.t
	t.Helper()
	out := s.terraformUnlogged("show-fabric", "show", "-json", "fabric.tfplan")
	if err := os.Remove(filepath.Join(s.Work, "fabric.tfplan")); err != nil {
		t.Fatalf("demo: %v", err)
	}
	var plan struct {
		PriorState struct {
			Values struct {
				RootModule struct {
					Resources []struct {
						Address string          `json:"address"`
						Values  json.RawMessage `json:"values"`
					} `json:"resources"`
				} `json:"root_module"`
			} `json:"values"`
		} `json:"prior_state"`
	}
	if err := json.Unmarshal([]byte(out), &plan); err != nil {
		t.Fatalf("demo: reading the plan: %v", err)
	}
	for _, r := range plan.PriorState.Values.RootModule.Resources {
		switch r.Address {
		case "data.gpucluster_opensm_files.demo":
			var v struct {
				ExpectedTopology string `json:"expected_topology"`
			}
			if err := json.Unmarshal(r.Values, &v); err != nil {
				t.Fatalf("demo: %v", err)
			}
			s.facts.topology = v.ExpectedTopology
		case "data.gpucluster_topology.demo":
			var v struct {
				HCAs map[string]struct {
					PortGUID string `json:"port_guid"`
				} `json:"hcas"`
				Cables map[string]struct {
					A cableEnd `json:"a"`
					B cableEnd `json:"b"`
				} `json:"cables"`
				Switches map[string]struct {
					Role string `json:"role"`
					GUID string `json:"guid"`
				} `json:"switches"`
			}
			if err := json.Unmarshal(r.Values, &v); err != nil {
				t.Fatalf("demo: %v", err)
			}
			s.facts.guids = map[string]string{}
			for k, h := range v.HCAs {
				s.facts.guids[k] = h.PortGUID
			}
			keys := make([]string, 0, len(v.Cables))
			for k := range v.Cables {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for name, sw := range v.Switches {
				s.facts.guids[name] = sw.GUID
			}
			var uplinks []day2Cable
			for _, k := range keys {
				c := v.Cables[k]
				if v.Switches[c.A.Device].Role == "leaf" && v.Switches[c.B.Device].Role == "spine" {
					s.facts.uplink, s.facts.spine = c.A, c.B
					uplinks = append(uplinks, day2Cable{label: fmt.Sprintf("%s:%d <-> %s:%d", c.A.Device, c.A.Port, c.B.Device, c.B.Port), a: c.A, b: c.B})
				}
			}
			s.facts.links = len(v.Cables)
			s.facts.hcas = len(v.HCAs)
			s.pickSwap(v.Cables, func(d string) bool { return v.Switches[d].Role == "leaf" })
			// Day 2's cable: the leaf01:40 where the design has it, else the first uplink;
			// never the one the faults unplug.
			for _, u := range uplinks {
				if s.facts.day2.label == "" || u.a == (cableEnd{"leaf01", 40}) {
					s.facts.day2 = u
				}
			}
		}
	}
	if s.facts.topology == "" || s.facts.swap[1].leaf.Device == "" || len(s.facts.guids) == 0 || s.facts.uplink.Device == "" || s.facts.day2.a == s.facts.uplink {
		t.Fatalf("demo: the first plan of %s did not give the expected topology, the HCAs and a leaf-spine cable (see %s)", s.o.Example, s.logs)
	}
}

// pickSwap picks the two node cables first light's wave exchanges: the first and the third (by
// leaf port) of the last node's on one leaf, so that neither is the SM host's port (gpu001) nor
// one whose P_Keys a later step reads (gpu005), and the two are in different cages (a twin-port
// cable's two splits share one plug at the leaf).
func (s *Session) pickSwap(cables map[string]struct {
	A cableEnd `json:"a"`
	B cableEnd `json:"b"`
}, isLeaf func(string) bool) {
	last := Nodes[len(Nodes)-1]
	byLeaf := map[string][]nodeCable{}
	for _, c := range cables {
		for _, nc := range []nodeCable{{c.A, c.B}, {c.B, c.A}} {
			if isLeaf(nc.leaf.Device) && strings.HasPrefix(nc.hca.Device, last+"/") {
				byLeaf[nc.leaf.Device] = append(byLeaf[nc.leaf.Device], nc)
			}
		}
	}
	leaves := make([]string, 0, len(byLeaf))
	for l := range byLeaf {
		leaves = append(leaves, l)
	}
	sort.Strings(leaves)
	for _, l := range leaves {
		if ncs := byLeaf[l]; len(ncs) >= 3 {
			sort.Slice(ncs, func(i, j int) bool { return ncs[i].leaf.Port < ncs[j].leaf.Port })
			s.facts.swap = [2]nodeCable{ncs[0], ncs[2]}
			return
		}
	}
}

// say prints a step header; detail prints a line under it.
func (s *Session) say(format string, args ...any) {
	s.step++
	fmt.Fprintf(s.o.Out, "\n==> %d. %s\n", s.step, fmt.Sprintf(format, args...))
}

func (s *Session) detail(format string, args ...any) {
	fmt.Fprintf(s.o.Out, "    %s\n", fmt.Sprintf(format, args...))
}

// expect ends the run when cond does not hold, naming what was expected.
func (s *Session) expect(cond bool, format string, args ...any) {
	s.t.Helper()
	what := fmt.Sprintf(format, args...)
	if !cond {
		s.t.Fatalf("demo step %d: expected %s (logs in %s)", s.step, what, s.logs)
	}
	s.detail("ok: %s", what)
}

// lines returns the lines of text that contain any of the needles, trimmed, at most limit.
func lines(text string, limit int, needles ...string) []string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		for _, n := range needles {
			if strings.Contains(l, n) {
				out = append(out, strings.TrimSpace(l))
				break
			}
		}
		if limit > 0 && len(out) == limit {
			break
		}
	}
	return out
}
