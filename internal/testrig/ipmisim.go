package testrig

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// IPMISim is a running ipmi_sim (OpenIPMI's BMC simulator) answering IPMI v2.0 (RMCP+, lanplus)
// on a UDP port of 127.0.0.1. Its chassis_control script keeps the power and boot state in files
// of Dir, so the test reads what the BMC would have done to the host.
type IPMISim struct {
	Endpoint string // 127.0.0.1
	Port     int    // UDP
	User     string // the administrator, "admin"
	Password string // its password, generated for this BMC
	Dir      string // lan.conf, sim.emu, chassis.sh, state files, the simulator's own state dir

	Proc  *Process
	users []IPMIUser
}

// IPMIUser is a further account of the BMC (slots 3 and up), an administrator.
type IPMIUser struct {
	Name, Password string
}

// ipmiChassisScript is the chassis_control program. ipmi_sim calls it as
// "chassis.sh 0x20 get power boot ..." (answering "power:1" lines) or
// "chassis.sh 0x20 set power 1 boot pxe ..."; each call is logged for assertions. Writes go
// through a temporary file and a rename so that a test never reads a half-written state.
const ipmiChassisScript = `#!/bin/sh
dir=$(dirname "$0")
echo "$*" >> "$dir/chassis.log"
shift
op=$1
shift
while [ $# -gt 0 ]; do
  what=$1
  shift
  case "$op" in
  get)
    case "$what" in
    power) echo "power:$(cat "$dir/power" 2>/dev/null || echo 0)" ;;
    boot) echo "boot:$(cat "$dir/boot" 2>/dev/null || echo default)" ;;
    esac
    ;;
  set)
    val=$1
    shift
    case "$what" in
    power|boot)
      echo "$val" > "$dir/$what.tmp" && mv "$dir/$what.tmp" "$dir/$what" ;;
    esac
    ;;
  esac
done
exit 0
`

// StartIPMISim starts ipmi_sim with a fresh state directory on a free UDP port, waits until it
// answers an authenticated "chassis power status", and stops it (by process group) when the
// test ends. The host starts powered off with no boot override. The administrator's password is
// generated for this BMC (as BMCs leave the factory with one of their own).
func StartIPMISim(t TB) *IPMISim { return StartIPMISimWith(t) }

// StartIPMISimWith is StartIPMISim with further administrator accounts (a fleet's automation
// account, the way a site provisions one on every BMC).
func StartIPMISimWith(t TB, users ...IPMIUser) *IPMISim {
	t.Helper()
	if len(users) > 14 {
		t.Fatalf("ipmi_sim rig: %d extra users, at most 14 (slots 3-16)", len(users))
	}
	sim := Need(t, "ipmi_sim", "openipmi")
	ipmitool := Need(t, "ipmitool", "ipmitool")
	var lastOut string
	// A free port can be taken between FreeUDPPort and the bind: try a few.
	for attempt := 0; attempt < 3; attempt++ {
		s := &IPMISim{Endpoint: "127.0.0.1", User: "admin", Password: bmcSecret(t), Dir: t.TempDir(), Port: FreeUDPPort(t), users: users}
		s.writeFiles(t)
		s.Proc = Start(t, s.Dir, nil, sim, "-c", filepath.Join(s.Dir, "lan.conf"), "-f", filepath.Join(s.Dir, "sim.emu"), "-s", filepath.Join(s.Dir, "state"), "-n")
		ok := WaitFor(10*time.Second, func() bool {
			if s.Proc.Exited() {
				return true
			}
			cmd := exec.Command(ipmitool, "-I", "lanplus", "-H", s.Endpoint, "-p", strconv.Itoa(s.Port), "-U", s.User, "-E", "-C", "3", "-N", "1", "-R", "1", "chassis", "power", "status")
			cmd.Env = []string{"IPMITOOL_PASSWORD=" + s.Password}
			out, err := cmd.CombinedOutput()
			lastOut = string(out)
			return err == nil && strings.Contains(lastOut, "Chassis Power is")
		})
		if ok && !s.Proc.Exited() {
			return s
		}
		s.Proc.Stop()
		lastOut += "\nipmi_sim output:\n" + s.Proc.Output()
	}
	t.Fatalf("ipmi_sim did not answer on loopback: %s", lastOut)
	return nil
}

func (s *IPMISim) writeFiles(t TB) {
	t.Helper()
	lan := fmt.Sprintf(`name "gpubmc"
set_working_mc 0x20
  startlan 1
    addr %s %d
    priv_limit admin
    allowed_auths_admin none md2 md5 straight
    allowed_auths_operator none md2 md5 straight
    allowed_auths_user none md2 md5 straight
    guid a123456789abcdefa123456789abcdef
  endlan
  chassis_control "%s 0x20"
  user 2 true "%s" "%s" admin 10 none md2 md5 straight
`, s.Endpoint, s.Port, filepath.Join(s.Dir, "chassis.sh"), s.User, s.Password)
	for i, u := range s.users {
		lan += fmt.Sprintf("  user %d true \"%s\" \"%s\" admin 10 none md2 md5 straight\n", i+3, u.Name, u.Password)
	}
	emu := `mc_setbmc 0x20
mc_add 0x20 0 no-device-sdrs 0x23 9 8 0x9f 0x1291 0xf02 persist_sdr
sel_enable 0x20 1000 0x0a
mc_enable 0x20
`
	for name, body := range map[string]string{
		"lan.conf":   lan,
		"sim.emu":    emu,
		"chassis.sh": ipmiChassisScript,
		"power":      "0\n",
		"boot":       "default\n",
	} {
		mode := os.FileMode(0o600)
		if name == "chassis.sh" {
			mode = 0o700
		}
		if err := os.WriteFile(filepath.Join(s.Dir, name), []byte(body), mode); err != nil {
			t.Fatalf("ipmi_sim rig: writing %s: %v", name, err)
		}
	}
	// A fresh state directory each run: users persisted by an earlier run would override lan.conf.
	if err := os.MkdirAll(filepath.Join(s.Dir, "state"), 0o700); err != nil {
		t.Fatalf("ipmi_sim rig: state dir: %v", err)
	}
}

func (s *IPMISim) state(name string) string {
	b, err := os.ReadFile(filepath.Join(s.Dir, name))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// PowerState is "on" or "off", as the chassis last set it.
func (s *IPMISim) PowerState() string {
	if s.state("power") == "1" {
		return "on"
	}
	return "off"
}

// BootDevice is the boot device the BMC last set, in ipmi_sim's words: "pxe", "default" (disk),
// "cdrom", "bios" or "none".
func (s *IPMISim) BootDevice() string { return s.state("boot") }

// SetPowerOutOfBand changes the host's power state behind the BMC client's back (drift).
func (s *IPMISim) SetPowerOutOfBand(on bool) {
	v := "0"
	if on {
		v = "1"
	}
	_ = os.WriteFile(filepath.Join(s.Dir, "power.tmp"), []byte(v+"\n"), 0o600)
	_ = os.Rename(filepath.Join(s.Dir, "power.tmp"), filepath.Join(s.Dir, "power"))
}

// ChassisCalls returns the chassis_control invocations so far, one per line ("0x20 set power 1").
func (s *IPMISim) ChassisCalls() []string {
	out := s.state("chassis.log")
	if out == "" {
		return nil
	}
	return strings.Split(out, "\n")
}

// Addr is host:port.
func (s *IPMISim) Addr() string { return fmt.Sprintf("%s:%d", s.Endpoint, s.Port) }
