package opensm

// ExpectFor says what a good routing run of the files rendered from c looks like: the first
// routing engine of c configures the switches (the flavour's default when c names none), with as
// many ftree roots as c lists. Error-level log lines are reported, not refused: real fabrics log
// them for every flapping port.
func ExpectFor(c Config) Expect {
	e := Expect{AllowErrors: true}
	if engines, _, err := ParseEnginesFor(c.Flavor, c.RoutingEngine); err == nil {
		e.Engine = engines[0]
	} else if c.Flavor == FlavorNVIDIA {
		e.Engine = "ar_updn" // NVIDIA SM's default since MLNXSM 5.10 (release notes)
	} else {
		e.Engine = "minhop" // OpenSM's default when opensm.conf names none
	}
	if e.Engine == "ftree" {
		e.Roots = len(c.Roots)
	}
	return e
}
