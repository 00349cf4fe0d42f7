package policy

// IsolatedSwitches names the switches of the cut that lost every path to the fabric's main
// piece, in graph order. Maintenance waves (internal/waves) refuse a wave that isolates one.
func (c Cut) IsolatedSwitches() []string {
	out := make([]string, len(c.switches))
	for i, s := range c.switches {
		out[i] = s.name
	}
	return out
}

// UnreachableEndpoints names every endpoint the running fabric cannot reach: those cut off by
// their own cables, then those behind a switch that is cut off.
func (c Cut) UnreachableEndpoints() []string {
	return append(append([]string{}, c.Endpoints...), c.behind...)
}
