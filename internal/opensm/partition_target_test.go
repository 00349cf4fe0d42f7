package opensm

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/partition"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/testrig"
)

// TestPartitionTargetSimulated drives the OpenSM partition target over a real SSH connection
// against OpenSM on the simulated fat tree: Apply pushes the file set (the same as a fabric's
// push of that configuration), Read gives back what was declared, a change is applied by
// SIGHUP, and Remove drops one P_Key while Default stays.
func TestPartitionTargetSimulated(t *testing.T) {
	testrig.RequirePeers(t)
	g, sim := simFatTree(t)
	site := newSite(t, sim, "127.0.0.1", nil, smHost, sim.Dir)
	ctx := t.Context()
	o := GraphOptions{Paths: Paths{ConfigDir: site.dir}, Options: map[string]string{"log_file": site.log, "force_log_flush": "TRUE"}}
	cfg, err := FromGraph(g, o)
	if err != nil {
		t.Fatal(err)
	}
	tg := PartitionTarget{Push: site.target(nil, Expect{Engine: "ftree", Roots: 2}), Config: cfg}
	if !slices.Contains(partition.Kinds(), tg.Kind()) {
		t.Fatalf("kind %q is not registered: %v", tg.Kind(), partition.Kinds())
	}
	// Declared: the fabric's own partitions; the rendering must be the fabric push's, byte for byte.
	want := append([]Partition(nil), cfg.Partitions...)
	got, err := tg.Apply(ctx, want, nil)
	if err != nil {
		t.Fatalf("Apply: %v\n%s", err, site.svc.Output())
	}
	rendered, _ := Render(cfg)
	if disk := site.onDisk(t); disk[FilePartitions] != rendered[FilePartitions] {
		t.Errorf("partitions.conf on the host differs from the fabric's rendering")
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Read after Apply =\n%+v\nwant\n%+v", got, want)
	}

	// Add a member to storage: a partitions-only change, applied by SIGHUP.
	pid := site.svc.PID()
	want[1].Members = append(want[1].Members, Member{GUID: hcaGUID(41), Membership: Full})
	if _, err := tg.Apply(ctx, want, nil); err != nil {
		t.Fatal(err)
	}
	if site.svc.PID() != pid {
		t.Error("a partitions-only change restarted OpenSM")
	}
	if !strings.Contains(site.onDisk(t)[FilePartitions], hcaGUID(41).String()+"=full") {
		t.Error("the new member is not in partitions.conf")
	}

	if err := tg.Remove(ctx, []uint16{0x7fff}); err == nil {
		t.Error("removing the default partition was accepted")
	}
	if err := tg.Remove(ctx, []uint16{want[1].PKey}); err != nil {
		t.Fatal(err)
	}
	got, err = tg.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].PKey != want[0].PKey {
		t.Errorf("after Remove the host holds %+v, want only P_Key 0x%04x", got, want[0].PKey)
	}
	if !strings.Contains(site.onDisk(t)[FilePartitions], "Default=0x7fff") {
		t.Error("Default is gone from partitions.conf")
	}
}
