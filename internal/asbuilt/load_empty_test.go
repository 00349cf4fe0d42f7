package asbuilt

import (
	"errors"
	"math/rand"
	"os"
	"strings"
	"testing"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/opensm"
)

// An empty floor is not a floor (issue 32): a 0-byte file (a failed `ibnetdiscover > file`),
// blank lines, comments, random bytes or a text of CAs alone is an InputEmpty error wrapping
// ErrNoSwitch, saying what the text held; EmptyOK adopts the texts that hold nothing at all
// and nothing else.
func TestLoadRefusesAnEmptyFloor(t *testing.T) {
	rnd := rand.New(rand.NewSource(32))
	noise := make([]byte, 1<<16)
	rnd.Read(noise)
	for _, tc := range []struct {
		name, text string
		held       string // what the error says the text held
		emptyOK    bool   // adopted as an empty floor with EmptyOK
	}{
		{"0 bytes", "", "no text at all (0 bytes", true},
		{"blank lines", strings.Repeat("\n \t\n", 1000), "no text at all (4000 bytes", true},
		{"comments", "# Topology file: generated on ...\n#\n", "comments only", true},
		{"random bytes", string(noise), "only lines that cannot be read", false},
		{"CAs alone", "caguid=0x10\nCa 1 \"a\"\n[1](11) \"b\"[1] # lid 1 4xHDR\n\ncaguid=0x20\nCa 1 \"b\"\n[1](21) \"a\"[1] # lid 2 4xHDR\n",
			"2 CAs and 0 routers but no switch", false},
	} {
		for _, ok := range []bool{false, true} {
			l, err := LoadTextWith(tc.text, "", ReadOptions{}, LoadOptions{EmptyOK: ok})
			if ok && tc.emptyOK {
				if err != nil || l.Floor == nil || len(l.Floor.Spec.Switches)+len(l.Floor.Spec.Nodes)+len(l.Floor.Spec.Cables) != 0 {
					t.Errorf("%s, empty_ok: want an empty floor, got %v", tc.name, err)
				}
				continue
			}
			var le *LoadError
			if !errors.As(err, &le) || le.Input != InputEmpty || !errors.Is(err, ErrNoSwitch) || !strings.Contains(err.Error(), tc.held) {
				t.Errorf("%s (empty_ok %v): want InputEmpty saying %q, got %v", tc.name, ok, tc.held, err)
			}
			if err != nil && len(err.Error()) > 4096 {
				t.Errorf("%s: an error of %d bytes", tc.name, len(err.Error()))
			}
		}
	}
	// The same through LoadFile, and LoadFile's default is LoadText's.
	if _, err := LoadFile(writeFile(t, ""), "", ReadOptions{}); !errors.Is(err, ErrNoSwitch) {
		t.Errorf("a 0-byte file: %v", err)
	}
}

// A snapshot cut short at a node boundary (each block after the first k dropped) is refused as
// not one fabric, naming a cable to a node the text no longer holds; the whole text is adopted.
// Which cuts leave a dangling cable is counted here from the text itself: a cut is refused
// exactly when some kept block names a peer id that no kept block declares.
func TestLoadRefusesATruncatedFloor(t *testing.T) {
	b, err := os.ReadFile("../../examples/clusters/brownfield/floor/ibnetdiscover.out")
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	if _, err := LoadText(text, "", ReadOptions{Simulated: true}); err != nil {
		t.Fatalf("the whole floor: %v", err)
	}
	blocks := strings.Split(text, "\n\n")
	refused := 0
	for _, k := range []int{len(blocks) / 4, len(blocks) / 2, len(blocks) - 1} {
		cut := strings.Join(blocks[:k], "\n\n") + "\n"
		d, _ := opensm.ParseTopology(strings.Join(blocks[:k], "\n\n"))
		ids := map[string]bool{}
		for _, n := range d.Nodes {
			ids[n.ID] = true
		}
		dangling := false
		for _, blk := range blocks[:k] {
			for _, line := range strings.Split(blk, "\n") {
				if strings.HasPrefix(strings.TrimSpace(line), "[") {
					_, rest, _ := strings.Cut(line, "\"")
					peer, _, _ := strings.Cut(rest, "\"")
					if !ids[peer] {
						dangling = true
					}
				}
			}
		}
		_, err := LoadText(cut, "", ReadOptions{Simulated: true})
		var le *LoadError
		refusedHere := errors.As(err, &le) && le.Input == InputTopologyText && strings.Contains(err.Error(), "cut short")
		if refusedHere != dangling {
			t.Errorf("cut after %d of %d blocks: dangling cables %v, refused %v (%v)", k, len(blocks), dangling, refusedHere, err)
		}
		if refusedHere {
			refused++
		}
	}
	if refused == 0 {
		t.Fatal("no cut left a dangling cable: the test proves nothing")
	}
}
