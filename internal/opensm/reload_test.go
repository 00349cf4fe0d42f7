package opensm

import (
	"strings"
	"testing"
)

func TestReload(t *testing.T) {
	render := func(mut func(*Config)) Files {
		c := baseConfig()
		c.Options = map[string]string{"sweep_interval": "15"}
		if mut != nil {
			mut(&c)
		}
		f, err := Render(c)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	old := render(nil)
	cases := []struct {
		name   string
		mut    func(*Config)
		action Action
		reason string
	}{
		{"nothing", nil, ActionNone, ""},
		{"partition member added", func(c *Config) {
			c.Partitions[0].Members = append(c.Partitions[0].Members, Member{GUID: 0x42, Membership: Limited})
		}, ActionSIGHUP, "partitions.conf changed"},
		{"partition added", func(c *Config) {
			c.Partitions = append(c.Partitions, Partition{Name: "new", PKey: 9})
		}, ActionSIGHUP, "partitions.conf"},
		{"root file contents", func(c *Config) { c.Roots = c.Roots[:1] }, ActionSIGHUP, "root GUID file changed"},
		{"cn file contents", func(c *Config) { c.ComputeNodes = c.ComputeNodes[:1] }, ActionSIGHUP, "compute-node GUID file"},
		{"hot option changed", func(c *Config) { c.Options["sweep_interval"] = "30" }, ActionSIGHUP, "sweep_interval changed 15 -> 30"},
		{"hot option added", func(c *Config) { c.Options["sm_priority"] = "12" }, ActionSIGHUP, "sm_priority added"},
		{"hot option removed", func(c *Config) { delete(c.Options, "sweep_interval") }, ActionRestart, "sweep_interval removed"},
		{"routing engine", func(c *Config) { c.RoutingEngine = "updn" }, ActionRestart, "routing_engine changed ftree -> updn"},
		{"lmc", func(c *Config) { c.RoutingEngine = "updn"; c.LMC = 1 }, ActionRestart, "lmc changed 0 -> 1"},
		{"file path", func(c *Config) { c.Paths.ConfigDir = "/srv/opensm" }, ActionRestart, "partition_config_file changed"},
		{"root file dropped", func(c *Config) { c.Roots = nil }, ActionRestart, "root_guid_file removed"},
		{"cold option", func(c *Config) { c.Options["max_reverse_hops"] = "1" }, ActionRestart, "max_reverse_hops added"},
		{"partitions and engine", func(c *Config) {
			c.RoutingEngine = "updn"
			c.Partitions[0].PKey = 5
		}, ActionRestart, "partitions.conf changed"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := Reload(old, render(c.mut))
			if d.Action != c.action {
				t.Fatalf("action %v, want %v; reasons %v", d.Action, c.action, d.Reasons)
			}
			if c.reason != "" && !strings.Contains(strings.Join(d.Reasons, "\n"), c.reason) {
				t.Fatalf("reasons %v lack %q", d.Reasons, c.reason)
			}
			if c.action == ActionNone && len(d.Reasons) != 0 {
				t.Fatalf("no change but reasons %v", d.Reasons)
			}
		})
	}
	t.Run("node names only", func(t *testing.T) {
		d := Reload(old, render(func(c *Config) { c.NodeNames[0].Name = "spine-a" }))
		if d.Action != ActionNone || len(d.Deferred) != 1 {
			t.Fatalf("node-name-map change: %v, deferred %v", d.Action, d.Deferred)
		}
	})
	t.Run("first push", func(t *testing.T) {
		if d := Reload(nil, old); d.Action != ActionRestart {
			t.Fatalf("first push: %v", d.Action)
		}
	})
	t.Run("hand-edited comments", func(t *testing.T) {
		edited := Files{}
		for k, v := range old {
			edited[k] = v
		}
		edited[FileOpenSMConf] = "# edited by hand\n" + strings.ReplaceAll(old[FileOpenSMConf], "lmc 0", "lmc   0   # same")
		if d := Reload(edited, old); d.Action != ActionNone {
			t.Fatalf("comment and blank changes: %v %v", d.Action, d.Reasons)
		}
	})
}
