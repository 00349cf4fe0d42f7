package remote

import "testing"

func TestSplitHost(t *testing.T) {
	cases := []struct {
		in      string
		host    string
		port    int
		wantErr string
	}{
		{"gpu001.mgmt.example", "gpu001.mgmt.example", 0, ""},
		{"  10.0.0.11  ", "10.0.0.11", 0, ""},
		{"10.0.0.11:2222", "10.0.0.11", 2222, ""},
		{"[fd00::11]:2222", "fd00::11", 2222, ""},
		{"fd00::11", "fd00::11", 0, ""},
		{"", "", 0, "ssh_host is empty"},
		{"   ", "", 0, "ssh_host is empty"},
		{"10.0.0.11:0", "", 0, `ssh_host "10.0.0.11:0": port "0" is not a number from 1 to 65535`},
		{"10.0.0.11:65536", "", 0, `ssh_host "10.0.0.11:65536": port "65536" is not a number from 1 to 65535`},
		{"10.0.0.11:ssh", "", 0, `ssh_host "10.0.0.11:ssh": port "ssh" is not a number from 1 to 65535`},
		{":22", "", 0, `ssh_host ":22" has no host`},
		{"[fd00::11]", "", 0, `ssh_host "[fd00::11]": want host, host:port or [ipv6]:port`},
	}
	for _, c := range cases {
		h, p, err := SplitHost(c.in)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if h != c.host || p != c.port || got != c.wantErr {
			t.Errorf("SplitHost(%q) = %q, %d, %q; want %q, %d, %q", c.in, h, p, got, c.host, c.port, c.wantErr)
		}
	}
}

func TestEndpointKey(t *testing.T) {
	cases := []struct {
		in, key, shown string
		ok             bool
	}{
		{"SM1.Example.", "sm1.example:22", "host sm1.example, port 22", true},
		{"sm1.example:22", "sm1.example:22", "host sm1.example, port 22", true},
		{"sm1.example:2222", "sm1.example:2222", "host sm1.example, port 2222", true},
		{"fd00:0:0::11", "[fd00::11]:22", "host fd00::11, port 22", true},
		{"[FD00::11]:22", "[fd00::11]:22", "host fd00::11, port 22", true},
		{"10.0.0.5", "10.0.0.5:22", "host 10.0.0.5, port 22", true},
		{"", "", "", false},
		{"h:99999", "", "", false},
	}
	for _, c := range cases {
		key, shown, ok := EndpointKey(c.in, 22)
		if key != c.key || shown != c.shown || ok != c.ok {
			t.Errorf("EndpointKey(%q) = %q, %q, %v; want %q, %q, %v", c.in, key, shown, ok, c.key, c.shown, c.ok)
		}
	}
}

func TestHostREs(t *testing.T) {
	cases := []struct {
		in             string
		host, hostPort bool
	}{
		{"gpu001.mgmt.example", true, true},
		{"10.0.0.11", true, true},
		{"10.0.0.11:2222", true, true},
		{"fd00::11", true, true},
		{"[fd00::11]:2222", false, true},
		{"[fd00::11]", false, false},
		{"-oProxyCommand=x", false, false},
		{"host name", false, false},
		{"h;reboot", false, false},
		{"", false, false},
	}
	for _, c := range cases {
		if got := HostRE.MatchString(c.in); got != c.host {
			t.Errorf("HostRE(%q) = %v", c.in, got)
		}
		if got := HostPortRE.MatchString(c.in); got != c.hostPort {
			t.Errorf("HostPortRE(%q) = %v", c.in, got)
		}
	}
}
