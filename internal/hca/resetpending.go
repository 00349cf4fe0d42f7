package hca

import (
	"context"
	"fmt"
	"sort"
	"strings"
)

// ResetPendingOptions tune ResetPending.
type ResetPendingOptions struct {
	// Level is the reset level to use when LevelSet; otherwise the tool's default for the card's
	// current state.
	Level    int
	LevelSet bool
}

// ResetPendingLevel is ResetPending's options for a level setting, read as Apply's reset setting
// is (ResetOptions), so the two spellings of a level cannot drift apart: "" lets the tool choose;
// otherwise the mlxfwreset level as text, which the caller has checked.
func ResetPendingLevel(level string) ResetPendingOptions {
	o := ResetOptions(level)
	return ResetPendingOptions{Level: o.ResetLevel, LevelSet: o.ResetLevelSet}
}

// ResetPendingResult reports what ResetPending found and did.
type ResetPendingResult struct {
	Pending []string     // parameters whose Next Boot value was not yet the Current one, sorted
	Unknown bool         // the firmware shows no Current column: whether anything waits cannot be told
	Levels  *ResetLevels // the query of the reset levels; nil when nothing was pending
	Level   int          // the level reset at; -1 when no reset ran
	Reset   bool         // a firmware reset ran and loaded the pending values
	// RebootNeeded: values wait and the card supports no reset level short of a reboot now (only
	// a warm or cold reboot, or no level at all): the node has to be rebooted.
	RebootNeeded bool
	Commands     []string // every command run, in order
}

// ResetPending loads a card's pending NVConfig values with a firmware reset, where the card
// allows one: it queries every parameter (mlxconfig -e query), and when some Next Boot value is
// not yet Current, asks mlxfwreset which levels the card supports now (QueryReset) and resets at
// the level asked for, or at the tool's default when that is not a reboot; then it queries again
// and fails when a value still waits. Nothing pending: nothing runs after the query. Only a
// reboot level (4, 5) or no level at all supported: no reset runs and RebootNeeded is set, since
// rebooting a node is not this function's call. A level asked for that the card does not
// support now is an error naming the ones it does. Firmware that cannot show Current values is
// reset anyway at the default level when it is not a reboot (Unknown says so): a reset of a
// card with nothing pending changes nothing but the link's few seconds.
func ResetPending(ctx context.Context, r Runner, tool, device string, o ResetPendingOptions) (*ResetPendingResult, error) {
	res := &ResetPendingResult{Level: -1}
	rec := &recorder{r: r, cmds: &res.Commands}
	before, ts, err := query(ctx, rec, tool, device, nil)
	if ts.name != "" {
		tool = ts.name // ToolAuto: the family the node has, for the reset too
	}
	if err != nil {
		return res, err
	}
	res.Unknown = !before.HasColumn("Current")
	for n, p := range before.Params {
		if p.Pending() {
			res.Pending = append(res.Pending, n)
		}
	}
	sort.Strings(res.Pending)
	if len(res.Pending) == 0 && !res.Unknown {
		return res, nil
	}
	levels, err := QueryReset(ctx, rec, tool, device)
	switch {
	case NoSupportedLevel(err):
		res.RebootNeeded = len(res.Pending) > 0 || res.Unknown
		return res, nil
	case err != nil:
		return res, err
	}
	res.Levels = levels
	level, ok := levels.Default()
	if o.LevelSet {
		if !levels.Supported(o.Level) {
			return res, fmt.Errorf("reset level %d is not supported by the card now; it supports %s", o.Level, levelList(levels))
		}
		level, ok = ResetLevel{Level: o.Level}, true
	}
	if !ok || level.Rebooting() {
		res.RebootNeeded = true
		return res, nil
	}
	if err := Reset(ctx, rec, tool, device, level.Level); err != nil {
		return res, err
	}
	res.Level, res.Reset = level.Level, true
	after, err := Query(ctx, rec, tool, device)
	if err != nil {
		return res, err
	}
	var still []string
	for _, n := range res.Pending {
		if p, ok := after.Params[n]; ok && p.Pending() {
			still = append(still, n)
		}
	}
	if len(still) > 0 {
		return res, fmt.Errorf("after the reset at level %d, %s still wait for a reboot (Next Boot differs from Current)", level.Level, strings.Join(still, ", "))
	}
	return res, nil
}

// levelList words the supported levels, "3 (Driver restart and PCI reset), 4 (Warm Reboot)".
func levelList(l *ResetLevels) string {
	var out []string
	for _, lv := range l.Levels {
		if lv.Supported {
			out = append(out, fmt.Sprintf("%d (%s)", lv.Level, lv.Description))
		}
	}
	if len(out) == 0 {
		return "none"
	}
	return strings.Join(out, ", ")
}

// Outcome words a successful ResetPending for the HCA name (device on node, reached at addr): a
// progress line, and when only a reboot would load the values a warning (warnSummary "" when
// none): rebooting a node is its owner's call, so the warning says how to make it.
func (r *ResetPendingResult) Outcome(name, node, device, addr string) (line, warnSummary, warnDetail string) {
	switch {
	case r.RebootNeeded:
		what := r.Waiting()
		return what + " wait for a reboot; no firmware reset short of one is supported now",
			fmt.Sprintf("HCA %s: reboot node %s to load its firmware settings", name, node),
			fmt.Sprintf("HCA %q (device %s on %s): %s wait for a reboot, and the card supports no mlxfwreset level short of one "+
				"now (supported levels: %s). Nothing was reset. Reboot the node, e.g. terraform apply -invoke with a "+
				"gpucluster_node_power action of power = \"graceful_restart\".", name, device, addr, what, r.LevelsText())
	case !r.Reset:
		return "no firmware setting waits; nothing to reset", "", ""
	}
	return fmt.Sprintf("mlxfwreset at level %d loaded %s", r.Level, r.Waiting()), "", ""
}
