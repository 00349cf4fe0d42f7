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
