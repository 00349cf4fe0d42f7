package bmc

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Hint says what a person can do about err, an error of this package: the kind of failure
// decides whether the network, the credentials, the protocol or the request needs fixing.
// timeout is the bound each BMC call had, which a person raising timeouts needs to know.
func Hint(err error, timeout time.Duration) string {
	switch {
	case errors.Is(err, ErrAuth):
		return "The BMC refused the credentials or the account lacks the privilege: check bmc.username and bmc.password on the node, or the provider's bmc = { username, password }."
	case errors.Is(err, ErrTLS):
		return "The BMC's certificate is not trusted: give the CA that signed it in bmc.tls_ca_pem (or, as an explicit choice, set bmc.insecure_tls = true)."
	case errors.Is(err, ErrUnreachable), errors.Is(err, context.DeadlineExceeded):
		return fmt.Sprintf("The BMC did not answer (each call is bounded by %s and by the node's timeouts): check that it is powered and reachable from where Terraform runs, or raise the node's timeouts.", timeout)
	case errors.Is(err, ErrNotSupported):
		return "This BMC, or the protocol it answered with, cannot do this. BIOS settings need Redfish; IPMI knows only pxe, disk, cdrom, bios and none as boot devices."
	case errors.Is(err, ErrRejected):
		return "The BMC answered and refused the request or a value in it; the BMC's message is above."
	case errors.Is(err, ErrInvalid):
		return "The node's BMC settings are not valid; fix the attribute named above."
	}
	return "See the BMC's message above."
}

// Unreachable reports errors that say only that the BMC did not answer, so that a refresh can
// keep the last known state instead of failing; a refused login or an untrusted certificate is
// an answer and must fail.
func Unreachable(err error) bool {
	return errors.Is(err, ErrUnreachable) && !errors.Is(err, ErrAuth) && !errors.Is(err, ErrTLS)
}

// Failure is what to tell a person when what ("open a session", "power on") failed on node's BMC
// with err, an error of this package: a summary, and a detail naming the node, the BMC (host:port
// and protocol, which err carries) and what to do about it (Hint). The login of cfg may be what
// the BMC refuses: opened tells that the session had opened (the credentials were accepted),
// workedBefore that an earlier read of this BMC worked; a refusal then is a lockout, and the
// detail says how to recover (LockoutAdvice).
func Failure(node, what string, err error, cfg Config, opened, workedBefore bool) (summary, detail string) {
	hint := Hint(err, cfg.Timeout)
	if errors.Is(err, ErrAuth) {
		if adv := LockoutAdvice(cfg.Username, opened, workedBefore); adv != "" {
			hint = adv
		}
	}
	return fmt.Sprintf("Node %s: cannot %s through its BMC", node, what),
		fmt.Sprintf("Node %q: %s.\n\n%s", node, strings.TrimSuffix(err.Error(), "."), hint)
}
