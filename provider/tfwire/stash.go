package tfwire

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// outputStash carries the outputs a data source left out of its state, by attribute name: as
// tftypes values, or already encoded as MessagePack (raw).
type outputStash struct {
	outputs map[string]tftypes.Value
	raw     map[string][]byte
}

type outputStashKey struct{}

// StashOutputs moves the outputs names of out into the request's output stash, leaving empty
// values of their types; without a stash (a request not through Wrap) out is left whole.
func StashOutputs(ctx context.Context, out map[string]tftypes.Value, names ...string) {
	st, ok := ctx.Value(outputStashKey{}).(*outputStash)
	if !ok {
		return
	}
	st.outputs = make(map[string]tftypes.Value, len(names))
	for _, n := range names {
		v, ok := out[n]
		if !ok {
			continue
		}
		st.outputs[n] = v
		switch v.Type().(type) {
		case tftypes.Map:
			out[n] = tftypes.NewValue(v.Type(), map[string]tftypes.Value{})
		default:
			out[n] = tftypes.NewValue(v.Type(), nil)
		}
	}
}

// WithRawOutputs gives Wrap the outputs raw, encoded as MessagePack, to put into the response
// in place of the null values the data source left in its state. Without Wrap (tests serving the
// framework directly) they are decoded into state instead.
func WithRawOutputs(ctx context.Context, state tftypes.Value, raw map[string][]byte) (tftypes.Value, error) {
	if st, ok := ctx.Value(outputStashKey{}).(*outputStash); ok {
		st.raw = raw
		return state, nil
	}
	typ, ok := state.Type().(tftypes.Object)
	if !ok {
		return tftypes.Value{}, fmt.Errorf("state of type %s is not an object", state.Type())
	}
	out := make(map[string]tftypes.Value, len(raw))
	for name, b := range raw {
		v, err := (&tfprotov6.DynamicValue{MsgPack: b}).Unmarshal(typ.AttributeTypes[name])
		if err != nil {
			return tftypes.Value{}, fmt.Errorf("%s: %w", name, err)
		}
		out[name] = v
	}
	return WithOutputs(state, out)
}

// Source says which value of a request an input is taken from.
type Source int

const (
	FromConfig   Source = iota
	FromPrior           // prior state (PlanResourceChange, ApplyResourceChange)
	FromProposed        // proposed new state (PlanResourceChange)
	FromPlanned         // planned state (ApplyResourceChange)
	FromCurrent         // current state (ReadResource)
	numListSources
)

// listStash holds the inputs Wrap took out of one request, by source and attribute name. A
// source that the request did not carry (or that was null) has a nil map.
type listStash struct {
	lists [numListSources]map[string]tftypes.Value
}

type listStashKey struct{}

// Stashed returns the input name of the request value src as Wrap stashed it; false when
// the request did not go through Wrap (unit tests calling the methods directly) or the source
// was not stashed.
func Stashed(ctx context.Context, src Source, name string) (tftypes.Value, bool) {
	s, ok := ctx.Value(listStashKey{}).(*listStash)
	if !ok || s.lists[src] == nil {
		return tftypes.Value{}, false
	}
	v, ok := s.lists[src][name]
	return v, ok
}

// WithOutputs returns the configuration object with the computed attributes filled in: the
// data source's new state.
func WithOutputs(config tftypes.Value, outputs map[string]tftypes.Value) (tftypes.Value, error) {
	var cfg map[string]tftypes.Value
	if err := config.As(&cfg); err != nil {
		return tftypes.Value{}, err
	}
	// As hands out the configuration's own map: copy it, the framework still reads the config.
	attrs := make(map[string]tftypes.Value, len(cfg))
	for k, v := range cfg {
		attrs[k] = v
	}
	for k, v := range outputs {
		attrs[k] = v
	}
	if err := tftypes.ValidateValue(config.Type(), attrs); err != nil {
		return tftypes.Value{}, err
	}
	return tftypes.NewValue(config.Type(), attrs), nil
}

// WithStashed returns ctx as Wrap makes it for a request whose value src carried values: for
// tests, and for callers that serve the framework without Wrap.
func WithStashed(ctx context.Context, src Source, values map[string]tftypes.Value) context.Context {
	st := &listStash{}
	st.lists[src] = values
	return context.WithValue(ctx, listStashKey{}, st)
}
