package bmc

import "testing"

func TestDecidePower(t *testing.T) {
	const where = "10.0.0.5:443 over redfish"
	cases := []struct {
		current, op string
		want        PowerStep
		msg         string
	}{
		{"on", "on", PowerNothing, ""},
		{"off", "off", PowerNothing, ""},
		{"off", "on", PowerSet, ""},
		{"on", "off", PowerSet, ""},
		{"", "on", PowerSet, ""},
		{"on", "graceful_restart", PowerRestart, ""},
		{"on", "power_cycle", PowerRestart, ""},
		{"off", "force_restart", PowerRefused, `the BMC (10.0.0.5:443 over redfish) reports the host off, and force_restart restarts a running host. Use power = "on" to start it.`},
		{"", "graceful_restart", PowerRefused, `the BMC (10.0.0.5:443 over redfish) reports the host off, and graceful_restart restarts a running host. Use power = "on" to start it.`},
	}
	for _, c := range cases {
		got, msg := DecidePower(c.current, c.op, where)
		if got != c.want || msg != c.msg {
			t.Errorf("DecidePower(%q, %q) = %d, %q; want %d, %q", c.current, c.op, got, msg, c.want, c.msg)
		}
	}
}
