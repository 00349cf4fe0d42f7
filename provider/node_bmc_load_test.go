package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6/tf6server"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/testrig"
)

// serveReattached serves the provider in this process for a terraform run outside
// terraform-plugin-testing (which cannot pass -parallelism), and returns the
// TF_REATTACH_PROVIDERS value that points terraform at it.
func serveReattached(t *testing.T) string {
	t.Helper()
	// The SDK loggers write to this process's stderr: keep them quiet, as main.go does.
	for _, v := range []string{"TF_LOG_SDK", "TF_LOG_SDK_PROTO", "TF_LOG_SDK_FRAMEWORK", "TF_LOG_PROVIDER"} {
		t.Setenv(v, "OFF")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cfgCh := make(chan *plugin.ReattachConfig, 1)
	closeCh := make(chan struct{})
	go func() {
		_ = tf6server.Serve(Address, func() tfprotov6.ProviderServer {
			return Wrap(providerserver.NewProtocol6(New("test")())())
		}, tf6server.WithDebug(ctx, cfgCh, closeCh), tf6server.WithGoPluginLogger(hclog.NewNullLogger()), tf6server.WithoutLogStderrOverride())
	}()
	var rc *plugin.ReattachConfig
	select {
	case rc = <-cfgCh:
	case <-time.After(30 * time.Second):
		cancel()
		t.Fatal("the provider server did not start")
	}
	t.Cleanup(func() {
		cancel()
		select {
		case <-closeCh:
		case <-time.After(10 * time.Second):
		}
	})
	b, err := json.Marshal(map[string]any{Address: map[string]any{
		"Protocol": string(rc.Protocol), "ProtocolVersion": rc.ProtocolVersion, "Pid": rc.Pid, "Test": true,
		"Addr": map[string]string{"Network": rc.Addr.Network(), "String": rc.Addr.String()},
	}})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// activeSessions asks a BMC how many sessions it has open, the asking one included
// ("ipmitool session info active", IPMI v2.0 section 22.20 Get Session Info).
func activeSessions(sim *testrig.IPMISim) (int, error) {
	cmd := exec.Command("ipmitool", "-I", "lanplus", "-H", sim.Endpoint, "-p", strconv.Itoa(sim.Port), "-U", sim.User, "-E", "-C", "3", "session", "info", "active")
	cmd.Env = []string{"IPMITOOL_PASSWORD=" + sim.Password}
	out, err := cmd.CombinedOutput()
	if err != nil {
		return 0, fmt.Errorf("%v: %s", err, out)
	}
	m := regexp.MustCompile(`active sessions\s*:\s*(\d+)`).FindSubmatch(out)
	if m == nil {
		return 0, fmt.Errorf("no session count in %q", out)
	}
	return strconv.Atoi(string(m[1]))
}

// TestAccNodeBMCLoad64 is the BMC load test: 64 gpucluster_node resources applied by the real
// terraform at -parallelism=50 against 64 distinct IPMI BMC endpoints, each its own ipmi_sim:
// 56 live, and 8 dead in three ways (4 ports nobody listens on, 2 simulators killed, 2 stopped
// with SIGSTOP so that they take packets and never answer). Every live node must end powered on
// with a PXE override (read from each simulator's chassis), every dead one must fail with an
// error naming it within its timeout, and no BMC may keep a session open afterwards. The create
// timeout (90 s) leaves room for live nodes queueing for the process's 16 BMC session slots
// while dead BMCs hold some of them for their 30 s per-call bound.
func TestAccNodeBMCLoad64(t *testing.T) {
	requireAcc(t)
	testrig.RequirePeers(t)
	if os.Getenv("TF_ACC") == "" {
		t.Skip("acceptance test: set TF_ACC=1")
	}
	tf := os.Getenv("TF_ACC_TERRAFORM_PATH")
	const nodes, live, parallelism = 64, 56, 50
	const createTimeout = 90 * time.Second

	// Each BMC has its own administrator password; the provider-wide credentials are the
	// fleet's automation account, provisioned on every BMC as a site does.
	fleet := testrig.IPMIUser{Name: "gpucluster", Password: "f1ee7a11b3c5d7e9"}
	started := time.Now()
	sims := make([]*testrig.IPMISim, 0, live+4)
	for i := 0; i < live+4; i++ {
		sims = append(sims, testrig.StartIPMISimWith(t, fleet))
	}
	ports := make([]int, nodes)
	for i := 0; i < live; i++ {
		ports[i] = sims[i].Port
	}
	for i := 0; i < 4; i++ { // nothing listens
		ports[live+i] = testrig.FreeUDPPort(t)
	}
	for i := 0; i < 2; i++ { // crashed
		s := sims[live+i]
		s.Proc.Stop()
		ports[live+4+i] = s.Port
	}
	for i := 0; i < 2; i++ { // hung
		s := sims[live+2+i]
		pid := s.Proc.Cmd.Process.Pid
		if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGCONT) })
		ports[live+6+i] = s.Port
	}
	var rss int
	for _, s := range sims[:live] {
		if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", s.Proc.Cmd.Process.Pid)); err == nil {
			if m := regexp.MustCompile(`VmRSS:\s+(\d+) kB`).FindSubmatch(b); m != nil {
				n, _ := strconv.Atoi(string(m[1]))
				rss += n
			}
		}
	}
	t.Logf("%d ipmi_sim BMCs up in %s, %d MB RSS together", len(sims), time.Since(started).Round(time.Millisecond), rss/1024)

	var cfg strings.Builder
	cfg.WriteString("terraform {\n  required_providers {\n    gpucluster = { source = \"gpucluster/gpucluster\" }\n  }\n}\n\n")
	fmt.Fprintf(&cfg, "provider \"gpucluster\" {\n  bmc = { username = %s, password = %s }\n}\n", hclString(fleet.Name), hclString(fleet.Password))
	for i := 0; i < nodes; i++ {
		fmt.Fprintf(&cfg, `
resource "gpucluster_node" "n%02d" {
  name        = "gpu%03d"
  rack        = "r%02d"
  position_u  = %d
  bmc         = { endpoint = "127.0.0.1", port = %d, protocols = ["ipmi"] }
  power_state = "on"
  boot_device = { device = "pxe", efi = false }
  timeouts { create = "%s" }
}
`, i, i+1, i/8+1, 2+4*(i%8), ports[i], createTimeout)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(cfg.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "cli.tfrc"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "TF_REATTACH_PROVIDERS="+serveReattached(t), "TF_IN_AUTOMATION=1", "CHECKPOINT_DISABLE=1",
		"TF_CLI_CONFIG_FILE="+filepath.Join(dir, "cli.tfrc"))
	run := func(args ...string) (string, error) {
		cmd := exec.Command(tf, args...)
		cmd.Dir, cmd.Env = dir, env
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	if out, err := run("init", "-input=false", "-no-color"); err != nil {
		t.Fatalf("terraform init: %v\n%s", err, out)
	}

	start := time.Now()
	out, err := run("apply", "-auto-approve", "-input=false", "-no-color", "-parallelism="+strconv.Itoa(parallelism))
	wall := time.Since(start)
	if err == nil {
		t.Fatalf("apply succeeded with 8 dead BMCs:\n%s", out)
	}
	failed := map[string]bool{}
	for _, m := range regexp.MustCompile(`Error: Node (gpu\d{3}): cannot open a session through its BMC`).FindAllStringSubmatch(out, -1) {
		failed[m[1]] = true
	}
	for _, m := range regexp.MustCompile(`Node "gpu\d{3}": BMC [^\n]*`).FindAllString(out, -1) {
		t.Logf("dead: %s", m)
	}
	errorsSeen := strings.Count(out, "Error: ")
	t.Logf("apply of %d nodes at -parallelism=%d: %s wall, %d errors, failed %d nodes", nodes, parallelism, wall.Round(time.Millisecond), errorsSeen, len(failed))
	if len(failed) != nodes-live || errorsSeen != nodes-live {
		t.Fatalf("want exactly the %d dead nodes to fail, got %d errors for %v:\n%s", nodes-live, errorsSeen, failed, out)
	}
	for i := live; i < nodes; i++ {
		if !failed[fmt.Sprintf("gpu%03d", i+1)] {
			t.Errorf("dead node gpu%03d did not fail", i+1)
		}
	}
	// Dead BMCs fail within the node's timeout (each BMC call is bounded by min(timeout, 30 s));
	// the run as a whole takes that plus the live work, not one timeout per dead BMC in turn.
	// Each BMC call is bounded by min(create timeout, 30 s): a dead BMC is given up after 30 s
	// of trying (plus any wait for a session slot, which the create timeout bounds), so the run
	// takes about that plus the live work, never one timeout per dead BMC in turn.
	if limit := createTimeout; wall > limit {
		t.Errorf("apply took %s, more than the %s create timeout", wall, createTimeout)
	}
	// Terraform's progress lines tell how long each node ran: a dead node may be "still
	// creating" only below its timeout; live ones say when they completed.
	longestDead, longestLive := 0, 0
	for _, m := range regexp.MustCompile(`gpucluster_node\.n(\d+): (?:Still creating\.\.\. \[(?:(\d+)m)?(\d+)s elapsed\]|Creation complete after (?:(\d+)m)?(\d+)s)`).FindAllStringSubmatch(out, -1) {
		i, _ := strconv.Atoi(m[1])
		if m[3] != "" {
			mins, _ := strconv.Atoi(m[2])
			secs, _ := strconv.Atoi(m[3])
			if d := mins*60 + secs; i >= live && d > longestDead {
				longestDead = d
			}
		} else {
			mins, _ := strconv.Atoi(m[4])
			secs, _ := strconv.Atoi(m[5])
			if d := mins*60 + secs; d > longestLive {
				longestLive = d
			}
		}
	}
	t.Logf("longest dead node still running at %ds (timeout %s); slowest live node done after %ds", longestDead, createTimeout, longestLive)
	if time.Duration(longestDead)*time.Second >= createTimeout {
		t.Errorf("a dead node ran %ds, past its %s timeout", longestDead, createTimeout)
	}
	if !strings.Contains(out, "did not answer") && !strings.Contains(out, "no answer") {
		t.Errorf("the dead nodes' errors do not say the BMC did not answer:\n%s", out)
	}

	for i := 0; i < live; i++ {
		s := sims[i]
		if s.PowerState() != "on" || s.BootDevice() != "pxe" {
			t.Errorf("live node gpu%03d: ipmi_sim power %s boot %s", i+1, s.PowerState(), s.BootDevice())
		}
	}
	// No session left open on any live BMC: the only active session is the one asking.
	maxOpen := 0
	for i := 0; i < live; i++ {
		n, err := activeSessions(sims[i])
		if err != nil {
			t.Fatalf("gpu%03d: session info: %v", i+1, err)
		}
		if n > maxOpen {
			maxOpen = n
		}
		if n != 1 {
			t.Errorf("gpu%03d: %d active sessions, want 1 (the one asking)", i+1, n)
		}
	}
	t.Logf("active sessions on the %d live BMCs after the apply: at most %d (the asking one)", live, maxOpen)
	// What the simulators cost: CPU time (utime+stime, /proc/<pid>/stat fields 14-15, in clock
	// ticks of 1/100 s on Linux) over their whole life, the apply included.
	ticks := 0
	for _, s := range sims[:live] {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", s.Proc.Cmd.Process.Pid))
		if err != nil {
			continue
		}
		if i := strings.LastIndexByte(string(b), ')'); i > 0 {
			if f := strings.Fields(string(b)[i+1:]); len(f) > 13 {
				u, _ := strconv.Atoi(f[11])
				st, _ := strconv.Atoi(f[12])
				ticks += u + st
			}
		}
	}
	t.Logf("CPU time of the %d live ipmi_sim processes: %.2f s in all", live, float64(ticks)/100)

	// The state holds the 56 live nodes; a plan at the same parallelism only wants the 8 dead.
	out, _ = run("plan", "-input=false", "-no-color", "-parallelism="+strconv.Itoa(parallelism), "-refresh=false")
	if !strings.Contains(out, fmt.Sprintf("Plan: %d to add, 0 to change, 0 to destroy", nodes-live)) {
		t.Errorf("plan after the apply:\n%s", out)
	}
}
