package opensm

import (
	"errors"
	"strings"
	"testing"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
)

func baseConfig() Config {
	return Config{
		RoutingEngine: "ftree",
		Roots:         []GUID{0x0002c90300001001, 0x0002c90300001002},
		ComputeNodes:  []GUID{0x0002c90300100001, 0x0002c90300100011},
		NodeNames:     []NodeName{{0x0002c90300001001, "spine01"}, {0x0002c90300100001, "gpu001 mlx5_0"}},
		Partitions: []Partition{{Name: "compute", PKey: 1, IPoIB: true, MTU: 4096, RateGbps: 400, Members: []Member{
			{GUID: 0x0002c90300100001, Membership: Full}, {Keyword: "SELF", Membership: Full},
		}}},
		Options: map[string]string{"sweep_interval": "15"},
	}
}

// fieldErrors returns the FieldErrors of err keyed by Field, checking that Field says where At is.
func fieldErrors(t *testing.T, err error) map[string]*FieldError {
	t.Helper()
	var errs Errors
	if !errors.As(err, &errs) {
		t.Fatalf("error %v is not an Errors list", err)
	}
	out := map[string]*FieldError{}
	for _, e := range errs {
		// Field is only the text of At, which the provider maps to its attribute path.
		if got := e.At.String(); got != e.Field {
			t.Errorf("FieldError %q is located at %q", e.Field, got)
		}
		out[e.Field] = e
	}
	return out
}

func TestRenderValidationErrors(t *testing.T) {
	cases := []struct {
		name          string
		mutate        func(*Config)
		field, option string
		want          string
	}{
		{"lmc with ftree", func(c *Config) { c.LMC = 1 }, "lmc", "lmc", "silently routes with the fallback"},
		{"lmc with lash", func(c *Config) { c.RoutingEngine = "lash"; c.Options["qos"] = "TRUE"; c.LMC = 2 }, "lmc", "lmc", "lash does not support LMC > 0"},
		{"lmc out of range", func(c *Config) { c.RoutingEngine = "minhop"; c.LMC = 8 }, "lmc", "lmc", "0-7"},
		{"unknown option key", func(c *Config) { c.Options["sweep_intervall"] = "10" }, "options.sweep_intervall", "sweep_intervall", "Unrecognized token"},
		{"managed option", func(c *Config) { c.Options["routing_engine"] = "updn" }, "options.routing_engine", "routing_engine", "written by the provider"},
		{"lower-case boolean", func(c *Config) { c.Options["qos"] = "true" }, "options.qos", "qos", "TRUE or FALSE"},
		{"bad engine", func(c *Config) { c.RoutingEngine = "fat-tree" }, "routing_engine", "routing_engine", "unknown routing engine"},
		{"engine needing qos", func(c *Config) { c.RoutingEngine = "torus-2QoS" }, "routing_engine", "qos", "needs QoS"},
		{"torus without its description", func(c *Config) { c.RoutingEngine = "torus-2QoS,no_fallback" }, "options.torus_config", "torus_config", "ERR 4E11"},
		{"pkey zero", func(c *Config) { c.Partitions[0].PKey = 0 }, "partitions[0].pkey", "", "out of range"},
		{"pkey default", func(c *Config) { c.Partitions[0].PKey = 0x7fff }, "partitions[0].pkey", "", "out of range"},
		{"duplicate pkey", func(c *Config) {
			c.Partitions = append(c.Partitions, Partition{Name: "other", PKey: 1, Members: []Member{{Keyword: "ALL", Membership: Limited}}})
		}, "partitions[1].pkey", "", "already used by partitions[0]"},
		{"duplicate name", func(c *Config) {
			c.Partitions = append(c.Partitions, Partition{Name: "compute", PKey: 2})
		}, "partitions[1].name", "", "already used"},
		{"name read as pkey", func(c *Config) { c.Partitions[0].Name = "1st" }, "partitions[0].name", "", "starts with a digit, which OpenSM reads as a P_Key"},
		{"name with comma", func(c *Config) { c.Partitions[0].Name = "a,b" }, "partitions[0].name", "", "holds ',' at position 2, which separates flags and members"},
		{"name Default", func(c *Config) { c.Partitions[0].Name = "default" }, "partitions[0].name", "", "always writes"},
		{"bad mtu", func(c *Config) { c.Partitions[0].MTU = 9000 }, "partitions[0].mtu", "", "not an InfiniBand MTU"},
		{"bad rate", func(c *Config) { c.Partitions[0].RateGbps = 450 }, "partitions[0].rate", "", "no IBTA rate code"},
		{"mtu without ipoib", func(c *Config) { c.Partitions[0].IPoIB = false }, "partitions[0].ipoib", "", "only with ipoib"},
		{"sl without qos", func(c *Config) { c.Partitions[0].SL = 3 }, "partitions[0].sl", "qos", "overrides every partition SL"},
		{"bad keyword", func(c *Config) { c.Partitions[0].Members[1].Keyword = "EVERYONE" }, "partitions[0].members[1].guid", "", "not an OpenSM port keyword"},
		{"bad membership", func(c *Config) { c.Partitions[0].Members[0].Membership = "both" }, "partitions[0].members[0].membership", "", `must be "full" (talks to every member) or "limited"`},
		{"duplicate member", func(c *Config) {
			c.Partitions[0].Members = append(c.Partitions[0].Members, Member{GUID: 0x0002c90300100001, Membership: Limited})
		}, "partitions[0].members[2].guid", "", "already a member"},
		{"duplicate root", func(c *Config) { c.Roots = append(c.Roots, c.Roots[0]) }, "roots[2]", "", "listed twice"},
		{"quote in node name", func(c *Config) { c.NodeNames[0].Name = `sp"ine` }, "node_names[0]", "node_name_map_name", "no '\"'"},
		{"relative config dir", func(c *Config) { c.Paths.ConfigDir = "etc/opensm" }, "config_dir", "", "absolute"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := baseConfig()
			c.mutate(&cfg)
			files, err := Render(cfg)
			if err == nil {
				t.Fatalf("Render accepted it:\n%s", files[FileOpenSMConf])
			}
			fe, ok := fieldErrors(t, err)[c.field]
			if !ok {
				t.Fatalf("no error on %s; got %v", c.field, err)
			}
			if fe.Option != c.option || !strings.Contains(fe.Message, c.want) {
				t.Fatalf("error on %s = {option %q, %q}; want option %q and %q", c.field, fe.Option, fe.Message, c.option, c.want)
			}
		})
	}
}

func TestRenderDeterministic(t *testing.T) {
	cfg := baseConfig()
	for k, v := range map[string]string{"sm_priority": "14", "qos": "TRUE", "log_flags": "0x03", "sweep_interval": "15", "connect_roots": "FALSE"} {
		cfg.Options[k] = v
	}
	first, err := Render(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 20; i++ {
		again, _ := Render(cfg)
		for _, n := range FileNames {
			if again[n] != first[n] {
				t.Fatalf("%s differs between renders of the same config", n)
			}
		}
	}
	want := `routing_engine ftree
lmc 0
root_guid_file /etc/opensm/root_guids.conf
cn_guid_file /etc/opensm/cn_guids.conf
partition_config_file /etc/opensm/partitions.conf
node_name_map_name /etc/opensm/node-name-map
connect_roots FALSE
log_flags 0x03
qos TRUE
sm_priority 14
sweep_interval 15
`
	if !strings.HasSuffix(first[FileOpenSMConf], want) {
		t.Errorf("opensm.conf:\n%s\nwant it to end with:\n%s", first[FileOpenSMConf], want)
	}
	if len(first) != len(FileNames) {
		t.Errorf("Render wrote %d files, want %d", len(first), len(FileNames))
	}
	if !strings.Contains(first[FileRootGUIDs], "\n0x0002c90300001001\n0x0002c90300001002\n") {
		t.Errorf("root file:\n%s", first[FileRootGUIDs])
	}
	if !strings.Contains(first[FileNodeNameMap], "0x0002c90300100001 \"gpu001 mlx5_0\"\n") {
		t.Errorf("node name map:\n%s", first[FileNodeNameMap])
	}
	// The option file parses back to what was rendered.
	opts := ParseOptionFile(first[FileOpenSMConf])
	if opts["routing_engine"] != "ftree" || opts["sm_priority"] != "14" || opts["partition_config_file"] != "/etc/opensm/partitions.conf" {
		t.Errorf("ParseOptionFile: %v", opts)
	}
}

func TestRenderPathsAndDefaultMembership(t *testing.T) {
	cfg := baseConfig()
	cfg.Roots, cfg.ComputeNodes = nil, nil
	cfg.RoutingEngine = "minhop"
	cfg.Paths.ConfigDir = "/srv/sm"
	cfg.DefaultMembership = Limited
	f, err := Render(cfg)
	if err != nil {
		t.Fatal(err)
	}
	conf := f[FileOpenSMConf]
	if strings.Contains(conf, "root_guid_file") || strings.Contains(conf, "cn_guid_file") {
		t.Errorf("no roots or CNs, yet the files are referenced:\n%s", conf)
	}
	if !strings.Contains(conf, "partition_config_file /srv/sm/partitions.conf\n") {
		t.Errorf("paths do not follow ConfigDir:\n%s", conf)
	}
	if !strings.Contains(f[FilePartitions], "Default=0x7fff,ipoib : ALL=limited, SELF=full ;\n") {
		t.Errorf("limited default partition:\n%s", f[FilePartitions])
	}
}

// TestFromGraphErrors checks that errors about the graph name the fabric attribute.
func TestFromGraphErrors(t *testing.T) {
	spec := fatTreeSpec(2, 2, 4)
	spec.Switches[0].GUID = ""                // spine01: top tier without GUID
	spec.HCAs[3].PortGUID = "0x2c90300100001" // same as HCA 0
	spec.HCAs[5].PortGUID = "zz"
	spec.HCAs[6].PortGUID = ""
	spec.Partitions = []fabric.Partition{
		{Name: "p", PKey: "0x8001", Members: []fabric.Member{{HCA: "gpu001/mlx5_0", Membership: Full}}},
		{Name: "q", PKey: "two", Members: []fabric.Member{{HCA: "gpu001/mlx5_6", Membership: Full}, {GUID: "0x0", Membership: Full}}},
	}
	// fabric.Build refuses the malformed GUIDs and P_Keys itself (attrs.go); FromGraph still
	// names them for a graph built regardless.
	g, _ := fabric.Build(spec, catalog.Default())
	_, err := FromGraph(g, GraphOptions{})
	fe := fieldErrors(t, err)
	for field, want := range map[string]string{
		"switches[0].guid":              "has no GUID",
		"hcas[3].port_guid":             "already the GUID of gpu001/mlx5_0",
		"hcas[5].port_guid":             "write it as 0x",
		"partitions[0].pkey":            "membership bit",
		"partitions[1].pkey":            "not a number",
		"partitions[1].members[0].hca":  "has no port GUID",
		"hcas[6].port_guid":             "cn_guid_file must list every compute HCA",
		"partitions[1].members[1].guid": "zero",
	} {
		e, ok := fe[field]
		if !ok || !strings.Contains(e.Message, want) {
			t.Errorf("%s: got %v, want a message with %q", field, e, want)
		}
	}
}
