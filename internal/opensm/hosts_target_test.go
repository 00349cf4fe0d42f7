package opensm

import (
	"context"
	"reflect"
	"testing"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/partition"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/testrig"
)

// TestHostsTargetSimulated drives the fabric's OpenSM target, opened through the kind registry
// as the fabric's apply opens it, against OpenSM on the simulated fat tree over real SSH: Apply
// puts on the host exactly the file set Render gives for the configuration (every file, byte for
// byte: the fabric's push before the seam), Remove drops one P_Key, and Restore puts the host
// back as it was before the first push.
func TestHostsTargetSimulated(t *testing.T) {
	testrig.RequirePeers(t)
	g, sim := simFatTree(t)
	site := newSite(t, sim, "127.0.0.1", nil, smHost, sim.Dir)
	ctx := t.Context()
	o := GraphOptions{Paths: Paths{ConfigDir: site.dir}, Options: map[string]string{"log_file": site.log, "force_log_flush": "TRUE"}}
	cfg, err := FromGraph(g, o)
	if err != nil {
		t.Fatal(err)
	}
	before := site.onDisk(t)
	expect := Expect{Engine: "ftree", Roots: 2}
	tg, err := partition.Open(TargetKind, Hosts{
		Names: []string{"127.0.0.1"}, Config: cfg, Expect: expect,
		Open: func(_ context.Context, i int, files Files, e Expect) (Target, func(), error) {
			return site.target(files, e), func() {}, nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := append([]Partition(nil), cfg.Partitions...)
	got, err := tg.Apply(ctx, want, nil)
	if err != nil {
		t.Fatalf("Apply: %v\n%s", err, site.svc.Output())
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Apply returned %+v, want %+v", got, want)
	}
	rendered, err := Render(cfg)
	if err != nil {
		t.Fatal(err)
	}
	disk := site.onDisk(t)
	for name, text := range rendered {
		if disk[name] != text {
			t.Errorf("%s on the host differs from Render's", name)
		}
	}
	ht, ok := tg.(*HostsTarget)
	if !ok {
		t.Fatalf("Open gave a %T", tg)
	}
	if rs := ht.Results; len(rs) != 1 || !rs[0].Written {
		t.Errorf("push results %+v: want one host written", rs)
	}
	if err := tg.Remove(ctx, []uint16{want[0].PKey}); err != nil {
		t.Fatal(err)
	}
	read, err := tg.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(read) != len(want)-1 || read[0].PKey == want[0].PKey {
		t.Errorf("after Remove the host holds %+v", read)
	}
	rest, ok := tg.(partition.Restorer)
	if !ok {
		t.Fatalf("%T is not a partition.Restorer", tg)
	}
	if err := rest.Restore(ctx); err != nil {
		t.Fatalf("Restore: %v", err)
	}
	if after := site.onDisk(t); !reflect.DeepEqual(after, before) {
		t.Errorf("after Restore the host holds %d files, before the first push %d", len(after), len(before))
	}
}
