package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// specReader converts the fabric's inputs into a fabric.Spec (fabric_inputs.go). It records
// missing required values as attribute errors and reports whether any value the graph depends on
// is still unknown, in which case the analysis waits for apply.
type specReader struct {
	diags   diag.Diagnostics
	unknown bool
	// under is the attribute that holds the maps being read (an `as_built` object); empty for
	// the fabric's own maps, which are root attributes.
	under path.Path
}

// mapPath is the path of the inventory map attr where the reader is reading it.
func (r *specReader) mapPath(attr string) path.Path {
	if len(r.under.Steps()) == 0 {
		return path.Root(attr)
	}
	return r.under.AtName(attr)
}

// str and int read a value of a short list (a handful of elements) at a ready path.
func (r *specReader) str(v types.String, p path.Path, required bool) string {
	if v.IsUnknown() {
		r.unknown = true
		return ""
	}
	if v.IsNull() || v.ValueString() == "" {
		if required {
			r.diags.AddAttributeError(p, "Missing required attribute", fmt.Sprintf("%s is required for every element of this list, and %s has none.", lastStep(p), p.ParentPath()))
		}
		return ""
	}
	return v.ValueString()
}

func (r *specReader) int(v types.Int64, p path.Path, required bool, def int) int {
	if v.IsUnknown() {
		r.unknown = true
		return def
	}
	if v.IsNull() {
		if required {
			r.diags.AddAttributeError(p, "Missing required attribute", fmt.Sprintf("%s is required for every element of this list, and %s has none.", lastStep(p), p.ParentPath()))
		}
		return def
	}
	return int(v.ValueInt64())
}

func lastStep(p path.Path) string {
	steps := p.Steps()
	if len(steps) == 0 {
		return "value"
	}
	return steps[len(steps)-1].String()
}

func (r *specReader) float(v types.Float64) float64 {
	if v.IsUnknown() {
		r.unknown = true
		return 0
	}
	return v.ValueFloat64()
}

// listItems decodes a short list attribute (a handful of elements) into typed items through the
// framework's reflection. Never use it for the fabric's inventory lists: see obj.
func listItems[T any](ctx context.Context, r *specReader, l types.List) []T {
	if l.IsUnknown() {
		r.unknown = true
		return nil
	}
	if l.IsNull() {
		return nil
	}
	for _, e := range l.Elements() {
		if e.IsUnknown() {
			r.unknown = true
			return nil
		}
	}
	var out []T
	r.diags.Append(l.ElementsAs(ctx, &out, true)...)
	return out
}

// The models a switch and a node get when the element leaves `model` unset, as the resources and
// the generator do (one source: internal/topogen).
const (
	fabricDefaultSwitchModel = defaultSwitchModel
	fabricDefaultNodeModel   = defaultNodeModel
)
