package opensm

// ParseEngines splits a routing_engine value ("ftree", "updn,minhop", "torus-2QoS,no_fallback")
// into engine names and the no_fallback flag, checking every name against Engines. OpenSM
// compares names exactly (setup_routing_engine); an unknown name is logged and skipped, so it is
// refused here.
func ParseEngines(s string) (engines []string, noFallback bool, err error) {
	return ParseEnginesFor(FlavorOpenSM, s)
}

func knownEngine(name string) bool {
	for _, e := range Engines {
		if e == name {
			return true
		}
	}
	return false
}

// CheckOption validates one opensm.conf option as OpenSM 3.3.23 would read it
// (osm_subn_parse_conf_file): the key must be in opt_tbl, the value must be one line without '#'
// (the parser cuts the line there), booleans must be exactly TRUE or FALSE (anything else,
// "true" included, silently means FALSE), numbers must parse with strtoul base 0 and fit.
func CheckOption(key, value string) error { return CheckOptionFor(FlavorOpenSM, key, value) }
