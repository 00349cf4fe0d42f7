// Package inputfile reads the local files a plan reads (policy files, catalog files, the
// topology file and node name map of a floor, known_hosts) under a size cap, so that no path a
// configuration names can exhaust the memory of the machine that runs Terraform: issue 22 found
// `policy_files = ["/dev/zero"]` ending the plan in `fatal error: out of memory` after 5.3 GB.
//
// Invariants: Read never reads more than max+1 bytes of a file (and allocates at most three times
// that while its buffer grows), whatever the file is (a regular file, a sparse file of any size,
// a device such as /dev/zero that never ends, a file that grows while it is read); a file over
// its cap is an error of type *TooLargeError that names the file and the cap. The caps below are the one source of truth for each kind of file, each with the
// reason for its size.
package inputfile

import (
	"errors"
	"fmt"
	"io"
	"os"
)

// The caps, in bytes. Each is far above any real file of its kind and far below what would
// strain the machine that runs Terraform; Read holds at most cap+1 bytes.
const (
	// MaxPolicyFile caps a policy file: HCL rules written by hand. The policies of the examples
	// are under 2 KB; 4 MiB is a thousand pages of rules.
	MaxPolicyFile int64 = 4 << 20
	// MaxCatalogFile caps a catalog file (provider catalog_files): the built-in catalog, every
	// model and part the provider knows, is 10 KB; 4 MiB holds tens of thousands of parts.
	MaxCatalogFile int64 = 4 << 20
	// MaxTopologyFile caps the topology_file of a floor (asbuilt.LoadFile; ibnetdiscover
	// output or an ibsim net file). The largest fabric the generator builds (65,536 endpoints,
	// 70,656 devices, 196,608 links) is 17.5 MB as ExpectedTopology writes it; real
	// ibnetdiscover lines carry longer descriptions, so 64 MiB leaves room for 3.6 times that.
	MaxTopologyFile int64 = 64 << 20
	// MaxNodeNameMapFile caps the node_name_map of a floor (asbuilt.LoadText; OpenSM's
	// format, one `GUID "name"` line of about 40 bytes per device): the largest fabric the
	// generator builds has 70,656 devices, about 3 MB; 16 MiB is five times that.
	MaxNodeNameMapFile int64 = 16 << 20
	// MaxKnownHostsFile caps an OpenSSH known_hosts file: a line holds one host's key, under
	// 700 bytes for RSA-4096 with a hashed host name, so 64 MiB is about 100,000 hosts.
	MaxKnownHostsFile int64 = 64 << 20
)

// TooLargeError is a file over its cap. Size is its size when the file system knows it
// (a regular file), -1 otherwise (a device or a pipe read up to the cap).
type TooLargeError struct {
	Path string
	Max  int64
	Size int64
}

func (e *TooLargeError) Error() string {
	held := "holds more than"
	if e.Size >= 0 {
		held = fmt.Sprintf("is %s, more than", Bytes(e.Size))
	}
	return fmt.Sprintf("%q %s %s, the most the provider reads from a file of this kind; give the path of the intended file (a device such as /dev/zero, or a file this large, is not one)", e.Path, held, Bytes(e.Max))
}

// Read returns the content of the file at path, or a *TooLargeError when it holds more than limit
// bytes. A regular file is refused by its size before any byte is read; anything else (a device,
// a pipe, a file that grows) is read up to limit+1 bytes and refused there.
func Read(path string, limit int64) ([]byte, error) {
	return ReadAfter(path, limit, 0)
}

// ReadAfter is Read with room bytes left free before the content (zeros, for the caller to put
// a header in without copying the content after it: buf[room:] is the file).
func ReadAfter(path string, limit int64, room int) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	want := int64(512)
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
		if st.Size() > limit {
			return nil, &TooLargeError{Path: path, Max: limit, Size: st.Size()}
		}
		want = st.Size() + 1 // +1 so that a file at exactly its size reads to EOF in one buffer
	}
	buf := make([]byte, room, int64(room)+min(want, limit+1))
	r := io.LimitReader(f, limit+1)
	for int64(len(buf)-room) <= limit {
		if len(buf) == cap(buf) { // double, up to the cap and its one extra byte
			next := make([]byte, len(buf), int64(room)+min(2*int64(cap(buf)-room), limit+1))
			copy(next, buf)
			buf = next
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	if int64(len(buf)-room) > limit {
		return nil, &TooLargeError{Path: path, Max: limit, Size: -1}
	}
	return buf, nil
}

// Check reports the errors Read would, for a file that another library opens by name (known_hosts,
// read by golang.org/x/crypto/ssh/knownhosts), and keeps nothing: a regular file is judged by its
// size, anything else is read and discarded up to limit+1 bytes.
func Check(path string, limit int64) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
		if st.Size() > limit {
			return &TooLargeError{Path: path, Max: limit, Size: st.Size()}
		}
		return nil
	}
	n, err := io.Copy(io.Discard, io.LimitReader(f, limit+1))
	if err != nil {
		return err
	}
	if n > limit {
		return &TooLargeError{Path: path, Max: limit, Size: -1}
	}
	return nil
}

// CheckPath is the rule for an argument that names a file to read: "" names no file, and
// opening it fails with "open : no such file or directory", which says neither which argument
// nor what it takes. It returns "" for a path that can name a file (whether the file is there is
// Read's to say, on the machine that reads it), else a sentence that says what to give: the path
// of what, or instead (what leaving the argument out does).
func CheckPath(path, what, instead string) string {
	if path != "" {
		return ""
	}
	return fmt.Sprintf(`"" names no file: give the path of %s, or %s`, what, instead)
}

// Bytes writes a size the way people read it: "4 MiB", "17.5 MiB", "512 bytes".
func Bytes(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}
