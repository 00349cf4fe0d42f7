package tfwire

import (
	"bytes"
	"strings"
	"testing"
)

// A string encoded in place after its room is what AppendString writes, at every header width
// (fixstr, str8, str16, str32) and at their edges.
func TestStringAfterIsAppendString(t *testing.T) {
	for _, n := range []int{0, 1, 31, 32, 255, 256, 65535, 65536, 1 << 20} {
		s := strings.Repeat("x", n)
		buf := append(bytes.Repeat([]byte{0xee}, StringRoom), s...)
		if got, want := StringAfter(buf, StringRoom), AppendString(nil, s); !bytes.Equal(got, want) {
			t.Errorf("%d bytes: header %x, AppendString's %x", n, got[:min(len(got), 5)], want[:min(len(want), 5)])
		}
	}
}
