package bmc

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestHintAndUnreachable(t *testing.T) {
	e := func(kind error, timedOut bool) error {
		return &Error{Endpoint: "10.0.0.5:443", Protocol: "redfish", Op: "read", Kind: kind, TimedOut: timedOut}
	}
	cases := []struct {
		name        string
		err         error
		wantHint    string // a part of the hint
		unreachable bool
	}{
		{"auth", e(ErrAuth, false), "check bmc.username and bmc.password on the node", false},
		{"tls", e(ErrTLS, false), "give the CA that signed it in bmc.tls_ca_pem", false},
		{"unreachable", e(ErrUnreachable, false), "each call is bounded by 20s and by the node's timeouts", true},
		{"timed out", e(ErrFailed, true), "The BMC did not answer (each call is bounded by 20s", false},
		{"bare deadline", context.DeadlineExceeded, "The BMC did not answer", false},
		{"wrapped unreachable", fmt.Errorf("power on: %w", e(ErrUnreachable, true)), "The BMC did not answer", true},
		{"not supported", e(ErrNotSupported, false), "BIOS settings need Redfish; IPMI knows only pxe, disk, cdrom, bios and none", false},
		{"rejected", e(ErrRejected, false), "the BMC's message is above.", false},
		{"invalid", e(ErrInvalid, false), "fix the attribute named above.", false},
		{"failed", e(ErrFailed, false), "See the BMC's message above.", false},
		{"foreign", errors.New("boom"), "See the BMC's message above.", false},
		{"unreachable and auth", errors.Join(ErrUnreachable, ErrAuth), "check bmc.username", false},
		{"unreachable and tls", errors.Join(ErrUnreachable, ErrTLS), "bmc.tls_ca_pem", false},
	}
	for _, c := range cases {
		if got := Hint(c.err, 20*time.Second); !strings.Contains(got, c.wantHint) {
			t.Errorf("%s: Hint = %q, want it to contain %q", c.name, got, c.wantHint)
		}
		if got := Unreachable(c.err); got != c.unreachable {
			t.Errorf("%s: Unreachable = %v, want %v", c.name, got, c.unreachable)
		}
	}
}

func TestCheckBIOSProtocols(t *testing.T) {
	cases := []struct {
		protos []string
		refuse bool
	}{
		{nil, false},
		{[]string{}, false},
		{[]string{"redfish"}, false},
		{[]string{"ipmi", "redfish"}, false},
		{[]string{"ipmi"}, true},
	}
	for _, c := range cases {
		got := CheckBIOSProtocols(c.protos)
		if (got != "") != c.refuse {
			t.Errorf("CheckBIOSProtocols(%q) = %q, want refusal %v", c.protos, got, c.refuse)
		}
		if c.refuse && got != `bios_settings are set through Redfish, but bmc.protocols allows only IPMI, which has no BIOS settings; add "redfish" to bmc.protocols or remove bios_settings` {
			t.Errorf("CheckBIOSProtocols(%q) = %q", c.protos, got)
		}
	}
}

func TestDuplicateUsers(t *testing.T) {
	cases := []struct {
		name  string
		names []string
		known []bool
		want  map[int]string
	}{
		{"none", nil, nil, map[int]string{}},
		{"distinct", []string{"ops", "admin"}, []bool{true, true}, map[int]string{}},
		{"twice", []string{"ops", "admin", "ops"}, []bool{true, true, true},
			map[int]string{2: `bmc_users lists the account "ops" twice; list each account once`}},
		{"three times", []string{"a", "a", "a"}, []bool{true, true, true}, map[int]string{
			1: `bmc_users lists the account "a" twice; list each account once`,
			2: `bmc_users lists the account "a" twice; list each account once`}},
		{"unknown skipped", []string{"", "ops", ""}, []bool{false, true, false}, map[int]string{}},
		{"unknown first", []string{"ops", "ops"}, []bool{false, true}, map[int]string{}},
		{"case matters", []string{"Ops", "ops"}, []bool{true, true}, map[int]string{}},
	}
	for _, c := range cases {
		if got := DuplicateUsers(c.names, c.known); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: DuplicateUsers = %v, want %v", c.name, got, c.want)
		}
	}
}

// TestFailure: the summary names the node and the step; the detail the node, the BMC's error
// without a doubled full stop, and the hint, which for a refused login that worked before is the
// lockout advice instead.
func TestFailure(t *testing.T) {
	cfg := Config{Username: "admin", Timeout: 20 * time.Second}
	auth := &Error{Endpoint: "10.0.0.5:443", Protocol: "redfish", Op: "read", Kind: ErrAuth}
	summary, detail := Failure("gpu001", "read its state", auth, cfg, false, false)
	if summary != "Node gpu001: cannot read its state through its BMC" {
		t.Errorf("summary %q", summary)
	}
	if !strings.HasPrefix(detail, `Node "gpu001": `+strings.TrimSuffix(auth.Error(), ".")+".\n\n") || !strings.Contains(detail, "check bmc.username and bmc.password") {
		t.Errorf("detail %q", detail)
	}
	if _, detail := Failure("gpu001", "read its state", auth, cfg, false, true); !strings.Contains(detail, `The BMC refused the provider's login "admin", which it accepted before`) {
		t.Errorf("lockout detail %q", detail)
	}
	down := &Error{Endpoint: "10.0.0.5:443", Protocol: "redfish", Op: "read", Kind: ErrUnreachable}
	if _, detail := Failure("gpu001", "read its state", down, cfg, false, true); !strings.Contains(detail, "bounded by 20s") {
		t.Errorf("unreachable detail %q", detail)
	}
}

// TestWithDefaultsAndMissingLogin: the node's own login wins over the defaults, the timeout is
// the shorter of the default and the operation's, and a missing user name is reported before a
// missing password.
func TestWithDefaultsAndMissingLogin(t *testing.T) {
	c := Config{Endpoint: "10.0.0.5", Username: "node"}.WithDefaults("prov", "pw", time.Minute)
	if c.Username != "node" || c.Password != "pw" || c.Timeout != DefaultTimeout {
		t.Errorf("defaults: %+v", c)
	}
	if c := (Config{}).WithDefaults("", "", 5*time.Second); c.Timeout != 5*time.Second {
		t.Errorf("short operation: timeout %s", c.Timeout)
	}
	if f, _, _ := c.MissingLogin("gpu001"); f != "" {
		t.Errorf("complete login reported missing %q", f)
	}
	f, s, d := Config{Endpoint: "10.0.0.5"}.MissingLogin("gpu001")
	if f != "username" || s != "No BMC user name" || !strings.Contains(d, `Node "gpu001" has a BMC at 10.0.0.5 but no user name`) {
		t.Errorf("no user: %q %q %q", f, s, d)
	}
	f, _, d = Config{Endpoint: "10.0.0.5", Username: "ops"}.MissingLogin("gpu001")
	if f != "password" || !strings.Contains(d, `no password for "ops"`) {
		t.Errorf("no password: %q %q", f, d)
	}
}

// TestCheckResetAfterBIOS: a reset with nothing pending is refused; none, unset, or BIOS
// settings to apply pass.
func TestCheckResetAfterBIOS(t *testing.T) {
	if msg := CheckResetAfterBIOS(ResetForce, false); !strings.Contains(msg, `reset_after_bios = "force" restarts the host for pending bios_settings, but the node has none`) {
		t.Errorf("force without BIOS: %q", msg)
	}
	for _, c := range []struct {
		reset string
		bios  bool
	}{{ResetNone, false}, {"", false}, {ResetGraceful, true}} {
		if msg := CheckResetAfterBIOS(c.reset, c.bios); msg != "" {
			t.Errorf("%q, bios %t: %q", c.reset, c.bios, msg)
		}
	}
	if msg := CheckWithoutBMC("boot_device"); !strings.HasPrefix(msg, "boot_device is set through the node's BMC") {
		t.Errorf("without BMC: %q", msg)
	}
}
