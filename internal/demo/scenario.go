package demo

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/testrig"
)

// Run is the whole demo: Up, apply, show the peers, plan (no changes), firmware (every node's
// versions read, one BMC updated through Redfish and read back), first light (a wave
// cabled with one swap, its punch list, passed after the fix), three faults, plan (each
// found), apply (what is repaired and what is not), day 2 (a cable goes bad, is recorded as
// failed while a change applies, is replaced), destroy, and the check that no file holds a
// secret. The peers stop with t's cleanups; the session is returned for tests.
func Run(t testrig.TB, o Options) *Session {
	t.Helper()
	began := time.Now()
	s := Up(t, o)
	s.apply()
	s.showPeers()
	s.planClean()
	s.firmwareStep()
	s.firstLight()
	node := s.injectFaults()
	s.planFindsFaults(node)
	s.repair(node)
	s.day2()
	s.destroy()
	s.checkNoLeaks()
	s.say("Done in %s; stopping every peer", time.Since(began).Round(time.Second))
	return s
}

// providerLog is where the provider's INFO lines of an apply go (TF_LOG_PROVIDER=INFO).
func (s *Session) providerLog(name string) []string {
	return []string{"TF_LOG_PROVIDER=INFO", "TF_LOG_PATH=" + filepath.Join(s.logs, name+"-provider.log")}
}

// progress prints the provider's progress lines of one apply (TF_LOG_PROVIDER=INFO), the lines a
// person follows: how many of each kind (bmc, mlxconfig, opensm), every OpenSM step, and the
// first few of the others.
func (s *Session) progress(name string) {
	b, _ := os.ReadFile(filepath.Join(s.logs, name+"-provider.log"))
	byKind := map[string][]string{}
	var kinds []string
	for _, l := range lines(string(b), 0, "@module=gpucluster.progress") {
		// "... [INFO]  provider.terraform-provider-gpucluster: bmc gpu001: power on: @caller=... @module=gpucluster.progress ..."
		_, msg, _ := strings.Cut(l, "provider.terraform-provider-gpucluster: ")
		msg, _, _ = strings.Cut(msg, ": @")
		kind, _, _ := strings.Cut(msg, " ")
		if byKind[kind] == nil {
			kinds = append(kinds, kind)
		}
		byKind[kind] = append(byKind[kind], msg)
	}
	for _, k := range kinds {
		shown := byKind[k]
		if k != "opensm" && len(shown) > 2 {
			shown = shown[:2]
		}
		s.detail("progress (TF_LOG_PROVIDER=INFO): %d %s lines%s", len(byKind[k]), k, map[bool]string{true: ", e.g.", false: ":"}[len(shown) < len(byKind[k])])
		for _, l := range shown {
			s.detail("  %s", l)
		}
	}
}

func (s *Session) apply() {
	s.say("terraform apply: BMCs, HCA firmware, OpenSM on the SM host")
	out, code := s.terraformEnv("apply", s.providerLog("apply"), "apply", "-auto-approve")
	if code != 0 {
		s.t.Fatalf("demo: terraform apply exited %d:\n%s", code, tail(out, 60))
	}
	for _, l := range lines(out, 3, "Plan:", "Apply complete!") {
		s.detail("%s", l)
	}
	s.progress("apply")
}

func (s *Session) showPeers() {
	c := s.Cluster
	s.say("What changed on each peer")
	log := s.openSMLog()
	routed := lines(log, 4, "tables configured on all switches", "at rank 0 (roots)", "SUBNET UP")
	for _, l := range routed {
		s.detail("opensm: %s", l)
	}
	s.expect(strings.Contains(log, "SUBNET UP") && len(lines(log, 1, "tables configured on all switches")) > 0,
		"OpenSM routed the fabric and brought the subnet up")
	// compute (0x0001) holds every port; tenant_a (0x0010) only gpu001-gpu004's.
	for hca, want := range map[string][]string{"gpu001/mlx5_1": {"0x8001", "0x8010"}, "gpu005/mlx5_1": {"0x8001"}} {
		keys := s.pkeys(hca)
		s.detail("smpquery pkeys %s: %s", hca, strings.Join(keys, " "))
		s.expect(slices.Equal(keys, append([]string{"0xffff"}, want...)), "%s holds the default P_Key and exactly %s", hca, strings.Join(want, ", "))
	}
	for _, n := range c.Nodes {
		power, boot := s.bmcState(n)
		s.detail("bmc %s (%s): power %s, boot override %s", n.Name, n.Protocol, power, boot)
		s.expect(power == "on" && boot == "pxe", "%s is on and boots from PXE", n.Name)
	}
	for _, n := range []testrig.ClusterNode{c.Nodes[0], c.Nodes[len(c.Nodes)-1]} {
		fw := s.firmware(n, "mlx5_0")
		s.detail("mlxconfig %s mlx5_0: LINK_TYPE_P1=%s SRIOV_EN=%s NUM_OF_VFS=%s", n.Name, fw["LINK_TYPE_P1"], fw["SRIOV_EN"], fw["NUM_OF_VFS"])
		s.expect(fw["LINK_TYPE_P1"] == "IB(1)" && fw["NUM_OF_VFS"] == "8", "%s's card is set to InfiniBand with 8 VFs", n.Name)
	}
}

func (s *Session) planClean() {
	s.say("terraform plan again: nothing to do")
	out, code := s.terraformEnv("plan-clean", nil, "plan", "-detailed-exitcode")
	for _, l := range lines(out, 2, "No changes.") {
		s.detail("%s", l)
	}
	s.expect(code == 0, "no changes (exit code %d)", code)
}

// injectFaults unplugs a leaf-spine cable, edits partitions.conf by hand and powers a node off,
// all behind Terraform's back. It returns the node powered off.
func (s *Session) injectFaults() testrig.ClusterNode {
	c := s.Cluster
	s.say("Three faults behind Terraform's back")
	up, sp := s.facts.uplink, s.facts.spine
	reply := c.Sim.Console(s.t, fmt.Sprintf("Unlink %q[%d]", up.Device, up.Port))
	s.detail("ibsim: Unlink %q[%d] (the cable to %s port %d) %s", up.Device, up.Port, sp.Device, sp.Port, strings.TrimSpace(reply))
	conf := filepath.Join(c.ConfDir, "partitions.conf")
	f, err := os.OpenFile(conf, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		s.t.Fatalf("demo: %v", err)
	}
	if _, err := f.WriteString("rogue=0x0bad, ipoib : ALL=full;\n"); err != nil {
		s.t.Fatalf("demo: %v", err)
	}
	f.Close()
	s.detail("SM host: a hand edit appends a partition to %s", conf)
	node := c.Nodes[2] // an IPMI node
	s.powerOff(node)
	power, _ := s.bmcState(node)
	s.detail("bmc %s: powered off through its BMC (%s); it now says %s", node.Name, node.Protocol, power)
	return node
}

func (s *Session) planFindsFaults(node testrig.ClusterNode) {
	s.say("terraform plan: each fault found")
	out, code := s.terraformEnv("plan-faults", nil, "plan", "-detailed-exitcode")
	s.expect(code == 2, "changes to make (exit code %d)", code)
	for _, l := range lines(out, 6, "partitions.conf", "power_state", "Check block assertion", "missing") {
		s.detail("plan: %s", l)
	}
	up := s.facts.uplink
	s.expect(strings.Contains(out, `"partitions.conf"`), "the fabric's digest of partitions.conf drifted")
	s.expect(regexp.MustCompile(`power_state\s+= "off" -> "on"`).MatchString(out), "%s's power state is off and will be set on", node.Name)
	s.expect(strings.Contains(out, "fabric_as_declared") && strings.Contains(out, fmt.Sprintf("missing link: %s[%d]", up.Device, up.Port)),
		"the check block reports the unplugged cable at %s port %d", up.Device, up.Port)
}

func (s *Session) repair(node testrig.ClusterNode) {
	s.say("terraform apply: what Terraform repairs, and what it cannot")
	out, code := s.terraformEnv("apply-repair", s.providerLog("apply-repair"), "apply", "-auto-approve")
	s.expect(code == 0, "the apply succeeded (exit code %d)", code)
	s.progress("apply-repair")
	conf, _ := os.ReadFile(filepath.Join(s.Cluster.ConfDir, "partitions.conf"))
	s.expect(!strings.Contains(string(conf), "rogue"), "partitions.conf on the SM host is the rendered one again")
	power, _ := s.bmcState(node)
	s.expect(power == "on", "%s is powered on again (its BMC says %s)", node.Name, power)
	up, sp := s.facts.uplink, s.facts.spine
	s.expect(strings.Contains(out, "fabric_as_declared"),
		"the cable %s:%d <-> %s:%d is still reported: Terraform cannot replug it, a technician must", up.Device, up.Port, sp.Device, sp.Port)
}

func (s *Session) destroy() {
	s.say("terraform destroy: the SM host gets its own files back")
	s.terraform("destroy", "destroy", "-auto-approve")
	_, err := os.Stat(filepath.Join(s.Cluster.ConfDir, "partitions.conf"))
	s.expect(os.IsNotExist(err), "the files the provider created on the SM host are gone")
	s.expect(s.Cluster.OpenSM.PID() == 0, "OpenSM, which was not running before the first apply, is stopped")
}
