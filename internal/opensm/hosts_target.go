package opensm

import (
	"context"
	"fmt"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/partition"
)

// Hosts are the settings of the OpenSM partition target of a fabric (the kind's settings for
// partition.Open): its SM hosts, primary first, how to reach each, and the configuration and
// verification the partitions are pushed with.
type Hosts struct {
	Names []string
	// Open connects to host i and describes the push to it of files (nil to read or restore),
	// verified against Expect.
	Open func(ctx context.Context, i int, files Files, expect Expect) (Target, func(), error)
	// Config is the fabric's OpenSM configuration; Apply renders it with the wanted partitions.
	Config Config
	Expect Expect
}

// HostsTarget is the OpenSM partition target of a fabric: every Apply renders the whole file set
// from Config with the wanted partitions and pushes it to every host with PushAll (primary
// first, stopped and rolled back at the first failure), exactly as the fabric's push always did;
// Restore puts the hosts back with UnpushAll. Results holds the hosts' results of the last run,
// for their warnings (Op.LoggedErrors, Result.Kept); a failure is an *AllError.
type HostsTarget struct {
	Hosts
	Results []Result
}

var (
	_ partition.Target   = (*HostsTarget)(nil)
	_ partition.Restorer = (*HostsTarget)(nil)
)

// openHosts is the kind's partition.Opener: settings is a Hosts.
func openHosts(settings any) (partition.Target, error) {
	h, ok := settings.(Hosts)
	if !ok {
		return nil, fmt.Errorf("the opensm partition target takes an opensm.Hosts, not %T", settings)
	}
	return &HostsTarget{Hosts: h}, nil
}

// Kind implements partition.Target.
func (*HostsTarget) Kind() string { return TargetKind }

func (t *HostsTarget) opener(files Files, expect Expect) Opener {
	return func(ctx context.Context, i int) (Target, func(), error) { return t.Open(ctx, i, files, expect) }
}

// Read implements partition.Target: the primary host's partitions.conf (PartitionTarget.Read).
func (t *HostsTarget) Read(ctx context.Context) ([]partition.Partition, error) {
	if len(t.Names) == 0 {
		return nil, fmt.Errorf("no subnet manager host")
	}
	h, closeFn, err := t.Open(ctx, 0, nil, Expect{})
	if err != nil {
		return nil, err
	}
	defer closeFn()
	return PartitionTarget{Push: h, Config: t.Config}.Read(ctx)
}

// Apply implements partition.Target: Config rendered with want, pushed to every host. The
// provider owns the whole file, so owned is not needed. After a verified push every host holds
// want, which is returned; a failed push was rolled back on the host where it failed (the hosts
// before it keep the new files, PushAll), and nil is returned with the *AllError: the caller
// keeps its last record.
func (t *HostsTarget) Apply(ctx context.Context, want []partition.Partition, _ []uint16) ([]partition.Partition, error) {
	cfg := t.Config
	cfg.Partitions = want
	files, err := Render(cfg)
	if err != nil {
		return nil, err
	}
	t.Results, err = PushAll(ctx, t.Names, t.opener(files, t.Expect))
	if err != nil {
		return nil, err
	}
	return want, nil
}

// Remove implements partition.Target: the file set pushed again without the given P_Keys.
// The Default partition is always written, so it is never removed.
func (t *HostsTarget) Remove(ctx context.Context, pkeys []uint16) error {
	drop := map[uint16]bool{}
	for _, k := range pkeys {
		if k == DefaultPKey {
			return fmt.Errorf("refusing to remove P_Key 0x%04x: it is the default partition", k)
		}
		drop[k] = true
	}
	var keep []partition.Partition
	for _, p := range t.Config.Partitions {
		if !drop[p.PKey] {
			keep = append(keep, p)
		}
	}
	_, err := t.Apply(ctx, keep, nil)
	return err
}

// Restore implements partition.Restorer: every host as it was before the provider's first push
// (UnpushAll, standbys first).
func (t *HostsTarget) Restore(ctx context.Context) error {
	var err error
	t.Results, err = UnpushAll(ctx, t.Names, t.opener(nil, Expect{}))
	return err
}
