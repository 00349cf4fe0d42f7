package partition

import (
	"context"
	"fmt"
	"sort"
	"sync"
)

// Target is a subnet manager that holds a fabric's partitions. Implementations: OpenSM's
// partitions.conf over SSH (internal/opensm PartitionTarget) and UFM's PKey REST API
// (internal/ufm Target).
type Target interface {
	// Kind is the target's registered kind ("opensm", "ufm").
	Kind() string
	// Read returns the partitions the target holds now, DefaultPKey excluded, sorted by P_Key.
	Read(ctx context.Context) ([]Partition, error)
	// Apply brings the target to want: every wanted partition exists with exactly its members,
	// flags and QoS; a P_Key in owned (created by an earlier apply) that is no longer wanted is
	// removed; any other P_Key, and DefaultPKey always, is left alone. It returns what the
	// target holds afterwards for the wanted and owned P_Keys, also when it fails half way, so
	// the caller records only what the target really holds.
	Apply(ctx context.Context, want []Partition, owned []uint16) ([]Partition, error)
	// Remove deletes the given P_Keys; absent ones are not an error. DefaultPKey is refused.
	Remove(ctx context.Context, pkeys []uint16) error
}

var (
	regMu sync.Mutex
	kinds = map[string]string{}
)

// Register records a target kind with a one-line description, for the schema's validation and
// documentation. Registering a kind twice panics: it is a programming error.
func Register(kind, description string) {
	regMu.Lock()
	defer regMu.Unlock()
	if _, dup := kinds[kind]; dup {
		panic(fmt.Sprintf("partition: target kind %q registered twice", kind))
	}
	kinds[kind] = description
}

// Kinds returns the registered target kinds, sorted.
func Kinds() []string {
	regMu.Lock()
	defer regMu.Unlock()
	out := make([]string, 0, len(kinds))
	for k := range kinds {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Sort orders partitions by P_Key, the order every target reads them back in.
func Sort(parts []Partition) {
	sort.Slice(parts, func(i, j int) bool { return parts[i].PKey < parts[j].PKey })
}
