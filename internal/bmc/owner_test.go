package bmc

import "testing"

// A BMC claimed by one node is that node's under every spelling of its endpoint that reaches the
// same host and port, the last claim wins, and another BMC (another port on the same host, as
// rigs on 127.0.0.1 are) is not claimed by it.
func TestOwners(t *testing.T) {
	var o Owners
	cfg := func(ep string, port int) Config {
		return Config{Endpoint: ep, Port: port, Username: "u", Protocols: []string{ProtocolRedfish}}
	}
	if _, _, known := o.Owner(cfg("bmc1", 0)); known {
		t.Fatal("an empty registry knows a BMC")
	}
	o.Claim(cfg("https://BMC1.example:8443/", 0), "gpu001")
	for _, c := range []Config{cfg("bmc1.example:8443", 0), cfg("bmc1.example", 8443), cfg("https://bmc1.example:8443", 0)} {
		if key, node, known := o.Owner(c); !known || node != "gpu001" || key != "bmc1.example:8443" {
			t.Errorf("%+v: %q %q %v", c.Endpoint, key, node, known)
		}
	}
	if _, node, known := o.Owner(cfg("bmc1.example", 0)); known {
		t.Errorf("port 443 is another BMC than 8443, yet owned by %q", node)
	}
	o.Claim(cfg("bmc1.example:8443", 0), "gpu002")
	if _, node, _ := o.Owner(cfg("bmc1.example:8443", 0)); node != "gpu002" {
		t.Errorf("the last claim is %q", node)
	}
	o.Claim(Config{Endpoint: "http://plain", Username: "u"}, "gpu003")
	if key, _, known := o.Owner(Config{Endpoint: "http://plain", Username: "u"}); known || key != "http://plain" {
		t.Errorf("an endpoint that does not normalize: %q %v", key, known)
	}
}
