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

// Opener makes the target of a kind from the fabric's settings for that kind: a value of the
// kind's own settings type (opensm.Hosts, ufm.Config), which the caller decodes for that kind.
// It connects to nothing: a target dials when it is used.
type Opener func(settings any) (Target, error)

// Restorer is a target that a destroy puts back as it was before the first apply (OpenSM's
// hosts: the provider owns the whole file and kept a snapshot) instead of removing the owned
// P_Keys one by one (Remove, as UFM does, where other P_Keys live beside them).
type Restorer interface {
	Restore(ctx context.Context) error
}

type entry struct {
	description string
	open        Opener
}

var (
	regMu sync.Mutex
	kinds = map[string]entry{}
)

// Register records a target kind with a one-line description, for the schema's validation and
// documentation, and its Opener, through which the fabric's apply and destroy reach it: a new
// target is a package that implements Target and registers its kind in its init. Registering a
// kind twice panics: it is a programming error.
func Register(kind, description string, open Opener) {
	regMu.Lock()
	defer regMu.Unlock()
	if _, dup := kinds[kind]; dup {
		panic(fmt.Sprintf("partition: target kind %q registered twice", kind))
	}
	kinds[kind] = entry{description: description, open: open}
}

// Open makes the target of a registered kind from its settings (see Opener).
func Open(kind string, settings any) (Target, error) {
	regMu.Lock()
	e, ok := kinds[kind]
	regMu.Unlock()
	if !ok {
		return nil, fmt.Errorf("no partition target of kind %q; the kinds are %v", kind, Kinds())
	}
	return e.open(settings)
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
