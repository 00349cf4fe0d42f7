package topogen

import (
	"fmt"
	"strings"
	"sync"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
)

// Kind is one topology kind: its name, its own arguments and the shared ones it reads, and how
// it generates, names its largest buildable size and normalizes a design. Each kind of this
// package is one file (fattree.go, railopt.go, dragonfly.go, torus.go) holding its Kind value
// and its generator, and the kind table (init below) lists them; nothing else switches on the
// kind, so adding one is its file and its line in the table. The provider's schemas, encoder and
// decoder come from Args, which reads the table.
type Kind struct {
	Name string
	// Doc describes the kind in a few words, for the description of the `kind` argument.
	Doc string
	// Args are the kind's own arguments (its size and shape).
	Args []*Arg
	// Uses names the shared arguments (sharedArgs, or another kind's) the kind reads.
	Uses []string
	// Defaults fills the kind's own defaults into p (nil: none).
	Defaults func(p *Params)
	// Generate builds the design of p (defaults filled in, every argument one the kind reads).
	Generate func(p Params, cat *catalog.Catalog) (*Design, error)
	// Largest names the largest size of the kind the generator builds, as an argument setting
	// ("node_count = 8192"), for refusals; nil or "" when there is none to suggest.
	Largest func(p Params, cat *catalog.Catalog) string
	// Normalize resolves in p (a copy of d.Params) what d was built for: planned sizes, shapes.
	Normalize func(d *Design, p *Params)
	// SizeAttribute names the argument that sizes the design of p (default node_count).
	SizeAttribute func(p Params) string
}

// reads reports whether the kind reads the argument.
func (k *Kind) reads(a *Arg) bool {
	if isCommon(a) {
		return true
	}
	for _, own := range k.Args {
		if own == a {
			return true
		}
	}
	for _, u := range k.Uses {
		if u == a.Path() {
			return true
		}
	}
	return false
}

var (
	kindsMu sync.Mutex
	kinds   []*Kind
)

// The kind table, in the order the docs name the kinds.
func init() {
	for _, k := range []*Kind{fatTreeKind, railOptimizedKind, dragonflyPlusKind, torus3DKind} {
		RegisterKind(k)
	}
}

// RegisterKind adds a kind to the table. It is meant for init functions: a kind's name and its
// own arguments' names must be new. A kind made outside this package keeps its own arguments in
// Params.Extra, and builds its design with Generate of the kinds here.
func RegisterKind(k *Kind) {
	kindsMu.Lock()
	if k.Name == "" || k.Generate == nil {
		panic("topogen.RegisterKind: a kind needs a name and a generator")
	}
	for _, o := range kinds {
		if o.Name == k.Name {
			panic(fmt.Sprintf("topogen.RegisterKind: kind %q is already registered", k.Name))
		}
		for _, a := range k.Args {
			for _, b := range o.Args {
				if a.Path() == b.Path() && a != b {
					panic(fmt.Sprintf("topogen.RegisterKind: argument %q of kind %q is already kind %q's", a.Path(), k.Name, o.Name))
				}
			}
		}
	}
	kinds = append(kinds, k)
	kindsMu.Unlock()
	argsMu.Lock()
	argsList = nil // Args rebuilds with the new kind's arguments
	argsMu.Unlock()
}

func kindTable() []*Kind {
	kindsMu.Lock()
	defer kindsMu.Unlock()
	return kinds
}

// KindNames lists the kinds Generate knows, in the table's order.
func KindNames() []string {
	var out []string
	for _, k := range kindTable() {
		out = append(out, k.Name)
	}
	return out
}

// KindByName returns the kind of that name, or nil.
func KindByName(name string) *Kind {
	for _, k := range kindTable() {
		if k.Name == name {
			return k
		}
	}
	return nil
}

// kindDoc is the description of the `kind` argument, from the table.
func kindDoc() string {
	var parts []string
	for _, k := range kindTable() {
		parts = append(parts, fmt.Sprintf("`%s` (%s)", k.Name, k.Doc))
	}
	if len(parts) > 1 {
		parts[len(parts)-1] = "or " + parts[len(parts)-1]
	}
	return "The topology: " + strings.Join(parts, ", ") + "."
}

// checkReads refuses a set argument the kind does not read: silently ignoring it would build
// something else than what was asked.
func (k *Kind) checkReads(p *Params) *Error {
	for _, a := range Args() {
		if a.IsSet(p) && !k.reads(a) {
			size := "node_count"
			if k.SizeAttribute != nil {
				size = k.SizeAttribute(*p)
			}
			return refuse(a.Path(), "", "%s does not apply to kind %q, which is sized by %s; it applies to %s",
				a.Path(), k.Name, size, kindsReading(a))
		}
	}
	return nil
}
