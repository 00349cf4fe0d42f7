package opensm

import (
	"crypto/sha256"
	"encoding/hex"
	"sort"
	"strings"
)

// Digest identifies the exact text of one file: what the fabric's `opensm` output keeps per file,
// so a plan shows a one-line change per file instead of the text, and a hand edit on the SM host
// (read back at refresh and digested the same way) still shows as drift of that file.
type Digest struct {
	SHA256 string // lower-case hex of the SHA-256 of the bytes (FIPS 180-4)
	Bytes  int
	Lines  int // newline-terminated lines, plus one for a last line without its newline
}

// DigestOf digests one file's text, byte for byte: nothing is normalised, so a change of a single
// space or a lost trailing newline is a different digest.
func DigestOf(text string) Digest {
	sum := sha256.Sum256([]byte(text))
	lines := strings.Count(text, "\n")
	if text != "" && !strings.HasSuffix(text, "\n") {
		lines++
	}
	return Digest{SHA256: hex.EncodeToString(sum[:]), Bytes: len(text), Lines: lines}
}

// Digests digests every file of a set, keyed by file name.
func Digests(files Files) map[string]Digest {
	out := make(map[string]Digest, len(files))
	for name, text := range files {
		out[name] = DigestOf(text)
	}
	return out
}

// Mismatch lists, sorted in FileNames order, the files of want whose digest files does not
// match (a file absent from files counts as different) and the files of files that want lacks.
// Apply uses it to refuse pushing texts that are not the ones the plan showed.
func Mismatch(files Files, want map[string]Digest) []string {
	var out []string
	seen := map[string]bool{}
	for _, n := range FileNames {
		seen[n] = true
		d, planned := want[n]
		text, have := files[n]
		if planned != have || (planned && DigestOf(text) != d) {
			out = append(out, n)
		}
	}
	var extra []string
	for n := range want {
		if !seen[n] {
			seen[n] = true
			extra = append(extra, n)
		}
	}
	for n := range files {
		if !seen[n] {
			seen[n] = true
			extra = append(extra, n)
		}
	}
	sort.Strings(extra)
	return append(out, extra...)
}
