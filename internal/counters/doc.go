// Package counters turns InfiniBand port counters into something a person can act on: a rate per
// second for every counter, the symbol error rate per bit of each cable end against the link's
// rate, and one verdict per cable, `ok`, `suspect` or `down`, with the reason in words. It knows
// nothing of Terraform; the provider only maps its results to attributes and its Problems to
// diagnostics.
//
// It owns the sampling protocol too (sample.go): Take runs perfquery (internal/opensm) twice,
// a wait apart, on whatever opensm.Runner it is given (the provider's SSH client), keeping what a
// port that stopped answering leaves behind; JudgeCables joins the reads to the cables
// (internal/opensm locates them on the fabric) by LID and port; List and Totals are each port's
// rates and the sums of its counters. Everything else is pure.
//
// # What the counters are
//
// Every InfiniBand port keeps the PortCounters attribute (InfiniBand Architecture Specification,
// Volume 1, Release 1.3, section 16.1.3.5): error counters such as SymbolErrorCounter (16 bits:
// minor link errors the receiver saw on any lane), LinkErrorRecoveryCounter (8 bits: the link
// retrained) and LinkDownedCounter (8 bits: the link went down), and traffic counters such as
// PortXmitData and PortXmitWait (32 bits). They count since the last reset and they saturate:
// at all ones they stop, they never wrap. A total says nothing by itself ("1,500 symbol errors"
// may be a year of a healthy link or a second of a bad one); a rate does. So a read is two reads,
// and what is judged is what changed between them:
//
//	rate = (last - first) / (last.At - first.At)
//
// A counter that went backwards was cleared in between (perfquery -R, a reboot of the node): the
// change counts from zero, and the rate is flagged Reset. A counter at its maximum has stopped
// counting: its change is a lower bound, flagged Saturated, and the port's counters must be
// cleared before it can be measured again. PortCountersExtended (perfquery -x) counters are 64
// bits and never saturate in practice.
//
// # The bit error rate
//
// On HDR and NDR links, forward error correction repairs most raw bit errors; the symbol errors
// that remain are "the actual errors seen by the application level after error correction"
// (NVIDIA, ibdiagnet User Manual v2.21, "Bit Error Rate (BER)"). Per bit, over a window of T
// seconds on a link of R Gb/s:
//
//	symbol BER = Δ SymbolErrorCounter / (R x 10^9 x T)
//
// What is acceptable:
//   - The InfiniBand Architecture Specification (IBTA) requires fewer than one bit error in
//     10^12 bits, as NVIDIA's DGX SuperPOD data center design guide states it ("Mixing Widths
//     and Rates", section "Bit Error Rate"; docs.nvidia.com/dgx-superpod/design-guide-cabling-
//     data-centers). It is ibdiagnet's default BER threshold too (--ber_thresh, 10^12).
//   - NVIDIA's own limit for NDR links is far stricter: UFM's PDR deterministic plugin
//     (NVIDIA UFM-SDN Appliance User Manual v4.18, "PDR Deterministic Plugin", section "NDR
//     Link Validation Procedure") isolates a link when
//     its symbol errors over 12 minutes exceed R x 10^9 x 720 s x 10^-14 (2.88 at 400 Gb/s) or
//     over 125 minutes exceed R x 10^9 x 7500 s x 10^-15 (3 at 400 Gb/s), and when the
//     LinkDownedCounter of both ends rose.
//
// DefaultLimits follows NVIDIA: a cable end is suspect when its symbol BER over the window is
// above 10^-14 and it counted at least 3 symbol errors. The count guards the short window of a
// plan-time read: at 400 Gb/s one error in 10 s is already a BER of 2.5 x 10^-13, so a single
// stray error would otherwise condemn a healthy cable; 3 errors within 12 minutes is exactly
// NVIDIA's 12-minute rule firing (3 > 2.88), so no cable NVIDIA would keep is called suspect
// on a window of 12 minutes or less.
//
// # Verdicts
//
// A cable joins its two ends (Link): both ends' counters and rates, and whether the fabric shows
// it up (ibnetdiscover). Judge gives:
//   - down: the cable is designed but the fabric does not show it. The evidence stays: the
//     counters of the ends that still answer (LinkDownedCounter says how often it went down), and
//     the last rates read while it was up, kept in the Snapshot of an earlier read. A down cable
//     is never reported clean.
//   - suspect: up, and at either end the symbol BER is above the limit (with the minimum count),
//     or the SymbolErrorCounter saturated, or the LinkDownedCounter rose at both ends (the link
//     flapped; one end alone is what a node reboot looks like from the switch).
//   - ok: up and none of the above; the reason says what was measured ("no symbol error in
//     10 s at either end").
//   - absent: not shown by the fabric, and nothing says it was ever cabled: no earlier read saw
//     it up and every counter of the ends that answer is zero (an absent node's cables, an uplink
//     never plugged in). It belongs in absent_cables, not failed_cables.
//
// Suspect and down cables are the ones to record in gpucluster_fabric.failed_cables, by the
// labels Judge reports (Suspects lists them, sorted); absent ones are not.
//
// # Remembering
//
// A plan-time read is short. Snapshot records what one read saw (every end's counters, every
// cable's verdict and its last rates while up) so that the next read, minutes or days later, can
// compute rates over that span when it takes a single read, count the times a link went down in
// between, and keep the evidence of a cable that went down. Terraform keeps it where the
// configuration puts it (an output, read back with terraform_remote_state), or the fabric host
// does, in a file this package reads and replaces (keep.go: ReadSnapshotFile, WriteSnapshotFile,
// atomically and owner-only); the provider hands it to Judge as it was. A file that holds no
// snapshot never stops a read: it goes without one and replaces the file.
package counters
