package fabric

import (
	"fmt"
	"strconv"
	"strings"
)

// labelSep joins the two ends of a cable label. Readers accept it with or without the spaces.
const labelSep = " <-> "

// CableLabel is the label of a cable with ends a and b, in that order:
// "<a.device>:<a.port> <-> <b.device>:<b.port>" ("leaf01:33 <-> gpu001/mlx5_0:1"). It is the one
// builder of the label gpucluster_cable computes, absent_cables and import IDs take and the BOM
// and the drift reports print; ParseCableLabel reads it back.
func CableLabel(a, b End) string { return JoinEnds(a.String(), b.String()) }

// JoinEnds is the label of a cable whose end labels are already spelled ("leaf01:40",
// "gpu001/mlx5_0:1", as End.String writes them): CableLabel for callers that hold strings.
func JoinEnds(a, b string) string { return a + labelSep + b }

// ParseEnd reads a cable end label "<device>:<port>" (End.String): the device is everything
// before the last ':' (no device name holds one, CheckName), a switch name or an HCA name
// ("gpu001/mlx5_0"); the port is a decimal number from 1.
func ParseEnd(s string) (End, error) {
	i := strings.LastIndex(s, ":")
	if i < 0 {
		return End{}, fmt.Errorf("cable end %q has no \":PORT\"", s)
	}
	port, err := strconv.Atoi(s[i+1:])
	if err != nil || port < 1 {
		return End{}, fmt.Errorf("cable end %q: port %q is not a number from 1", s, s[i+1:])
	}
	if dev := s[:i]; CheckName(dev) != "" && CheckHCAName(dev) != "" {
		return End{}, fmt.Errorf("cable end %q: %q is neither a switch name nor an HCA name", s, dev)
	}
	return End{Device: s[:i], Port: port}, nil
}

// ParseCableLabel reads a cable label (CableLabel); the spaces around "<->" are optional.
func ParseCableLabel(s string) (a, b End, err error) {
	left, right, ok := SplitLabel(s)
	if !ok {
		return a, b, fmt.Errorf("%q is not a cable label: no \"<->\" between the ends", s)
	}
	if a, err = ParseEnd(left); err != nil {
		return a, b, err
	}
	b, err = ParseEnd(right)
	return a, b, err
}

// SplitLabel splits a full cable label at "<->" into its two end labels, trimmed, without
// checking them (lookups by label: JoinEnds(SplitLabel(s)) is the form a label is indexed by,
// whatever the spaces); ok is false for a string without "<->" (an end label, or no label).
func SplitLabel(s string) (a, b string, ok bool) {
	left, right, ok := strings.Cut(s, strings.TrimSpace(labelSep))
	return strings.TrimSpace(left), strings.TrimSpace(right), ok
}
