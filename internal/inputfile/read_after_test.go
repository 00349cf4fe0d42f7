package inputfile

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// ReadAfter reads what Read reads, after room zero bytes, and refuses what Read refuses.
func TestReadAfter(t *testing.T) {
	dir := t.TempDir()
	for _, size := range []int{0, 1, 511, 512, 513, 4096} {
		p := filepath.Join(dir, "f")
		content := bytes.Repeat([]byte("ab\n"), size)[:size]
		if err := os.WriteFile(p, content, 0o600); err != nil {
			t.Fatal(err)
		}
		for _, room := range []int{0, 5} {
			b, err := ReadAfter(p, 4096, room)
			if err != nil {
				t.Fatalf("%d bytes, room %d: %v", size, room, err)
			}
			if !bytes.Equal(b[:room], make([]byte, room)) || !bytes.Equal(b[room:], content) {
				t.Errorf("%d bytes, room %d: read %d bytes", size, room, len(b))
			}
		}
	}
	// Not a regular file: read up to the limit and refused past it, room or not.
	for _, room := range []int{0, 5} {
		var tl *TooLargeError
		if _, err := ReadAfter("/dev/zero", 1000, room); !errors.As(err, &tl) {
			t.Errorf("room %d: /dev/zero read: %v", room, err)
		}
	}
}
