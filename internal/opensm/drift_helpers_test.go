package opensm

import "strings"

// String is the report's lines, for the tests that compare and print reports.
func (r Report) String() string { return strings.Join(r.Lines(), "\n") }
