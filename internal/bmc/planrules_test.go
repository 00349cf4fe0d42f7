package bmc

import (
	"strings"
	"testing"
)

func TestPlanRules(t *testing.T) {
	cases := []struct {
		name, got, want string
	}{
		{"16 bytes over IPMI", CheckUserName("abcdefghijklmnop", nil), ""},
		{"17 bytes, default protocols", CheckUserName("abcdefghijklmnopq", nil), "is 17 bytes, but IPMI carries at most 16"},
		{"17 bytes, IPMI listed", CheckUserName("abcdefghijklmnopq", []string{"redfish", "ipmi"}), "shorten the name to 16 bytes"},
		{"17 bytes, Redfish only", CheckUserName("abcdefghijklmnopq", []string{"redfish"}), ""},
		{"endpoint port only", CheckEndpointPort("10.0.0.5:9623", 0), ""},
		{"same port twice", CheckEndpointPort("10.0.0.5:9623", 9623), ""},
		{"port only", CheckEndpointPort("10.0.0.5", 9624), ""},
		{"conflict", CheckEndpointPort("10.0.0.5:9623", 9624), `remove ":9623" from endpoint (endpoint = "10.0.0.5") to use port 9624, or remove port to use 9623`},
		{"conflict https", CheckEndpointPort("https://bmc.example:8443/", 443), `names port 8443 but bmc.port is 443`},
		{"conflict v6", CheckEndpointPort("[fd00::5]:9623", 9624), `endpoint = "[fd00::5]"`},
		{"login demoted", CheckLoginAccount("admin", "admin", "ReadOnly"), `"admin" is the account the provider logs in with to this BMC, and role "ReadOnly" would lock the provider out`},
		{"login to Operator", CheckLoginAccount("admin", "admin", "Operator"), `role "Operator" would lock the provider out`},
		{"login disabled", CheckLoginAccount("admin", "admin", "None"), `role "None" (no access: the account disabled)`},
		{"login kept Administrator", CheckLoginAccount("admin", "admin", "Administrator"), ""},
		{"another account demoted", CheckLoginAccount("admin", "ops", "ReadOnly"), ""},
		{"names compare exactly", CheckLoginAccount("admin", "Admin", "ReadOnly"), ""},
		{"login unknown", CheckLoginAccount("", "admin", "ReadOnly"), ""},
		{"403 after login", LockoutAdvice("admin", true, true), `The BMC accepted the provider's login "admin" but refused the operation: the account's role is too low`},
		{"401 after it worked", LockoutAdvice("admin", false, true), `The BMC refused the provider's login "admin", which it accepted before`},
		{"401, never worked", LockoutAdvice("admin", false, false), ""},
	}
	for _, c := range cases {
		if (c.want == "") != (c.got == "") || !strings.Contains(c.got, c.want) {
			t.Errorf("%s: got %q, want %q", c.name, c.got, c.want)
		}
	}
	if EndpointPort("bmc01") != 0 || EndpointPort("HTTPS://bmc01:444") != 444 {
		t.Error("EndpointPort")
	}
}

func TestFirmwarePlanRules(t *testing.T) {
	if CheckFirmwareProtocols(nil) != "" || CheckFirmwareProtocols([]string{"ipmi", "redfish"}) != "" {
		t.Fatal("Redfish allowed, but firmware refused")
	}
	if msg := CheckFirmwareProtocols([]string{"ipmi"}); !strings.Contains(msg, "add \"redfish\" to bmc.protocols or remove firmware") {
		t.Fatalf("IPMI only: %q", msg)
	}
	for _, tc := range []struct {
		want, running  string
		image, refused bool
	}{
		{"2", "1", false, true}, {"2", "1", true, false}, {"1", "1", false, false}, {"2", "", false, false},
	} {
		if got := CheckFirmwareImage("bmc", tc.want, tc.running, tc.image) != ""; got != tc.refused {
			t.Errorf("%+v: refused=%t", tc, got)
		}
	}
	if msg := CheckFirmwareImage("bios", "1.7.0", "1.6.7", false); !strings.Contains(msg, `firmware.bios = "1.6.7"`) || !strings.Contains(msg, "images.bios") {
		t.Fatalf("message: %q", msg)
	}
}
