package testrig

import (
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// TestIPMISimRig drives the simulator with ipmitool itself and checks that the chassis state
// files follow: the rig's accessors are what the bmc tests assert on.
func TestIPMISimRig(t *testing.T) {
	RequirePeers(t)
	s := StartIPMISim(t)
	run := func(args ...string) string {
		t.Helper()
		base := []string{"-I", "lanplus", "-H", s.Endpoint, "-p", strconv.Itoa(s.Port), "-U", s.User, "-E", "-C", "3"}
		cmd := exec.Command("ipmitool", append(base, args...)...)
		cmd.Env = []string{"IPMITOOL_PASSWORD=" + s.Password}
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("ipmitool %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	if s.PowerState() != "off" || s.BootDevice() != "default" {
		t.Fatalf("initial state: %s %s", s.PowerState(), s.BootDevice())
	}
	run("chassis", "power", "on")
	if s.PowerState() != "on" {
		t.Fatalf("power after 'chassis power on': %s", s.PowerState())
	}
	run("chassis", "bootdev", "pxe")
	if s.BootDevice() != "pxe" {
		t.Fatalf("boot device after 'bootdev pxe': %s", s.BootDevice())
	}
	s.SetPowerOutOfBand(false)
	if out := run("chassis", "power", "status"); !strings.Contains(out, "Chassis Power is off") {
		t.Fatalf("out-of-band power off not seen by the BMC: %s", out)
	}
	calls := strings.Join(s.ChassisCalls(), "\n")
	if !strings.Contains(calls, "set power 1") || !strings.Contains(calls, "set boot pxe") {
		t.Fatalf("chassis_control calls: %s", calls)
	}
}

// TestIPMISimOwnPasswordsAndFleetUser: every simulated BMC has its own generated administrator
// password, and a further account given at start (the fleet's) logs in on each.
func TestIPMISimOwnPasswordsAndFleetUser(t *testing.T) {
	RequirePeers(t)
	fleet := IPMIUser{Name: "gpucluster", Password: "0123456789abcdef"}
	a, b := StartIPMISimWith(t, fleet), StartIPMISimWith(t, fleet)
	if a.Password == b.Password || len(a.Password) != 16 || strings.Trim(a.Password, "0123456789abcdef") != "" {
		t.Errorf("administrator passwords %q and %q: want two different 16-hex-digit secrets", a.Password, b.Password)
	}
	for _, s := range []*IPMISim{a, b} {
		for _, u := range []IPMIUser{{s.User, s.Password}, fleet} {
			cmd := exec.Command("ipmitool", "-I", "lanplus", "-H", s.Endpoint, "-p", strconv.Itoa(s.Port), "-U", u.Name, "-E", "-C", "3", "-N", "2", "-R", "1", "chassis", "power", "status")
			cmd.Env = []string{"IPMITOOL_PASSWORD=" + u.Password}
			if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "Chassis Power is") {
				t.Errorf("%s on %s: %v %s", u.Name, s.Addr(), err, out)
			}
		}
	}
	// The other BMC's password does not open this one.
	cmd := exec.Command("ipmitool", "-I", "lanplus", "-H", a.Endpoint, "-p", strconv.Itoa(a.Port), "-U", "admin", "-E", "-C", "3", "-N", "1", "-R", "1", "chassis", "power", "status")
	cmd.Env = []string{"IPMITOOL_PASSWORD=" + b.Password}
	if out, err := cmd.CombinedOutput(); err == nil {
		t.Errorf("%s's password opened %s: %s", b.Addr(), a.Addr(), out)
	}
}
