package provider

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/opensm"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/testrig"
)

// The subnet manager tests run on a 2-tier fat tree of 4 leaves x 2 spines x 16 HCAs (8 DGX H100
// nodes), declared in HCL with GUIDs (simFabricHCL) and, identically, in Go (simFabricSpec), so
// that ibsim can load the declared fabric before Terraform runs. The fabric's own
// expected_topology is checked against it.

const (
	simSwitchGUIDBase = 0x0002c90300001000 // spine01 = base+1, spine02 = +2, leaf01 = +3 ...
	simHCAGUIDBase    = 0x0002c90300100001 // HCA h: base + 0x10*h (ibsim's node GUID, -1, never collides)
	simSMHost         = "gpu001 mlx5_0"    // where OpenSM and the diagnostics attach
)

func simHCAName(h int) string { return fmt.Sprintf("gpu%03d/mlx5_%d", h/8+1, h%8) }

func simHCAGUID(h int) string { return fmt.Sprintf("0x%016x", simHCAGUIDBase+0x10*h) }

func simSwitchGUID(name string) string {
	n := map[string]int{"spine01": 1, "spine02": 2, "leaf01": 3, "leaf02": 4, "leaf03": 5, "leaf04": 6}[name]
	return fmt.Sprintf("0x%016x", simSwitchGUIDBase+n)
}

// simFabricSpec is the Go twin of simFabricHCL, in the order the fabric reads its maps: by key.
func simFabricSpec() *fabric.Spec {
	s := &fabric.Spec{}
	for _, n := range []string{"leaf01", "leaf02", "leaf03", "leaf04", "spine01", "spine02"} {
		s.Switches = append(s.Switches, fabric.Switch{Name: n, Model: "QM9700", GUID: simSwitchGUID(n)})
	}
	for n := 0; n < 8; n++ {
		s.Nodes = append(s.Nodes, fabric.Node{Name: fmt.Sprintf("gpu%03d", n+1), Model: "DGX-H100"})
	}
	for h := 0; h < 64; h++ {
		node, dev := fmt.Sprintf("gpu%03d", h/8+1), fmt.Sprintf("mlx5_%d", h%8)
		s.HCAs = append(s.HCAs, fabric.HCA{Name: fabric.HCAName(node, dev), Node: node, Device: dev, Rail: h % 8, PortGUID: simHCAGUID(h)})
		s.Cables = append(s.Cables, fabric.Cable{
			A: fabric.End{Device: simHCAName(h), Port: 1},
			B: fabric.End{Device: fmt.Sprintf("leaf%02d", h/16+1), Port: h%16 + 1},
		})
	}
	for l := 0; l < 4; l++ {
		for sp := 0; sp < 2; sp++ {
			for k := 0; k < 8; k++ {
				s.Cables = append(s.Cables, fabric.Cable{
					A: fabric.End{Device: fmt.Sprintf("leaf%02d", l+1), Port: 16 + sp*8 + k + 1},
					B: fabric.End{Device: fmt.Sprintf("spine%02d", sp+1), Port: l*8 + k + 1},
				})
			}
		}
	}
	sort.Slice(s.Cables, func(i, j int) bool { return s.Cables[i].A.String() < s.Cables[j].A.String() })
	return s
}

// simFabricHCL declares the same fabric as Terraform locals: local.switches, local.nodes,
// local.hcas, local.cables.
func simFabricHCL() string {
	return fmt.Sprintf(`
locals {
  spines = ["spine01", "spine02"]
  leaves = ["leaf01", "leaf02", "leaf03", "leaf04"]
  switches = merge(
    { for i, s in local.spines : s => { guid = format("0x%%016x", %d + i + 1) } },
    { for i, s in local.leaves : s => { guid = format("0x%%016x", %d + i + 3) } },
  )
  nodes = { for n in range(8) : format("gpu%%03d", n + 1) => {} }
  hca_list = [for h in range(64) : {
    node      = format("gpu%%03d", floor(h / 8) + 1)
    device    = "mlx5_${h %% 8}"
    rail      = h %% 8
    port_guid = format("0x%%016x", %d + 16 * h)
  }]
  hca_names = [for h in local.hca_list : "${h.node}/${h.device}"]
  hcas      = { for h in local.hca_list : "${h.node}/${h.device}" => h }
  cables = { for c in local.cable_list : "${c.a.device}:${c.a.port}" => c }
  cable_list = concat(
    [for h in range(64) : {
      a = { device = local.hca_names[h], port = 1 }
      b = { device = local.leaves[floor(h / 16)], port = h %% 16 + 1 }
    }],
    flatten([for l in range(4) : [for s in range(2) : [for k in range(8) : {
      a = { device = local.leaves[l], port = 16 + s * 8 + k + 1 }
      b = { device = local.spines[s], port = l * 8 + k + 1 }
    }]]]),
  )
}
`, simSwitchGUIDBase, simSwitchGUIDBase, simHCAGUIDBase)
}

// smRig is the peers of a subnet manager test: ibsim running the declared fabric, a real sshd on
// 127.0.0.1 (the SM "host"), an OpenSM service on the simulator controlled by a script, and a
// wrapper that runs the infiniband-diags attached to the simulator.
type smRig struct {
	g       *fabric.Graph
	sim     *testrig.IBSim
	sshd    *testrig.SSHD
	svc     *testrig.OpenSMService
	confDir string // subnet_manager.config_dir
	log     string // OpenSM's log
	keyFile string // the client's private key, for file() in HCL
	simrun  string // `simrun ibnetdiscover` runs ibnetdiscover attached to the simulator
}

func startSMRig(t *testing.T) *smRig {
	t.Helper()
	g, problems := fabric.Build(simFabricSpec(), catalog.Default())
	if fabric.HasErrors(problems) {
		t.Fatalf("fabric.Build: %v", problems)
	}
	return startSMRigFor(t, g)
}

// startSMRigFor is startSMRig with ibsim running the fabric g.
func startSMRigFor(t *testing.T, g *fabric.Graph) *smRig {
	t.Helper()
	began := time.Now()
	r := &smRig{g: g, sim: testrig.StartIBSim(t, opensm.ExpectedTopology(g))}
	r.sshd = testrig.StartSSHD(t, testrig.SSHDOptions{})
	r.confDir = filepath.Join(r.sshd.Dir, "etc-opensm")
	r.log = filepath.Join(r.sshd.Dir, "opensm.log")
	if err := os.MkdirAll(r.confDir, 0o755); err != nil {
		t.Fatal(err)
	}
	r.svc = r.sim.OpenSMService(t, simSMHost, filepath.Join(r.confDir, opensm.FileOpenSMConf), r.sim.Dir)
	keys := t.TempDir()
	r.keyFile = filepath.Join(keys, "id_ed25519")
	if err := os.WriteFile(r.keyFile, []byte(r.sshd.PrivateKeyPEM), 0o600); err != nil {
		t.Fatal(err)
	}
	var env strings.Builder
	env.WriteString("#!/bin/sh\n")
	for _, kv := range r.sim.Env(simSMHost) {
		k, v, _ := strings.Cut(kv, "=")
		fmt.Fprintf(&env, "export %s='%s'\n", k, strings.ReplaceAll(v, "'", `'\''`))
	}
	env.WriteString("exec \"$@\"\n")
	r.simrun = filepath.Join(keys, "simrun")
	if err := os.WriteFile(r.simrun, []byte(env.String()), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Logf("rig (ibsim, sshd, scripts) ready in %s", time.Since(began).Round(time.Millisecond))
	return r
}

// startOpenSM renders the files for the rig and starts OpenSM locally (for the data source tests,
// which need LIDs but no push).
func (r *smRig) startOpenSM(t *testing.T) {
	t.Helper()
	cfg, err := opensm.FromGraph(r.g, opensm.GraphOptions{
		Paths:   opensm.Paths{ConfigDir: r.confDir},
		Options: map[string]string{"log_file": r.log, "force_log_flush": "TRUE"},
	})
	if err != nil {
		t.Fatal(err)
	}
	files, err := opensm.Render(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for n, text := range files {
		if err := os.WriteFile(filepath.Join(r.confDir, n), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if out, err := execSh(r.svc.Start); err != nil {
		t.Fatalf("starting OpenSM: %v\n%s", err, out)
	}
	if !testrig.WaitFor(30*time.Second, func() bool { return strings.Contains(r.logText(), "SUBNET UP") }) {
		t.Fatalf("OpenSM did not bring the subnet up:\n%s", r.logText())
	}
}

func (r *smRig) logText() string {
	b, _ := os.ReadFile(r.log)
	return string(b)
}

// lid is the LID OpenSM gave a port GUID (from its guid2lid cache).
func (r *smRig) lid(t *testing.T, guid string) int {
	t.Helper()
	lid, ok := r.sim.LIDs(t)[guid]
	if !ok {
		t.Fatalf("no LID for %s in guid2lid", guid)
	}
	return lid
}

// pkeys is `smpquery pkeys <lid> 1` of HCA h.
func (r *smRig) pkeys(t *testing.T, h int) string {
	t.Helper()
	res, err := r.sim.Run(t, simSMHost, 20*time.Second, "smpquery", "pkeys", strconv.Itoa(r.lid(t, simHCAGUID(h))), "1")
	if err != nil {
		t.Fatalf("smpquery: %v", err)
	}
	return res.Stdout
}

// onHost reads the OpenSM files in the config directory ("" for a missing one).
func (r *smRig) onHost(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, n := range opensm.FileNames {
		b, err := os.ReadFile(filepath.Join(r.confDir, n))
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		out[n] = string(b)
	}
	return out
}

// providerHCL configures the provider's ssh defaults for the rig (the key is given per resource
// or data source).
func (r *smRig) providerHCL() string {
	return fmt.Sprintf(`
provider "gpucluster" {
  ssh = { user = %q, known_hosts_file = %q }
}
`, r.sshd.User, r.sshd.KnownHostsFile)
}

func execSh(cmd string) (string, error) {
	out, err := exec.Command("sh", "-c", cmd).CombinedOutput()
	return string(out), err
}

// fabricSMConfig is the fabric with a subnet_manager for the rig, and gpucluster_opensm_files
// given the same inputs and the same subnet_manager object; extra goes into subnet_manager,
// moreCompute adds HCAs to the compute partition.
func (r *smRig) fabricSMConfig(extra string, moreCompute ...int) string {
	var more []string
	for _, h := range moreCompute {
		more = append(more, fmt.Sprintf("%q", simHCAName(h)))
	}
	return r.providerHCL() + simFabricHCL() + fmt.Sprintf(`
locals {
  partitions = {
    compute = {
      pkey = "0x0001", ipoib = true, mtu = 4096, rate = 400
      members = [for n in concat(slice(local.hca_names, 0, 32), [%s]) : { hca = n, membership = "full" }]
    },
    storage = {
      pkey    = "0x0002"
      members = [{ hca = "gpu006/mlx5_0", membership = "limited" }, { guid = "SELF", membership = "full" }]
    },
  }
  sm = {
    hosts           = ["127.0.0.1"]
    port            = %d
    ssh_private_key = file(%q)
    config_dir      = %q
    log_file        = %q
    start_command   = %q
    stop_command    = %q
    reload_command  = %q
    status_command  = %q
    verify_timeout  = "45s"
    %s
  }
}

resource "gpucluster_fabric" "f" {
  name           = "sim"
  switches       = local.switches
  nodes          = local.nodes
  hcas           = local.hcas
  cables         = local.cables
  partitions     = local.partitions
  subnet_manager = local.sm
}

data "gpucluster_opensm_files" "f" {
  switches       = local.switches
  nodes          = local.nodes
  hcas           = local.hcas
  cables         = local.cables
  partitions     = local.partitions
  subnet_manager = local.sm
}
`, strings.Join(more, ", "), r.sshd.Port, r.keyFile, r.confDir, r.log, r.svc.Start, r.svc.Stop, r.svc.Reload, r.svc.Status, extra)
}

// checkFilesOnHost checks that the files in the config directory are, byte for byte, the files
// of gpucluster_opensm_files, and that the fabric's `opensm` holds their digests: the data source
// and the fabric render the same files from the same inputs.
func (r *smRig) checkFilesOnHost(t *testing.T) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		rs, ok := s.RootModule().Resources["gpucluster_fabric.f"]
		if !ok {
			return fmt.Errorf("gpucluster_fabric.f is not in state")
		}
		ds, ok := s.RootModule().Resources["data.gpucluster_opensm_files.f"]
		if !ok {
			return fmt.Errorf("data.gpucluster_opensm_files.f is not in state")
		}
		if n := rs.Primary.Attributes["opensm.%"]; n != strconv.Itoa(len(opensm.FileNames)) {
			return fmt.Errorf("opensm has %s files, want %d", n, len(opensm.FileNames))
		}
		host := r.onHost(t)
		for _, name := range opensm.FileNames {
			if got, want := host[name], ds.Primary.Attributes["files."+name]; got != want {
				return fmt.Errorf("%s on the host differs from the data source's files[%q]:\n--- host\n%s\n--- data source\n%s", name, name, got, want)
			}
			d := opensm.DigestOf(host[name])
			for attr, want := range map[string]string{"sha256": d.SHA256, "bytes": strconv.Itoa(d.Bytes), "lines": strconv.Itoa(d.Lines)} {
				if got := rs.Primary.Attributes["opensm."+name+"."+attr]; got != want {
					return fmt.Errorf("opensm[%q].%s = %q in state, the host's file gives %q", name, attr, got, want)
				}
			}
		}
		return nil
	}
}

// expectDigestChange checks that the plan changes the fabric's `opensm` digest of exactly the
// files named (drift on the host is planned as a change of that file's digest only).
type expectDigestChange struct{ files []string }

func (e expectDigestChange) CheckPlan(_ context.Context, req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	rc := findChange(req.Plan, "gpucluster_fabric.f")
	if rc == nil {
		resp.Error = fmt.Errorf("gpucluster_fabric.f is not in the plan")
		return
	}
	digests := func(v any) map[string]string {
		out := map[string]string{}
		obj, _ := v.(map[string]any)
		files, _ := obj["opensm"].(map[string]any)
		for n, d := range files {
			m, _ := d.(map[string]any)
			out[n], _ = m["sha256"].(string)
		}
		return out
	}
	before, after := digests(rc.Change.Before), digests(rc.Change.After)
	var changed []string
	for _, n := range opensm.FileNames {
		if before[n] != after[n] {
			changed = append(changed, n)
		}
	}
	if strings.Join(changed, ",") != strings.Join(e.files, ",") {
		resp.Error = fmt.Errorf("the plan changes the digests of %q, want %q", changed, e.files)
	}
}

// TestAccFabricSubnetManager applies the declared fat tree with a subnet manager reached over a
// real sshd, with OpenSM on ibsim: the first push verifies ftree with both spines as roots and the
// partitions reach the ports; a partition change is applied by SIGHUP (same OpenSM process), a
// routing-engine change by restart; an engine that falls back fails verification and leaves the
// previous files on the host; a hand edit on the host shows as drift in the next plan and the next
// apply puts the rendered file back; a changed host key is refused; destroy restores the host.
func TestAccFabricSubnetManager(t *testing.T) {
	requireAcc(t)
	testrig.RequirePeers(t)
	r := startSMRig(t)
	const f, ds = "gpucluster_fabric.f", "data.gpucluster_opensm_files.f"
	var pid int
	var updnFiles map[string]string
	stepStart := time.Now()
	timed := func(name string) resource.TestCheckFunc {
		return func(*terraform.State) error {
			t.Logf("step %s: %s", name, time.Since(stepStart).Round(time.Millisecond))
			stepStart = time.Now()
			return nil
		}
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		CheckDestroy: func(*terraform.State) error {
			for n, text := range r.onHost(t) {
				if text != "" {
					return fmt.Errorf("destroy left %s on the host (it did not exist before the first push)", n)
				}
			}
			if _, err := os.Stat(filepath.Join(r.confDir, opensm.OriginalManifest)); !os.IsNotExist(err) {
				return fmt.Errorf("destroy left the snapshot manifest: %v", err)
			}
			if r.svc.PID() != 0 {
				return fmt.Errorf("OpenSM was not running before the first push, but runs after destroy")
			}
			return nil
		},
		Steps: []resource.TestStep{
			{
				// First push: OpenSM is started with the rendered files and routes with ftree.
				Config: r.fabricSMConfig(""),
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(ds, "expected_topology", opensm.ExpectedTopology(r.g)),
					resource.TestMatchResourceAttr(ds, "files.opensm.conf", re("routing_engine ftree")),
					resource.TestMatchResourceAttr(ds, "files.opensm.conf", re("force_log_flush TRUE")),
					r.checkFilesOnHost(t),
					func(*terraform.State) error {
						if pid = r.svc.PID(); pid == 0 {
							return fmt.Errorf("OpenSM is not running after apply")
						}
						v := opensm.ParseLog(r.logText())
						if v.Engine != "ftree" || v.Roots != 2 || v.Leaves != 4 {
							return fmt.Errorf("OpenSM routed with %q, %d roots, %d leaves; want ftree, 2, 4", v.Engine, v.Roots, v.Leaves)
						}
						if p := r.pkeys(t, 5); !strings.Contains(p, "0x8001") {
							return fmt.Errorf("HCA 5, a full member of compute, lacks 0x8001:\n%s", p)
						}
						if p := r.pkeys(t, 40); !strings.Contains(p, "0x0002") || strings.Contains(p, "0x8002") {
							return fmt.Errorf("HCA 40, a limited member of storage, should show 0x0002 only:\n%s", p)
						}
						return nil
					},
					timed("first push"),
				),
			},
			{
				// HCA 50 joins compute: partitions.conf only, so SIGHUP, same OpenSM process.
				Config: r.fabricSMConfig("", 50),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(f, plancheck.ResourceActionUpdate),
				}},
				Check: resource.ComposeAggregateTestCheckFunc(
					r.checkFilesOnHost(t),
					func(*terraform.State) error {
						if r.svc.PID() != pid {
							return fmt.Errorf("a partition change restarted OpenSM (pid %d -> %d) instead of a SIGHUP", pid, r.svc.PID())
						}
						if !testrig.WaitFor(10*time.Second, func() bool { return strings.Contains(r.pkeys(t, 50), "0x8001") }) {
							return fmt.Errorf("HCA 50 lacks 0x8001 after the SIGHUP:\n%s", r.pkeys(t, 50))
						}
						return nil
					},
					timed("partition change"),
				),
			},
			{
				// A new routing engine: OpenSM reads it only at start, so a restart.
				Config: r.fabricSMConfig(`routing_engine = "updn"`, 50),
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestMatchResourceAttr(ds, "files.opensm.conf", re("routing_engine updn")),
					r.checkFilesOnHost(t),
					func(*terraform.State) error {
						np := r.svc.PID()
						if np == 0 || np == pid {
							return fmt.Errorf("OpenSM was not restarted for the new engine (pid %d, before %d)", np, pid)
						}
						pid = np
						if v := opensm.ParseLog(lastOpenSMRun(r.logText())); v.Engine != "updn" {
							return fmt.Errorf("after the restart OpenSM routes with %q, not updn", v.Engine)
						}
						updnFiles = r.onHost(t)
						return nil
					},
					timed("engine change"),
				),
			},
			{
				// torus-2QoS with a torus description that does not exist: OpenSM falls back to
				// minhop (and exits 0 from nothing). Verification refuses it and rolls back.
				Config:      r.fabricSMConfig(`routing_engine = "torus-2QoS"`+"\n"+`options = { qos = "TRUE", torus_config = "/nonexistent/torus-2QoS.conf" }`, 50),
				ExpectError: re("tables configured by minhop after torus-2QoS failed (fallback), not torus-2QoS"),
			},
			{
				// The host has the updn files again; OpenSM runs with them. Then partitions.conf
				// is edited by hand: the next plan shows the drift.
				PreConfig: func() {
					if got := r.onHost(t); !sameStrings(got, updnFiles) {
						t.Fatalf("after the failed push the host does not hold the previous (updn) files:\n%s", got[opensm.FileOpenSMConf])
					}
					if r.svc.PID() == 0 {
						t.Fatal("OpenSM is not running after the rollback")
					}
					if v := opensm.ParseLog(lastOpenSMRun(r.logText())); v.Engine != "updn" {
						t.Fatalf("after the rollback OpenSM routes with %q, not updn", v.Engine)
					}
					pid = r.svc.PID()
					// Someone demotes HCA 50 to a limited member by hand.
					edited := strings.Replace(updnFiles[opensm.FilePartitions], simHCAGUID(50)+"=full", simHCAGUID(50)+"=limited", 1)
					if edited == updnFiles[opensm.FilePartitions] {
						t.Fatalf("HCA 50 is not in partitions.conf:\n%s", edited)
					}
					if err := os.WriteFile(filepath.Join(r.confDir, opensm.FilePartitions), []byte(edited), 0o644); err != nil {
						t.Fatal(err)
					}
				},
				Config:             r.fabricSMConfig(`routing_engine = "updn"`, 50),
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
			},
			{
				// Apply puts the rendered partitions.conf back, with a SIGHUP: the plan changes that
				// file's digest only.
				Config: r.fabricSMConfig(`routing_engine = "updn"`, 50),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(f, plancheck.ResourceActionUpdate),
					expectDigestChange{files: []string{opensm.FilePartitions}},
				}},
				Check: resource.ComposeAggregateTestCheckFunc(
					r.checkFilesOnHost(t),
					func(*terraform.State) error {
						if got := r.onHost(t)[opensm.FilePartitions]; got != updnFiles[opensm.FilePartitions] {
							return fmt.Errorf("partitions.conf was not put back:\n%s", got)
						}
						if r.svc.PID() != pid {
							return fmt.Errorf("repairing partitions.conf restarted OpenSM")
						}
						return nil
					},
					timed("drift repaired"),
				),
			},
			{
				// An apply that wrote the files and lost the host before telling OpenSM leaves
				// gpucluster-pending behind (internal/opensm covers the real interruption): the
				// refresh does not take the files on disk for what OpenSM runs, so the plan pushes.
				PreConfig: func() {
					marker := "action sighup\nfile " + opensm.FilePartitions + " existed\nfile " + opensm.PendingMarker + " absent\n"
					if err := os.WriteFile(filepath.Join(r.confDir, opensm.PendingMarker), []byte(marker), 0o644); err != nil {
						t.Fatal(err)
					}
				},
				Config:             r.fabricSMConfig(`routing_engine = "updn"`, 50),
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
			},
			{
				// The apply tells OpenSM (a SIGHUP: same process), verifies, and drops the marker.
				Config: r.fabricSMConfig(`routing_engine = "updn"`, 50),
				Check: resource.ComposeAggregateTestCheckFunc(
					r.checkFilesOnHost(t),
					func(*terraform.State) error {
						if _, err := os.Stat(filepath.Join(r.confDir, opensm.PendingMarker)); !os.IsNotExist(err) {
							return fmt.Errorf("the pending marker is still on the host (%v)", err)
						}
						if r.svc.PID() != pid {
							return fmt.Errorf("completing the activation restarted OpenSM")
						}
						return nil
					},
				),
			},
			{
				// The host now presents another key: refresh refuses it.
				PreConfig:   func() { r.sshd.RestartWithNewHostKey(t) },
				Config:      r.fabricSMConfig(`routing_engine = "updn"`, 50),
				PlanOnly:    true,
				ExpectError: re("REMOTE HOST IDENTIFICATION HAS CHANGED"),
			},
			{
				// The new key is recorded: all is well again, and destroy (CheckDestroy) can
				// restore the host.
				PreConfig: func() {
					line := knownhosts.Line([]string{net.JoinHostPort(r.sshd.Host, strconv.Itoa(r.sshd.Port))}, r.sshd.HostKey)
					if err := os.WriteFile(r.sshd.KnownHostsFile, []byte(line+"\n"), 0o600); err != nil {
						t.Fatal(err)
					}
				},
				Config:   r.fabricSMConfig(`routing_engine = "updn"`, 50),
				PlanOnly: true,
			},
		},
	})
}

// TestAccFabricSubnetManagerPlanErrors: problems with the OpenSM configuration fail the plan on
// the attribute that causes them; without subnet_manager they only warn.
func TestAccFabricSubnetManagerPlanErrors(t *testing.T) {
	t.Parallel()
	// Nothing is reached at plan time: the rig is only names.
	key := filepath.Join(t.TempDir(), "key")
	if err := os.WriteFile(key, []byte("not used at plan time"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := &smRig{sshd: &testrig.SSHD{User: "root", Port: 22, KnownHostsFile: "/dev/null"}, keyFile: key,
		svc: &testrig.OpenSMService{Start: "start", Stop: "stop", Reload: "reload", Status: "status"}, confDir: "/etc/opensm", log: "/var/log/opensm.log"}
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{
			{
				Config:      r.fabricSMConfig(`lmc = 1`),
				PlanOnly:    true,
				ExpectError: re("lmc 1 with routing engine ftree"),
			},
			{
				Config:      r.fabricSMConfig(`options = { sweep_intervall = "10" }`),
				PlanOnly:    true,
				ExpectError: re(`OpenSM 3.3 has no option "sweep_intervall"`),
			},
			{
				Config:      r.fabricSMConfig(`roots = ["0x0002c90300001003"]`),
				PlanOnly:    true,
				ExpectError: re("not a top-tier switch"),
			},
			{
				Config:      r.fabricSMConfig(`service = "opensm"`),
				PlanOnly:    true,
				ExpectError: re("Invalid Attribute Combination"),
			},
		},
	})
}

// TestOpenSMErrorPath: the fields of opensm.FieldError land on the attribute at fault: an
// inventory element by its key in the map (its index in the Spec is no attribute path), a
// generated one on the design argument behind it, the settings on subnet_manager.
func lastOpenSMRun(log string) string {
	if i := strings.LastIndex(log, "-> OpenSM 3.3"); i >= 0 {
		return log[i:]
	}
	return log
}

func sameStrings(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}
