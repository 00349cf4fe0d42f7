package opensm

import (
	"fmt"
	"sort"
	"strings"
)

// Action is what a running OpenSM needs for a new file set to take effect.
type Action int

const (
	// ActionNone: nothing OpenSM reads changed (or only what it reads at the next start anyway).
	ActionNone Action = iota
	// ActionSIGHUP: `kill -HUP` starts a heavy sweep that re-reads partitions.conf, the root and
	// CN GUID files and the can_update options of opensm.conf (main.c, osm_state_mgr.c
	// osm_subn_rescan_conf_files).
	ActionSIGHUP
	// ActionRestart: something OpenSM reads only at start changed (routing_engine, lmc, a
	// file path, any option whose opt_tbl can_update is 0). Write the files and restart
	// together: every heavy sweep in between (a SIGHUP, or one a trap starts) re-reads the new
	// partitions.conf and GUID files under the old options. A SIGHUP after an engine change
	// was seen on ibsim to keep the old engine.
	ActionRestart
)

func (a Action) String() string {
	switch a {
	case ActionSIGHUP:
		return "sighup"
	case ActionRestart:
		return "restart"
	}
	return "none"
}

// Decision is the outcome of Reload.
type Decision struct {
	Action Action
	// Reasons name every change that asks for the Action (or a lesser one), sorted.
	Reasons []string
	// Deferred names changes that are written but take effect only at OpenSM's next start,
	// and are not worth a restart on their own: the node name map is opened once, in
	// osm_opensm_init, and only renames nodes in logs.
	Deferred []string
}

// Reload compares the file set on the host (old; nil or empty when there is none yet) with the
// next one and says how OpenSM must be told. It is conservative: when in doubt, restart.
func Reload(old, next Files) Decision {
	var d Decision
	need := func(a Action, format string, args ...any) {
		if a > d.Action {
			d.Action = a
		}
		d.Reasons = append(d.Reasons, fmt.Sprintf(format, args...))
	}
	oldConf, hadConf := old[FileOpenSMConf]
	if !hadConf {
		need(ActionRestart, "no opensm.conf on the host yet: OpenSM must start with the new option file")
	} else {
		before, after := ParseOptionFile(oldConf), ParseOptionFile(next[FileOpenSMConf])
		keys := map[string]bool{}
		for k := range before {
			keys[k] = true
		}
		for k := range after {
			keys[k] = true
		}
		sorted := make([]string, 0, len(keys))
		for k := range keys {
			sorted = append(sorted, k)
		}
		sort.Strings(sorted)
		for _, k := range sorted {
			ov, inOld := before[k]
			nv, inNew := after[k]
			switch {
			case inOld && inNew && ov == nv:
				continue
			case !HotUpdatable(k):
				need(ActionRestart, "%s %s: OpenSM reads it only at start (can_update 0)", k, change(ov, nv, inOld, inNew))
			case !inNew:
				// osm_subn_rescan_conf_files applies the lines it finds; a removed line leaves
				// the running value in place until OpenSM restarts.
				need(ActionRestart, "%s removed: OpenSM keeps the running value until it restarts", k)
			default:
				need(ActionSIGHUP, "%s %s: applied by the heavy sweep SIGHUP starts (can_update 1)", k, change(ov, nv, inOld, inNew))
			}
		}
	}
	contents := []struct{ file, why string }{
		{FilePartitions, "partitions.conf changed: re-read on every heavy sweep (osm_prtn_config_parse_file)"},
		{FileRootGUIDs, "root GUID file changed: re-read when routing runs (ftree/updn parse_node_map)"},
		{FileCNGUIDs, "compute-node GUID file changed: re-read when routing runs (ftree parse_node_map)"},
		{FileTorus2QoS, "torus-2QoS.conf changed: re-read every time torus-2QoS routes (osm_torus.c torus_build_lfts -> parse_config)"},
	}
	for _, c := range contents {
		if old[c.file] != next[c.file] {
			need(ActionSIGHUP, "%s", c.why)
		}
	}
	if old[FileNodeNameMap] != next[FileNodeNameMap] {
		d.Deferred = append(d.Deferred, "node-name-map changed: OpenSM opens it only at start; the new names show after its next restart")
	}
	sort.Strings(d.Reasons)
	return d
}

func change(ov, nv string, inOld, inNew bool) string {
	switch {
	case !inOld:
		return fmt.Sprintf("added (%s)", nv)
	case !inNew:
		return fmt.Sprintf("removed (was %s)", ov)
	}
	return fmt.Sprintf("changed %s -> %s", ov, nv)
}

// ParseOptionFile reads an opensm.conf into key -> value the way osm_subn_parse_conf_file does:
// '#' starts a comment anywhere on a line, the key is the first word, the value the rest of the
// line trimmed, and a later line for the same key wins.
func ParseOptionFile(text string) map[string]string {
	out := map[string]string{}
	for _, line := range strings.Split(text, "\n") {
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		key, val, _ := strings.Cut(line, " ")
		if k2, v2, ok := strings.Cut(line, "\t"); ok && len(k2) < len(key) {
			key, val = k2, v2
		}
		out[key] = strings.TrimSpace(val)
	}
	return out
}
