package asbuilt

import (
	"errors"
	"fmt"
	"strings"
	"unsafe"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/inputfile"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/opensm"
)

// Loaded is a floor with the ibnetdiscover text it was read from and that text parsed, for the
// readers that show the discovery itself beside the floor (gpucluster_discovered_fabric).
type Loaded struct {
	Text string
	// File is the room LoadFileAfter was asked for, then the file Text was read from; nil when
	// the text was not read from a file. Text is File[room:], which is not to be written.
	File       []byte
	Discovered *opensm.Discovered
	// Unparsed lists the lines of Text that ParseTopology could not read and left out, so it is
	// a warning, not an error; what makes the text no one fabric is LoadText's error instead.
	Unparsed error
	Floor    *Floor
}

// Input names what a LoadError is about, so that a caller reports it where the user gave it.
type Input int

const (
	// InputTopology: the topology file cannot be read (missing, or over inputfile.MaxTopologyFile).
	InputTopology Input = iota
	// InputNodeNameMap: the node name map cannot be read or parsed.
	InputNodeNameMap
	// InputFloor: the discovered fabric cannot be adopted (Read's error).
	InputFloor
	// InputTopologyText: the text is not one fabric (opensm.TopologyError's Refusal: a port on
	// two cables, a port beyond its node's count, a number that does not fit...), refused on
	// where the text came from.
	InputTopologyText
	// InputEmpty: the text holds no switch (ErrNoSwitch): a 0-byte or blank file, a failed
	// `ibnetdiscover > file`, bytes that are not ibnetdiscover output. An error unless the
	// caller says an empty floor is meant (LoadOptions.EmptyOK).
	InputEmpty
)

// ErrNoSwitch is LoadText's error for a text that holds no switch.
var ErrNoSwitch = errors.New("the topology holds no switch")

// LoadError is an error of LoadFile or LoadText and the input it is about.
type LoadError struct {
	Input Input
	Err   error
}

func (e *LoadError) Error() string { return e.Err.Error() }
func (e *LoadError) Unwrap() error { return e.Err }

// LoadFile reads the floor from a file of ibnetdiscover output, under inputfile.MaxTopologyFile,
// as LoadText does from its text.
func LoadFile(topologyFile, nodeNameMap string, opts ReadOptions) (*Loaded, error) {
	return LoadFileWith(topologyFile, nodeNameMap, opts, LoadOptions{})
}

// LoadOptions tune LoadText and LoadFile beyond what Read takes.
type LoadOptions struct {
	// EmptyOK adopts a text that holds no node at all (no switch, no CA, and no line it could
	// not read) as an empty floor, for a user who says the floor is empty on purpose. Without
	// it a text with no switch is an InputEmpty error; with it, a text with unreadable lines and
	// no switch is still one (4 MB of random bytes is not an empty floor).
	EmptyOK bool
}

// LoadFileWith is LoadFile with LoadOptions.
func LoadFileWith(topologyFile, nodeNameMap string, opts ReadOptions, lo LoadOptions) (*Loaded, error) {
	return LoadFileAfter(topologyFile, nodeNameMap, opts, lo, 0)
}

// LoadFileAfter is LoadFileWith reading the file after room free bytes (inputfile.ReadAfter),
// which Loaded.File holds: a caller that sends the text on can put a header there instead of
// copying it (gpucluster_discovered_fabric's topology; issue 32 point 5).
func LoadFileAfter(topologyFile, nodeNameMap string, opts ReadOptions, lo LoadOptions, room int) (*Loaded, error) {
	b, err := inputfile.ReadAfter(topologyFile, inputfile.MaxTopologyFile, room)
	if err != nil {
		return &Loaded{}, &LoadError{InputTopology, err}
	}
	// The text is the file's bytes, not a copy of them (64 MiB more at the largest): b is this
	// function's and its caller's alone, and never written again after room.
	text := b[room:]
	l, err := LoadTextWith(unsafe.String(unsafe.SliceData(text), len(text)), nodeNameMap, opts, lo)
	l.File = b
	return l, err
}

// LoadText reads the floor from ibnetdiscover output already fetched (run over SSH): it parses
// the text, reads OpenSM's node name map from the file nodeNameMap names ("" for none, read under
// inputfile.MaxNodeNameMapFile) into opts.NodeNameMap, and Reads the floor. The Loaded is never
// nil, and holds Unparsed even when the error is about a later step, so that a caller reports
// both.
//
// A text with no switch is no floor (issue 32: a failed `ibnetdiscover > file` left 0 bytes, and
// the design was fitted to nothing and everything bought): an InputEmpty error wrapping
// ErrNoSwitch, saying what the text held, unless LoadOptions.EmptyOK and the text holds nothing
// at all. A text cut short at a node boundary is refused by ParseTopology (a cable to a node not
// in the text).
func LoadText(text, nodeNameMap string, opts ReadOptions) (*Loaded, error) {
	return LoadTextWith(text, nodeNameMap, opts, LoadOptions{})
}

// LoadTextWith is LoadText with LoadOptions.
func LoadTextWith(text, nodeNameMap string, opts ReadOptions, lo LoadOptions) (*Loaded, error) {
	l := &Loaded{Text: text}
	var perr, refusal error
	l.Discovered, perr = opensm.ParseTopology(text)
	if l.Unparsed, refusal = opensm.TopologyProblems(perr); refusal != nil {
		return l, &LoadError{InputTopologyText, refusal}
	}
	if err := emptyText(l, lo); err != nil {
		return l, &LoadError{InputEmpty, err}
	}
	if nodeNameMap != "" {
		b, err := inputfile.Read(nodeNameMap, inputfile.MaxNodeNameMapFile)
		if err == nil {
			opts.NodeNameMap, err = opensm.ParseNodeNameMap(string(b))
		}
		if err != nil {
			return l, &LoadError{InputNodeNameMap, err}
		}
	}
	floor, err := Read(l.Discovered, opts)
	if err != nil {
		return l, &LoadError{InputFloor, err}
	}
	l.Floor = floor
	return l, nil
}

// NodeHCADevices is the devices of a floor node's compute HCAs, as gpucluster_node's
// hca_devices lists them: the node's HCAs on the floor when there are as many as it has compute
// HCAs, else the driver's default names (fabric.DefaultHCADevices). A node that does not say
// its count has as many as the floor shows, or when it shows none, what the catalog's model
// (model, the node's or the default; cat nil is catalog.Default()) has.
func NodeHCADevices(spec *fabric.Spec, nd *fabric.Node, cat *catalog.Catalog, model string) []string {
	if cat == nil {
		cat = catalog.Default()
	}
	var devs []string
	for i := range spec.HCAs {
		if spec.HCAs[i].Node == nd.Name {
			devs = append(devs, spec.HCAs[i].Device)
		}
	}
	count := nd.ComputeHCAs
	if count == 0 {
		count = len(devs)
		if nm, ok := cat.Nodes[model]; ok && count == 0 {
			count = nm.ComputeHCAs
		}
	}
	if len(devs) == count {
		return devs
	}
	return fabric.DefaultHCADevices(count)
}

// emptyText is the error for a text with no switch, saying what it held instead; nil for a text
// with a switch, or one with nothing at all when lo.EmptyOK.
func emptyText(l *Loaded, lo LoadOptions) error {
	c := l.Discovered.Counts()
	if c["switches"] > 0 {
		return nil
	}
	nodes := len(l.Discovered.Nodes)
	if lo.EmptyOK && nodes == 0 && l.Unparsed == nil {
		return nil
	}
	var held string
	switch {
	case l.Unparsed != nil:
		held = "nothing ibnetdiscover prints, only lines that cannot be read (the first are listed in Unparsed)"
	case nodes > 0:
		held = fmt.Sprintf("%d CAs and %d routers but no switch", c["cas"], c["routers"])
	case strings.TrimSpace(l.Text) == "":
		held = fmt.Sprintf("no text at all (%d bytes, blank): a failed `ibnetdiscover > file` leaves that", len(l.Text))
	default:
		held = "comments only"
	}
	what := "; it holds " + held + ". Read the floor again (ibnetdiscover on a host of the fabric, with an SM running)"
	if lo.EmptyOK {
		return fmt.Errorf("%w%s; an empty floor said on purpose is a text with no node and no unreadable line", ErrNoSwitch, what)
	}
	return fmt.Errorf("%w, so it is no floor to adopt or fit a design to%s, or say the floor is empty on purpose", ErrNoSwitch, what)
}
