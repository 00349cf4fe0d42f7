package opensm

import (
	"fmt"
	"strconv"
	"strings"
)

// optKind is how OpenSM parses an option's value (the parse_fn of its opt_tbl entry).
type optKind uint8

const (
	kBool   optKind = iota // opts_parse_boolean: exactly "TRUE" is true, anything else false
	kU8                    // opts_parse_uint8 (strtoul base 0, range-checked by 3.3.23)
	kU16                   // opts_parse_uint16 / net16
	kU32                   // opts_parse_uint32 / net32
	kI32                   // opts_parse_int32
	kNet64                 // opts_parse_net64: a 64-bit number (GUIDs, keys, prefixes)
	kString                // opts_parse_charp: the rest of the line, "(null)" means unset
)

type optInfo struct {
	kind optKind
	// hot is opt_tbl's can_update: 1 means osm_subn_rescan_conf_files applies a new value on the
	// heavy sweep that SIGHUP starts; 0 means the line is skipped until OpenSM restarts.
	hot bool
}

// optionTable lists every key OpenSM 3.3.23 accepts in its option file, with the parser and the
// can_update flag of opt_tbl[] in opensm/osm_subnet.c (linux-rdma/opensm, the version whose key
// set matches `opensm -c` of 3.3.23; TestOptionTableMatchesInstalledOpenSM checks the keys
// against the installed binary). Keys that `opensm -c` writes but that opt_tbl of that version
// does not list (keep_pkey_indexes, avoid_throttled_links, nue_*) follow opt_tbl of OpenSM 3.3.24's
// opensm/osm_subnet.c, and an
// unknown can_update is taken as 0: a needless restart is safe, a missed one is not.
var optionTable = map[string]optInfo{
	"guid": {kNet64, false}, "m_key": {kNet64, true}, "sm_key": {kNet64, true}, "sa_key": {kNet64, true},
	"subnet_prefix": {kNet64, false}, "m_key_lease_period": {kU16, true},
	"m_key_protection_level": {kU8, true}, "m_key_lookup": {kBool, true},
	"sweep_interval": {kU32, true}, "max_wire_smps": {kU32, true}, "max_wire_smps2": {kU32, true},
	"max_smps_timeout": {kU32, true}, "console": {kString, false}, "console_port": {kU16, false},
	"transaction_timeout": {kU32, false}, "transaction_retries": {kU32, false},
	"long_transaction_timeout": {kU32, false}, // not in the opt_tbl read; can_update taken as 0
	"max_msg_fifo_timeout":     {kU32, true}, "sm_priority": {kU8, true}, "lmc": {kU8, false},
	"lmc_esp0": {kBool, false}, "max_op_vls": {kU8, true}, "force_link_speed": {kU8, true},
	"force_link_speed_ext": {kU8, true}, "force_link_width": {kU8, true}, "fdr10": {kU8, true},
	"reassign_lids": {kBool, true}, "ignore_other_sm": {kBool, true}, "single_thread": {kBool, false},
	"disable_multicast": {kBool, true}, "subnet_timeout": {kU8, true}, "packet_life_time": {kU8, true},
	"vl_stall_count": {kU8, true}, "leaf_vl_stall_count": {kU8, true},
	"head_of_queue_lifetime": {kU8, true}, "leaf_head_of_queue_lifetime": {kU8, true},
	"local_phy_errors_threshold": {kU8, true}, "overrun_errors_threshold": {kU8, true},
	"use_mfttop": {kBool, true}, "sminfo_polling_timeout": {kU32, true},
	"polling_retry_number": {kU32, true}, "force_heavy_sweep": {kBool, true},
	"port_prof_ignore_file": {kString, false}, "hop_weights_file": {kString, false},
	"dimn_ports_file": {kString, false}, "port_search_ordering_file": {kString, false},
	"port_profile_switch_nodes": {kBool, true}, "sweep_on_trap": {kBool, true},
	"routing_engine": {kString, false}, "avoid_throttled_links": {kBool, false},
	"connect_roots": {kBool, true}, "use_ucast_cache": {kBool, false}, "log_file": {kString, false},
	"log_max_size": {kU32, true}, "log_flags": {kU8, true}, "force_log_flush": {kBool, true},
	"accum_log_file": {kBool, true}, "partition_config_file": {kString, false},
	"no_partition_enforcement": {kBool, true}, "part_enforce": {kString, true},
	"allow_both_pkeys": {kBool, false}, "keep_pkey_indexes": {kBool, true},
	"sm_assigned_guid": {kU8, true}, "qos": {kBool, true}, "qos_policy_file": {kString, false},
	"suppress_sl2vl_mad_status_errors": {kBool, true}, "dump_files_dir": {kString, false},
	"lid_matrix_dump_file": {kString, false}, "lfts_file": {kString, false},
	"root_guid_file": {kString, false}, "cn_guid_file": {kString, false}, "io_guid_file": {kString, false},
	"quasi_ftree_indexing": {kBool, true}, "port_shifting": {kBool, true}, "scatter_ports": {kU32, true},
	"max_reverse_hops": {kU16, false}, "ids_guid_file": {kString, false},
	"guid_routing_order_file": {kString, false}, "guid_routing_order_no_scatter": {kBool, false},
	"do_mesh_analysis": {kBool, true}, "lash_start_vl": {kU8, true}, "nue_max_num_vls": {kU8, true},
	"nue_include_switches": {kBool, false}, "sa_db_file": {kString, false}, "sa_db_dump": {kBool, true},
	"torus_config": {kString, true}, "exit_on_fatal": {kBool, true}, "honor_guid2lid_file": {kBool, true},
	"daemon": {kBool, false}, "sm_inactive": {kBool, true}, "babbling_port_policy": {kBool, true},
	"drop_event_subscriptions": {kBool, true}, "ipoib_mcgroup_creation_validation": {kBool, true},
	"mcgroup_join_validation": {kBool, true}, "use_original_extended_sa_rates_only": {kBool, true},
	"use_optimized_slvl": {kBool, true}, "fsync_high_avail_files": {kBool, true},
	"perfmgr": {kBool, false}, "perfmgr_redir": {kBool, false}, "perfmgr_sweep_time_s": {kU16, false},
	"perfmgr_max_outstanding_queries": {kU32, false}, "perfmgr_ignore_cas": {kBool, false},
	"perfmgr_rm_nodes": {kBool, false}, "perfmgr_log_errors": {kBool, false},
	"perfmgr_query_cpi": {kBool, false}, "perfmgr_xmit_wait_log": {kBool, false},
	"perfmgr_xmit_wait_threshold": {kU32, false}, "event_db_dump_file": {kString, false},
	"event_plugin_name": {kString, false}, "event_plugin_options": {kString, false},
	"node_name_map_name": {kString, false}, "log_prefix": {kString, true},
	"per_module_logging_file": {kString, false}, "enable_quirks": {kBool, true},
	"no_clients_rereg":   {kBool, true},
	"congestion_control": {kBool, true}, "cc_key": {kNet64, false}, "cc_max_outstanding_mads": {kU32, false},
	"cc_sw_cong_setting_control_map": {kU32, true}, "cc_sw_cong_setting_victim_mask": {kString, true},
	"cc_sw_cong_setting_credit_mask": {kString, true}, "cc_sw_cong_setting_threshold": {kU8, true},
	"cc_sw_cong_setting_packet_size":                    {kU8, true},
	"cc_sw_cong_setting_credit_starvation_threshold":    {kU8, true},
	"cc_sw_cong_setting_credit_starvation_return_delay": {kString, true},
	"cc_sw_cong_setting_marking_rate":                   {kU16, true},
	"cc_ca_cong_setting_port_control":                   {kU16, true}, "cc_ca_cong_setting_control_map": {kU16, true},
	"cc_ca_cong_setting_ccti_timer": {kString, true}, "cc_ca_cong_setting_ccti_increase": {kString, true},
	"cc_ca_cong_setting_trigger_threshold": {kString, true}, "cc_ca_cong_setting_ccti_min": {kString, true},
	"cc_cct": {kString, true}, "prefix_routes_file": {kString, false},
	"consolidate_ipv6_snm_req": {kBool, true}, "sm_sl": {kU8, true},
}

func init() {
	// QoS VL arbitration and SL2VL tables for the five port classes are all hot (can_update 1).
	for _, p := range []string{"qos_", "qos_ca_", "qos_sw0_", "qos_swe_", "qos_rtr_"} {
		optionTable[p+"max_vls"] = optInfo{kU32, true}
		optionTable[p+"high_limit"] = optInfo{kI32, true}
		optionTable[p+"vlarb_high"] = optInfo{kString, true}
		optionTable[p+"vlarb_low"] = optInfo{kString, true}
		optionTable[p+"sl2vl"] = optInfo{kString, true}
	}
}

// HotUpdatable reports whether OpenSM applies a new value of the option on the heavy sweep that
// SIGHUP starts (opt_tbl can_update = 1). Unknown keys report false.
func HotUpdatable(key string) bool { return optionTable[key].hot }

// managedOptions are written by Render from Config fields; setting them in Options would give the
// same key twice (OpenSM keeps the last) or point OpenSM at a file the provider does not write.
var managedOptions = map[string]string{
	"routing_engine":        "routing_engine",
	"lmc":                   "lmc",
	"root_guid_file":        "roots",
	"cn_guid_file":          "compute_nodes",
	"partition_config_file": "partitions",
	"node_name_map_name":    "node_names",
}

// Engines are the routing engines of OpenSM 3.3 (static_routing_modules[] in osm_opensm.c).
var Engines = []string{"none", "minhop", "updn", "dnup", "file", "ftree", "lash", "dor", "torus-2QoS", "nue", "dfsssp", "sssp"}

// NoFallback is the pseudo-engine that stops OpenSM from trying minhop when every listed engine
// fails (opensm(8), -R).
const NoFallback = "no_fallback"

// CheckOptionFor validates one opensm.conf option as the flavour's subnet manager would read it
// (OpenSM 3.3.23: osm_subn_parse_conf_file): the key must be in the flavour's option table
// (opt_tbl; flavor.go), the value must be one line without '#' (the parser cuts the line
// there), booleans must be exactly TRUE or FALSE (anything else, "true" included, silently means
// FALSE), numbers must parse with strtoul base 0 and fit. A key or engine of the other flavour is
// refused with a message naming the flavour that has it.
func CheckOptionFor(f Flavor, key, value string) error {
	info, ok := optionOf(f, key)
	if !ok {
		return unknownOption(f, key)
	}
	if strings.ContainsAny(value, "\n\r") {
		return fmt.Errorf("value of %s must be a single line", key)
	}
	if strings.Contains(value, "#") {
		return fmt.Errorf("value of %s contains '#', which starts a comment in opensm.conf", key)
	}
	v := strings.TrimSpace(value)
	if v == "" {
		return fmt.Errorf("value of %s is empty; OpenSM reports a parsing error and keeps the default", key)
	}
	switch info.kind {
	case kBool:
		if v != "TRUE" && v != "FALSE" {
			return fmt.Errorf("%s is a boolean: write TRUE or FALSE (OpenSM reads %q as FALSE)", key, v)
		}
	case kU8, kU16, kU32, kNet64:
		bits := map[optKind]int{kU8: 8, kU16: 16, kU32: 32, kNet64: 64}[info.kind]
		if _, err := strconv.ParseUint(v, 0, bits); err != nil {
			return fmt.Errorf("%s takes an unsigned %d-bit number (decimal or 0x hex), not %q", key, bits, v)
		}
	case kI32:
		if _, err := strconv.ParseInt(v, 0, 32); err != nil {
			return fmt.Errorf("%s takes a signed 32-bit number, not %q", key, v)
		}
	}
	return checkOptionRange(f, key, v)
}

// checkOptionRange adds the limits opensm(8) documents for a few options whose out-of-range
// values OpenSM accepts and then misbehaves on or clamps.
func checkOptionRange(f Flavor, key, v string) error {
	n, _ := strconv.ParseUint(v, 0, 64)
	switch key {
	case "routing_engine":
		// OpenSM skips an unknown name with a log line and routes with what is left (or
		// minhop): a file naming none it knows must not reach a host.
		if _, _, err := ParseEnginesFor(f, v); err != nil {
			return fmt.Errorf("routing_engine: %v", err)
		}
	case "ar_tree_asymmetric_flow":
		// 0 off, 1-2 sub-group modes, 3 the asymmetric tree algorithm (MLNXSM Release Notes
		// v5.21.0; osm_asymmetric_tree_enum stops at 3).
		if n > 3 {
			return fmt.Errorf("ar_tree_asymmetric_flow must be 0-3 (3 is the asymmetric tree algorithm)")
		}
	case "vs_key_enable":
		if n > 2 {
			return fmt.Errorf("vs_key_enable must be 0 (ignore), 1 (disable) or 2 (enable)")
		}
	case "vs_key_ci_protect_bits":
		if n > 1 {
			return fmt.Errorf("vs_key_ci_protect_bits must be 0 (unprotected) or 1 (protected)")
		}
	case "periodic_key_update":
		if n != 0 && (n < 10 || n > 71582) {
			return fmt.Errorf("periodic_key_update is 0 (off) or 10-71582 minutes (MLNXSM Release Notes v5.23.0)")
		}
	case "lmc":
		if n > 7 {
			return fmt.Errorf("lmc must be 0-7 (each port gets 2^lmc LIDs)")
		}
	case "sm_priority":
		if n > 15 {
			return fmt.Errorf("sm_priority must be 0-15")
		}
	case "sm_sl":
		if n > 15 {
			return fmt.Errorf("sm_sl must be 0-15")
		}
	case "part_enforce":
		switch v {
		case "both", "in", "out", "off":
		default:
			return fmt.Errorf("part_enforce must be both, in, out or off")
		}
	case "console":
		switch v {
		case "off", "local", "loopback", "socket":
		default:
			return fmt.Errorf("console must be off, local, loopback or socket")
		}
	}
	return nil
}
