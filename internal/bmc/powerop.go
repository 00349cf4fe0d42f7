package bmc

import "fmt"

// PowerStep is what a one-off power operation has to do, given the host's power state.
type PowerStep int

const (
	// PowerNothing: the host is already in the asked state; power operations are not toggles.
	PowerNothing PowerStep = iota
	// PowerSet: SetPower to the asked state.
	PowerSet
	// PowerRestart: Reset the running host.
	PowerRestart
	// PowerRefused: a restart of a host that is off. Restarting it would start it, which the
	// user did not ask for (and some BMCs refuse or ignore a reset of a host that is off).
	PowerRefused
)

// DecidePower decides what op does to a host whose power state is current ("on" or "off"). op
// is "on", "off", or a restart under the name the user gave it. where names the BMC and the
// protocol it answered with. For PowerRefused, the string says why and what to do instead.
func DecidePower(current, op, where string) (PowerStep, string) {
	switch op {
	case "on", "off":
		if current == op {
			return PowerNothing, ""
		}
		return PowerSet, ""
	}
	if current != "on" {
		return PowerRefused, fmt.Sprintf("the BMC (%s) reports the host off, and %s restarts a running host. Use power = %q to start it.", where, op, "on")
	}
	return PowerRestart, ""
}
