package opensm

import (
	"context"
	"fmt"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/partition"
)

// TargetKind is the partition target kind of OpenSM's partitions.conf pushed over SSH.
const TargetKind = "opensm"

func init() {
	partition.Register(TargetKind, "OpenSM runs the subnet manager: partitions.conf is pushed over SSH with the other OpenSM files", openHosts)
}

// PartitionTarget is the OpenSM partition target: partitions reach OpenSM as partitions.conf,
// rendered with the rest of the file set from Config and pushed to the SM host by Push (atomic
// write, SIGHUP, verification, rollback), exactly as a fabric's push does. The provider owns the
// whole file, so Apply writes every declared partition and nothing else: owned is not needed.
type PartitionTarget struct {
	// Push is the SM host; its Files are replaced by the rendering of each Apply.
	Push Target
	// Config is the fabric's OpenSM configuration; Apply replaces its Partitions.
	Config Config
}

var _ partition.Target = PartitionTarget{}

// Kind implements partition.Target.
func (PartitionTarget) Kind() string { return TargetKind }

// Read implements partition.Target: the host's partitions.conf read as OpenSM reads it, Default
// excluded. A host without the file holds no partition.
func (t PartitionTarget) Read(ctx context.Context) ([]partition.Partition, error) {
	files, err := ReadFiles(ctx, t.Push.Host, t.Push.Paths)
	if err != nil {
		return nil, err
	}
	parts, err := ParsePartitions(files[FilePartitions])
	if err != nil {
		return nil, fmt.Errorf("%s on %s: %w", FilePartitions, t.Push.Name, err)
	}
	out := parts[:0]
	for _, p := range parts {
		if p.PKey != DefaultPKey {
			out = append(out, p)
		}
	}
	partition.Sort(out)
	return out, nil
}

// Apply implements partition.Target: render Config with want as its partitions and push the
// file set. What the host holds afterwards is read back, also when the push failed (and was
// rolled back).
func (t PartitionTarget) Apply(ctx context.Context, want []partition.Partition, _ []uint16) ([]partition.Partition, error) {
	cfg := t.Config
	cfg.Partitions = want
	files, err := Render(cfg)
	if err != nil {
		return nil, err
	}
	push := t.Push
	push.Files = files
	_, perr := Push(ctx, push)
	got, rerr := t.Read(ctx)
	if rerr != nil {
		if perr != nil {
			return nil, perr
		}
		return nil, rerr
	}
	return got, perr
}

// Remove implements partition.Target: push the file without the given P_Keys. The Default
// partition is always written, so it is never removed.
func (t PartitionTarget) Remove(ctx context.Context, pkeys []uint16) error {
	drop := map[uint16]bool{}
	for _, k := range pkeys {
		if k == DefaultPKey {
			return fmt.Errorf("refusing to remove P_Key 0x%04x: it is the default partition", k)
		}
		drop[k] = true
	}
	cur, err := t.Read(ctx)
	if err != nil {
		return err
	}
	keep := cur[:0]
	for _, p := range cur {
		if !drop[p.PKey] {
			keep = append(keep, p)
		}
	}
	_, err = t.Apply(ctx, keep, nil)
	return err
}
