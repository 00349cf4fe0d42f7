package inputfile

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// The inputs of issue 22 that ended plans in `fatal error: out of memory`: /dev/zero (a device
// that never ends) and a sparse file of a terabyte (a regular file the size of a disk, which
// costs nothing to make). Each is refused with the path and the cap, and holds little memory.
func TestReadRefusesWhatIsTooLarge(t *testing.T) {
	sparse := filepath.Join(t.TempDir(), "sparse")
	f, err := os.Create(sparse)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(1 << 40); err != nil {
		t.Fatal(err)
	}
	f.Close()
	for _, tc := range []struct {
		path string
		max  int64
		want string
	}{
		{"/dev/zero", MaxPolicyFile, `"/dev/zero" holds more than 4 MiB, the most the provider reads from a file of this kind`},
		{"/dev/zero", MaxTopologyFile, `"/dev/zero" holds more than 64 MiB`},
		{sparse, MaxCatalogFile, `"` + sparse + `" is 1024 GiB, more than 4 MiB`},
	} {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		b, err := Read(tc.path, tc.max)
		runtime.ReadMemStats(&after)
		var tl *TooLargeError
		if !errors.As(err, &tl) || tl.Path != tc.path || tl.Max != tc.max {
			t.Errorf("Read(%s, %d) = %d bytes, %v; want a TooLargeError", tc.path, tc.max, len(b), err)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Read(%s): %q; want it to say %q", tc.path, err, tc.want)
		}
		// Allocated during the read: the buffer doubling up to the cap and its one extra byte
		// (at most three times that in all), and nothing of a terabyte.
		if got := after.TotalAlloc - before.TotalAlloc; got > 3*uint64(tc.max)+1<<20 {
			t.Errorf("Read(%s, %d) allocated %d bytes", tc.path, tc.max, got)
		}
		if err := Check(tc.path, tc.max); !errors.As(err, &tl) {
			t.Errorf("Check(%s, %d) = %v; want a TooLargeError", tc.path, tc.max, err)
		}
	}
}

// Files at the cap and below are read whole, byte for byte; one byte more is refused.
func TestReadAtTheCap(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []int64{0, 1, 511, 512, 513, 4096, 100_000} {
		want := bytes.Repeat([]byte("ab\n"), int(n/3+1))[:n]
		p := filepath.Join(dir, "f")
		if err := os.WriteFile(p, want, 0o600); err != nil {
			t.Fatal(err)
		}
		got, err := Read(p, n)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%d bytes at cap %d: %d bytes, %v", n, n, len(got), err)
		}
		if err := Check(p, n); err != nil {
			t.Errorf("Check %d bytes at cap %d: %v", n, n, err)
		}
		if n > 0 {
			var tl *TooLargeError
			if _, err := Read(p, n-1); !errors.As(err, &tl) || tl.Size != n {
				t.Errorf("%d bytes at cap %d: %v; want a TooLargeError of size %d", n, n-1, err, n)
			}
		}
	}
	// A device read to its end under the cap (a pipe, /dev/null) is read whole.
	if got, err := Read("/dev/null", 10); err != nil || len(got) != 0 {
		t.Errorf("/dev/null: %q, %v", got, err)
	}
	if _, err := Read(filepath.Join(dir, "missing"), 10); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v; want the open error", err)
	}
}

func TestBytes(t *testing.T) {
	for n, want := range map[int64]string{0: "0 bytes", 1023: "1023 bytes", 1024: "1 KiB", 1536: "1.5 KiB", 4 << 20: "4 MiB", 17_543_482: "16.7 MiB", 1 << 40: "1024 GiB"} {
		if got := Bytes(n); got != want {
			t.Errorf("Bytes(%d) = %q, want %q", n, got, want)
		}
	}
}
