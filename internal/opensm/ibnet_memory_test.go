package opensm

import (
	"runtime"
	"strings"
	"testing"
)

// Reading a text costs at most a few times its size (issue 32: 64 MiB of blank lines cost 27
// bytes of memory per byte read, one string header per line). 16 MiB of blank lines, and of
// lines that cannot be read, allocate under 1.5 bytes per byte in all (0.73 measured; the bound was 4).
func TestParseTopologyMemory(t *testing.T) {
	const size = 16 << 20
	line := "this is not ibnetdiscover output\n"
	for name, text := range map[string]string{
		"blank lines": strings.Repeat("\n", size),
		"unreadable":  strings.Repeat(line, size/len(line)),
	} {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		_, _ = ParseTopology(text)
		runtime.ReadMemStats(&after)
		per := float64(after.TotalAlloc-before.TotalAlloc) / float64(len(text))
		t.Logf("%s: %d bytes, %.2f bytes allocated per byte", name, len(text), per)
		if per > 1.5 {
			t.Errorf("%s: %.1f bytes allocated per byte read", name, per)
		}
	}
}
