package opensm

import (
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/testrig"
)

// TestOptionTableMatchesInstalledOpenSM compares the option keys the package knows with the
// full option file the installed OpenSM writes with `opensm -c`: every key it writes must be
// known, and every known key but the documented alias must be one it writes.
func TestOptionTableMatchesInstalledOpenSM(t *testing.T) {
	testrig.RequirePeers(t)
	testrig.Need(t, "opensm", "opensm")
	out := filepath.Join(t.TempDir(), "default.conf")
	cmd := exec.Command("opensm", "-c", out)
	cmd.Dir = t.TempDir()
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("opensm -c: %v\n%s", err, b)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	dumped := ParseOptionFile(string(b))
	var unknown, notDumped []string
	for k := range dumped {
		if _, ok := optionTable[k]; !ok {
			unknown = append(unknown, k)
		}
	}
	for k := range optionTable {
		if _, ok := dumped[k]; !ok && k != "dimn_ports_file" { // alias of port_search_ordering_file
			notDumped = append(notDumped, k)
		}
	}
	sort.Strings(unknown)
	sort.Strings(notDumped)
	if len(unknown) > 0 || len(notDumped) > 0 {
		t.Fatalf("option table differs from `opensm -c`: keys OpenSM writes that the table lacks %v; table keys OpenSM does not write %v", unknown, notDumped)
	}
	// Every default value OpenSM writes must pass CheckOption, except "(null)" strings, which
	// mean unset and which the provider never writes.
	for k, v := range dumped {
		if v == "(null)" || v == "" {
			continue
		}
		if err := CheckOption(k, v); err != nil {
			t.Errorf("OpenSM's own default %s %q fails CheckOption: %v", k, v, err)
		}
	}
}

func TestCheckOption(t *testing.T) {
	good := map[string]string{
		"sweep_interval": "15", "sm_priority": "15", "qos": "TRUE", "force_log_flush": "FALSE",
		"guid": "0x0002c90300001001", "log_prefix": "sm01 primary", "qos_high_limit": "-1",
		"qos_vlarb_high": "0:4,1:0", "part_enforce": "both", "max_op_vls": "0x5",
	}
	for k, v := range good {
		if err := CheckOption(k, v); err != nil {
			t.Errorf("CheckOption(%s, %q) = %v, want nil", k, v, err)
		}
	}
	bad := []struct{ key, value, want string }{
		{"sweep_intervall", "10", "no option"},
		{"qos", "true", "TRUE or FALSE"},
		{"sweep_interval", "ten", "unsigned 32-bit"},
		{"sm_priority", "300", "unsigned 8-bit"},
		{"sm_priority", "16", "0-15"},
		{"log_prefix", "a # b", "comment"},
		{"log_prefix", "a\nb", "single line"},
		{"sweep_interval", " ", "empty"},
		{"part_enforce", "yes", "both, in, out or off"},
		{"qos_high_limit", "x", "signed 32-bit"},
	}
	for _, c := range bad {
		err := CheckOption(c.key, c.value)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("CheckOption(%s, %q) = %v, want an error containing %q", c.key, c.value, err, c.want)
		}
	}
}

func TestParseEngines(t *testing.T) {
	e, nf, err := ParseEngines("updn, minhop")
	if err != nil || strings.Join(e, ",") != "updn,minhop" || nf {
		t.Errorf("updn,minhop -> %v %v %v", e, nf, err)
	}
	e, nf, err = ParseEngines("torus-2QoS,no_fallback")
	if err != nil || strings.Join(e, ",") != "torus-2QoS" || !nf {
		t.Errorf("torus-2QoS,no_fallback -> %v %v %v", e, nf, err)
	}
	for s, want := range map[string]string{
		"fattree":      "unknown routing engine",
		"torus-2qos":   `write "torus-2QoS"`,
		"ftree,ftree":  "twice",
		"no_fallback":  "names no engine",
		"":             "empty",
		"ftree,,updn":  "empty name",
		"FTREE,minhop": `write "ftree"`,
	} {
		if _, _, err := ParseEngines(s); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseEngines(%q) = %v, want error with %q", s, err, want)
		}
	}
}

func TestHotUpdatable(t *testing.T) {
	for _, k := range []string{"sweep_interval", "sm_priority", "qos", "qos_sl2vl", "part_enforce", "log_flags", "connect_roots"} {
		if !HotUpdatable(k) {
			t.Errorf("%s should be hot-updatable (can_update 1)", k)
		}
	}
	// can_update = 0 in opt_tbl (opensm/osm_subnet.c): these need a restart.
	for _, k := range []string{"guid", "subnet_prefix", "lmc", "lmc_esp0", "routing_engine", "root_guid_file", "cn_guid_file",
		"io_guid_file", "max_reverse_hops", "ids_guid_file", "guid_routing_order_file", "partition_config_file",
		"qos_policy_file", "node_name_map_name", "log_file", "allow_both_pkeys", "use_ucast_cache", "console",
		"console_port", "transaction_timeout", "transaction_retries", "perfmgr", "perfmgr_sweep_time_s",
		"event_plugin_name", "event_plugin_options", "prefix_routes_file", "daemon", "single_thread",
		"avoid_throttled_links", "dump_files_dir", "no_such_option"} {
		if HotUpdatable(k) {
			t.Errorf("%s should need a restart (can_update 0)", k)
		}
	}
}
