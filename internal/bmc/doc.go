// Package bmc owns every conversation with a node's baseboard management controller: power
// state, boot override, BMC accounts, BIOS settings, and the read-back of all of them (plus
// vendor, model, serial and firmware versions) that drift detection needs. It wraps
// github.com/bmc-toolbox/bmclib/v2 (v2.3.4), speaking Redfish through bmclib's gofish provider and
// IPMI through its ipmitool provider, and calls gofish and ipmitool directly only where that
// bmclib cannot do the job (each place says why). It knows nothing of Terraform.
//
// It also owns what is said to people about BMCs: the plan-time rules that refuse a configuration
// before any BMC is asked (planrules.go, Config.MissingLogin), and the advice that goes with each
// kind of error (Hint, Unreachable, Failure).
//
// Use: Open a Session (Redfish first, IPMI as the fallback, in the order of Config.Protocols),
// call Read / SetPower / SetBootDevice / EnsureUser / SetBIOS / Firmware / UpdateFirmware, and
// Close it. UpdateFirmware (firmware.go: Redfish UpdateService.SimpleUpdate and its task monitor)
// is bounded by its context rather than Timeout, since an update outlasts any one exchange. The flows built on
// a Session open and close their own: Session.Apply makes a node's BMC match what is declared,
// RunPower performs one one-off power operation (PowerOps: on, off, a restart, or ResetBMC).
//
// Invariants:
//   - Passwords (the login's and those of accounts being set) never appear in an error or a log
//     line: errors carry redacted text only, never the underlying error, and the logger given in
//     Config is wrapped in a redacting sink, bmclib's own logging included. ipmitool gets
//     passwords through its environment or a 0600 command file, never its arguments.
//   - TLS certificates are verified unless Config.InsecureTLS is set; TLSCAPEM adds the CAs.
//   - One Session per BMC at a time in this process (a lock per endpoint:port), and at most
//     DefaultMaxSessions sessions open at once (16), held from Open to Close.
//     Waiting for either is bounded by the context only.
//   - Every BMC operation ends within Config.Timeout (and the context): a BMC that does not
//     answer fails with ErrUnreachable in time, even where bmclib ignores the context; work still
//     running in the background keeps its lock and slot until it really ends, and the Session
//     refuses further operations.
//   - Every error is an *Error naming the BMC's host:port and protocol, and wraps one kind:
//     ErrUnreachable, ErrAuth, ErrNotSupported, ErrTLS, ErrRejected, ErrInvalid or ErrFailed
//     (the flows wrap it in a *StepError that names the step that failed).
//   - Writes are checked by reading back: SetPower waits for the new state, SetBootDevice and
//     EnsureUser re-read what they set, SetBIOS re-reads the pending settings.
package bmc
