package bmc

import (
	"flag"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// Real ipmitool 1.8.19 outputs from ipmi_sim, the seeds of the ipmitool parsers' fuzz target.
const (
	seedUserList = "ID  Name\t     Callin  Link Auth\tIPMI Msg   Channel Priv Limit\n" +
		"1                    true    false      false      Unknown (0x00)\n" +
		"2   admin            true    false      true       ADMINISTRATOR\n" +
		"3   ops              true    true       true       OPERATOR\n" +
		"4   gone             true    false      false      NO ACCESS\n"
	seedBootParam = "Boot parameter version: 1\nBoot parameter 5 is valid/unlocked\nBoot parameter data: 0004000000\n" +
		" Boot Flags :\n   - Boot Flag Invalid\n   - Options apply to only next boot\n   - BIOS PC Compatible (legacy) boot\n" +
		"   - Boot Device Selector : Force PXE\n   - Console Redirection control : System Default\n"
	seedMCInfo  = "Device ID                 : 35\nDevice Revision           : 9\nFirmware Revision         : 9.08\nIPMI Version              : 2.0\n"
	seedSysInfo = "getsysinfo command failed: Invalid command\n"
)

// renderUserList prints users as "ipmitool user list" does (ipmi_user.c dump_user_list).
func renderUserList(users []ipmiUser) string {
	var b strings.Builder
	b.WriteString("ID  Name\t     Callin  Link Auth\tIPMI Msg   Channel Priv Limit\n")
	priv := map[string]string{"Administrator": "ADMINISTRATOR", "Operator": "OPERATOR", "ReadOnly": "USER", "None": "NO ACCESS"}
	for _, u := range users {
		name := u.name
		if len(name) >= 17 {
			name += " " // IPMI names are at most 16 bytes; a longer one must not run into Callin
		}
		fmt.Fprintf(&b, "%-4d%-17s%-8s%-11s%-11s%s\n", u.id, name, "true", "false", map[bool]string{true: "true", false: "false"}[u.ipmiMsg], priv[u.role])
	}
	return b.String()
}

// FuzzIPMIParsers feeds the same text to every parser of ipmitool output (checkIPMIOutput).
//
// The seeds are short pieces of the real outputs, and while fuzzing inputs beyond maxFuzzIPMI
// are skipped: the fuzzer minimizes every input that finds new coverage, trying on the order of
// n^2 candidates for n bytes, and from the 363-byte user table as a seed that took the whole
// budget (issue 22: 1 input a second in 10 s). The whole real outputs and the inputs the fuzzer
// once found (testdata) are judged by TestIPMIParsersOnRealOutputs and the seed run.
func FuzzIPMIParsers(f *testing.F) {
	for _, s := range []string{
		"ID  Name\t     Callin  Link Auth\tIPMI Msg   Channel Priv Limit\n2   admin            true    false      true       ADMINISTRATOR\n",
		"Boot parameter data: 0004000000\n   - Boot Device Selector : Force PXE\n",
		"Firmware Revision         : 9.08\n", seedSysInfo, "1.6.7\n", "", "2 x y z\n10 true true true NO ACCESS",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, out string) {
		if fuzzing() && len(out) > maxFuzzIPMI {
			return
		}
		checkIPMIOutput(t, out)
	})
}

// maxFuzzIPMI bounds the inputs FuzzIPMIParsers fuzzes: a header and a row or two of a table.
const maxFuzzIPMI = 160

// TestIPMIParsersOnRealOutputs judges the real ipmitool outputs whole with FuzzIPMIParsers'
// properties.
func TestIPMIParsersOnRealOutputs(t *testing.T) {
	for _, s := range []string{seedUserList, seedBootParam, seedMCInfo, seedSysInfo} {
		checkIPMIOutput(t, s)
	}
}

// fuzzing tells whether this test binary runs a fuzz target (-test.fuzz) rather than its seeds.
func fuzzing() bool {
	f := flag.Lookup("test.fuzz")
	return f != nil && f.Value.String() != ""
}

// checkIPMIOutput: none of the parsers panics; the boot device is always one name in lower case;
// a field is trimmed text of one line; a system info answer that says the command failed is never
// taken for a value, and a value is printable; a user table read back from its own rendering
// gives the same users, each with a known role and a name without blanks.
func checkIPMIOutput(t *testing.T, out string) {
	t.Helper()
	dev, _, _ := parseBootParam(out)
	if dev == "" && !strings.Contains(out, "Boot Device Selector") || dev != strings.ToLower(dev) {
		t.Fatalf("boot device %q from %q", dev, out)
	}
	for _, name := range []string{"Firmware Revision", "Product Manufacturer", ""} {
		if v := ipmiField(out, name); v != strings.TrimSpace(v) || strings.Contains(v, "\n") {
			t.Fatalf("field %q = %q", name, v)
		}
	}
	v := parseSysInfo(out)
	if strings.Contains(strings.ToLower(v), "command failed") || strings.ContainsAny(v, "\n\r\x00") {
		t.Fatalf("system info %q from %q", v, out)
	}
	if strings.Contains(strings.ToLower(out), "command failed") && v != "" {
		t.Fatalf("a failed getsysinfo read as %q", v)
	}

	users, err := parseUserList(out)
	if err != nil {
		return
	}
	for _, u := range users {
		if !containsString(Roles, u.role) || strings.ContainsAny(u.name, " \t\n") || u.name == "true" || u.name == "false" {
			t.Fatalf("user %+v from %q", u, out)
		}
	}
	again, err := parseUserList(renderUserList(users))
	if err != nil || !reflect.DeepEqual(again, users) {
		t.Fatalf("user table round trip of %q:\n%s\n%+v (%v)\nwant %+v", out, renderUserList(users), again, err, users)
	}
}
