package remote

import (
	"context"
	"reflect"
	"strings"
	"testing"
)

// TestConfigMissing: each field a Config needs to dial is named when it is absent (a key of
// blanks is no key), in a fixed order, and Dial refuses such a Config before it connects.
func TestConfigMissing(t *testing.T) {
	full := Config{Host: "sm01", User: "root", PrivateKeyPEM: "-----BEGIN KEY-----", KnownHostsFile: "/k"}
	if m := full.Missing(); m != nil {
		t.Errorf("a complete Config misses %q", m)
	}
	kh := "known_hosts_file (host keys are always checked)"
	for _, c := range []struct {
		cfg  Config
		want []string
	}{
		{Config{}, []string{"host", "user", "private_key", kh}},
		{Config{Host: "sm01", User: "root", PrivateKeyPEM: " \n\t"}, []string{"private_key", kh}},
		{Config{Host: "sm01", PrivateKeyPEM: "k", KnownHostsFile: "/k"}, []string{"user"}},
	} {
		if got := c.cfg.Missing(); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%v.Missing() = %q, want %q", c.cfg, got, c.want)
		}
		if _, err := Dial(context.Background(), c.cfg); err == nil || !strings.Contains(err.Error(), "is missing: "+strings.Join(c.want, ", ")) {
			t.Errorf("Dial(%v) = %v; want it to name %q", c.cfg, err, c.want)
		}
	}
}
