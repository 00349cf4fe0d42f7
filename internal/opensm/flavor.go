package opensm

import (
	"fmt"
	"strings"
)

// Flavor is which subnet manager build a host runs. The two read the same file formats but know
// different routing engines and options, so a file set is validated against its own flavour.
type Flavor string

const (
	// FlavorOpenSM is upstream OpenSM 3.3 (linux-rdma/opensm, Debian's opensm 3.3.23): what the
	// tests run on ibsim, and the default.
	FlavorOpenSM Flavor = "opensm"
	// FlavorNVIDIA is NVIDIA's build of OpenSM (MLNXSM, OpenSM 5.x), shipped with UFM and
	// MLNX_OFED / DOCA-OFED. It is not available here: for it the provider checks the grammar of
	// the files and the documented names only, and the verification accepts the documented log
	// forms (see VerifiedByGrammarOnly).
	FlavorNVIDIA Flavor = "nvidia"
)

// Flavors are the values of subnet_manager.flavor.
var Flavors = []string{string(FlavorOpenSM), string(FlavorNVIDIA)}

// flavorOr returns f, or FlavorOpenSM for "".
func flavorOr(f Flavor) Flavor {
	if f == "" {
		return FlavorOpenSM
	}
	return f
}

// Title is how the flavour is named in messages and in the first line of opensm.conf.
func (f Flavor) Title() string {
	if flavorOr(f) == FlavorNVIDIA {
		return "NVIDIA SM (OpenSM 5.x)"
	}
	return "OpenSM 3.3"
}

// VerifiedByGrammarOnly says that what the provider knows of the flavour was not checked against
// a running subnet manager of that flavour: the tests run upstream OpenSM 3.3 on ibsim only.
func (f Flavor) VerifiedByGrammarOnly() bool { return flavorOr(f) == FlavorNVIDIA }

// nvidiaEngines are the routing engines of NVIDIA SM. Sources: the "Supported engines" comment of
// the opensm.conf that NVIDIA's opensm writes with `opensm -c` (MLNX_OFED 5.2: minhop, updn, dnup,
// file, ftree, lash, dor, torus-2QoS, kdor-hc, dfsssp, sssp, chain, pqft, dfp, dfp2, and the
// adaptive-routing engines ar_updn, ar_ftree, ar_torus, ar_dor); NVIDIA UFM Enterprise User
// Manual v6.19.4, "Network Management" (PQFT for quasi fat trees); InfiniBand Cluster Bring-up
// Procedure v1.0, "Adaptive Routing" (ar_updn, the default routing_engine of NVIDIA SM for fat
// trees); MLNXSM Release Notes v5.10.0 ("Changed the default routing engine to be ar_updn
// instead of minhop"). nue is upstream's only: NVIDIA's list does not have it.
var nvidiaEngines = []string{
	"minhop", "updn", "dnup", "file", "ftree", "lash", "dor", "torus-2QoS", "kdor-hc",
	"dfsssp", "sssp", "chain", "pqft", "dfp", "dfp2", "ar_updn", "ar_ftree", "ar_torus", "ar_dor",
}

// EnginesOf returns the routing engines the flavour knows.
func EnginesOf(f Flavor) []string {
	if flavorOr(f) == FlavorNVIDIA {
		return nvidiaEngines
	}
	return Engines
}

// nvidiaOptions are the opensm.conf keys NVIDIA SM adds to upstream's opt_tbl (it is a fork of
// OpenSM and keeps upstream's keys), with how their values are parsed. Sources: MLNXSM (NVIDIA
// InfiniBand Subnet Manager) Utility Release Notes v5.10.0 (adaptive_timeout_sl_mask,
// find_roots_color_algorithm, max_cas_on_spine, vs_key_*), v5.20.0/v5.21.12 LTS
// (qos_config_vl_enabled, ar_tree_asymmetric_flow and its thresholds; "option 3" is the
// asymmetric tree algorithm), v5.22.11-v5.24.0 "Parameter Changes" (port recovery policy,
// rediscovery penalties, enable_sa, drop_unreachable_ports_enabled, planarized_routing_enabled,
// periodic_key_update, light_sweep_spst); InfiniBand Cluster Bring-up Procedure v1.0,
// "Adaptive Routing" and "SHIELD" (AR is on by default, shield_mode); the adaptive-routing
// fields of NVIDIA's osm_subnet.h (ar_mode, ar_sl_mask, ar_transport_mask — 0xA, RC and DC, by
// default — enable_ar_by_device_cap, pfrn_*, dump_ar). Their can_update is not documented, so
// a change restarts OpenSM (HotUpdatable reports false).
var nvidiaOptions = map[string]optInfo{
	"ar_mode": {kU8, false}, "shield_mode": {kU8, false}, "ar_sl_mask": {kU16, false},
	"ar_transport_mask": {kU8, false}, "enable_ar_by_device_cap": {kBool, false},
	"enable_ar_group_copy": {kBool, false}, "enable_empty_arlft_optimization": {kBool, false},
	"ar_tree_asymmetric_flow": {kU8, false}, "ar_tree_asymmetric_flow_threshold": {kU32, false},
	"ar_tree_asymmetric_flow_threshold_limit": {kU32, false}, "dump_ar": {kBool, false},
	"cache_ar_group_id": {kBool, false}, "pfrn_sl": {kU8, false}, "pfrn_mask_clear_timeout": {kU16, false},
	"pfrn_mask_force_clear_timeout": {kU16, false}, "pfrn_over_router_enabled": {kU8, false},
	"adaptive_timeout_sl_mask": {kU16, false}, "find_roots_color_algorithm": {kBool, false},
	"max_cas_on_spine": {kU8, false}, "vs_key_enable": {kU8, false}, "vs_key_lease_period": {kU16, false},
	"vs_key_ci_protect_bits": {kU8, false}, "vs_max_outstanding_mads": {kU32, false},
	"qos_config_vl_enabled": {kBool, false}, "port_recovery_policy_enabled": {kU8, false},
	"prp_override_allow_sm_port_reset": {kBool, false}, "rediscovery_max_link_penalty": {kU32, false},
	"rediscovery_link_penalty_step": {kU32, false}, "enable_sa": {kBool, false},
	"drop_unreachable_ports_enabled": {kBool, false}, "planarized_routing_enabled": {kU8, false},
	"periodic_key_update": {kU32, false}, "light_sweep_spst": {kBool, false},
	"dfp_down_up_turns_mode": {kU8, false}, "smp_threads": {kU16, false}, "gmp_threads": {kU16, false},
	"max_wire_smps_per_device": {kU8, false},
}

// upstreamOnlyOptions are upstream 3.3's keys that NVIDIA SM's documents do not list. None is
// known to be dropped, so the set is empty; it is here so that a key found missing gets the
// message naming the flavour that has it.
var upstreamOnlyOptions = map[string]bool{}

// optionOf looks a key up in the flavour's table.
func optionOf(f Flavor, key string) (optInfo, bool) {
	if flavorOr(f) == FlavorNVIDIA {
		if info, ok := nvidiaOptions[key]; ok {
			return info, true
		}
		if upstreamOnlyOptions[key] {
			return optInfo{}, false
		}
	}
	info, ok := optionTable[key]
	return info, ok
}

// otherFlavor is the flavour that is not f.
func otherFlavor(f Flavor) Flavor {
	if flavorOr(f) == FlavorNVIDIA {
		return FlavorOpenSM
	}
	return FlavorNVIDIA
}

// unknownOption says that f has no option key, and names the flavour that has it.
func unknownOption(f Flavor, key string) error {
	if _, ok := optionOf(otherFlavor(f), key); ok {
		return fmt.Errorf("%s has no option %q; it is an option of %s (subnet_manager.flavor = %q). %s would print \"Unrecognized token\" and ignore it", flavorOr(f).Title(), key, otherFlavor(f).Title(), otherFlavor(f), flavorOr(f).Title())
	}
	return fmt.Errorf("%s has no option %q (it would print \"Unrecognized token\" and ignore it)", flavorOr(f).Title(), key)
}

// ParseEnginesFor splits a routing_engine value ("ftree", "updn,minhop", "torus-2QoS,no_fallback")
// into engine names and the no_fallback flag, checking every name against the flavour's engines.
// OpenSM compares names exactly (setup_routing_engine); an unknown name is logged and skipped, so
// it is refused here, and an engine of the other flavour with a message naming the flavour that
// has it.
func ParseEnginesFor(f Flavor, s string) (engines []string, noFallback bool, err error) {
	if strings.TrimSpace(s) == "" {
		return nil, false, fmt.Errorf("empty routing engine list")
	}
	known := EnginesOf(f)
	seen := map[string]bool{}
	for _, part := range strings.Split(s, ",") {
		name := strings.TrimSpace(part)
		switch {
		case name == "":
			return nil, false, fmt.Errorf("empty name in routing engine list %q", s)
		case name == NoFallback:
			noFallback = true
			continue
		case seen[name]:
			return nil, false, fmt.Errorf("routing engine %q is listed twice", name)
		}
		if !contains(known, name) {
			return nil, false, unknownEngine(f, name)
		}
		seen[name] = true
		engines = append(engines, name)
	}
	if len(engines) == 0 {
		return nil, false, fmt.Errorf("routing engine list %q names no engine", s)
	}
	return engines, noFallback, nil
}

func unknownEngine(f Flavor, name string) error {
	known := EnginesOf(f)
	for _, e := range known {
		if strings.EqualFold(e, name) {
			return fmt.Errorf("unknown routing engine %q: OpenSM matches names exactly, write %q", name, e)
		}
	}
	if o := otherFlavor(f); contains(EnginesOf(o), name) {
		return fmt.Errorf("routing engine %q is one of %s's, not of %s: set subnet_manager.flavor = %q if the hosts run it, or pick one of %s (and %s)", name, o.Title(), flavorOr(f).Title(), o, strings.Join(known, ", "), NoFallback)
	}
	return fmt.Errorf("unknown routing engine %q; %s knows %s (and %s)", name, flavorOr(f).Title(), strings.Join(known, ", "), NoFallback)
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}

// Engines that read root_guid_file and cn_guid_file. NVIDIA's adaptive-routing variants of
// ftree and updn read the same files (InfiniBand Cluster Bring-up Procedure v1.0, "Adaptive
// Routing": "specify the correct root GUIDs file").
var (
	rootEngines = []string{"ftree", "updn", "dnup", "ar_ftree", "ar_updn"}
	cnEngines   = []string{"ftree", "ar_ftree"}
)

// FlavorOf tells the flavour a rendered set was written for from the first line of its
// opensm.conf (Render names it there); a set without that line is upstream's.
func FlavorOf(files Files) Flavor {
	first, _, _ := strings.Cut(files[FileOpenSMConf], "\n")
	if strings.HasPrefix(first, "# "+FlavorNVIDIA.Title()) {
		return FlavorNVIDIA
	}
	return FlavorOpenSM
}
