package asbuilt

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"sync"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/bom"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
)

// Record is a floor as a design carries it from gpucluster_topology to the fabric: the floor's
// switches, nodes, HCAs and cables as canonical JSON, gzipped and base64-encoded (Data), and the
// SHA-256 of that JSON (SHA256, hex). A floor of 8 scalable units is about 6,500 devices and
// cables; as nested maps every copy of it costs Terraform seconds to decode, compare and show
// (a whole plan took 12x the plan of the same design without it), where one string costs
// nothing. The digest makes a hand-edited or truncated record an error rather than a different
// floor.
type Record struct {
	SHA256 string
	Data   string
}

// recordVersion is the first field of the encoded JSON: a record of another version is refused,
// not misread.
const recordVersion = 1

// recordBody is what a Record encodes. Field order and encoding/json's sorted map keys make the
// JSON, and so the digest, a function of the floor alone.
type recordBody struct {
	Version  int
	Switches []fabric.Switch
	Nodes    []fabric.Node
	HCAs     []fabric.HCA
	Cables   []fabric.Cable
}

// Summary counts a floor for people, as a design's as_built shows it beside the record: "96
// switches, 256 nodes, 2,048 HCAs, 4,096 cables".
func Summary(floor *fabric.Spec) string {
	return fmt.Sprintf("%s switches, %s nodes, %s HCAs, %s cables",
		bom.Count(len(floor.Switches)), bom.Count(len(floor.Nodes)), bom.Count(len(floor.HCAs)), bom.Count(len(floor.Cables)))
}

// EncodeRecord records the floor's switches, nodes, HCAs and cables (a floor has no racks or
// partitions), each list in the order of its items' keys (their names; a cable's lower-tier
// end), as Terraform's maps of them were ordered: the same floor always gives the same Record,
// whether it was read from ibnetdiscover's text or from maps, and the fit sees it in one order.
//
// The record is also kept as decoded (recent), so a reader of it in the same plan (the cable
// validation reading the discovered fabric's floor) does not inflate and parse it again. What
// is kept is what DecodeRecord would give: the items in the record's order, every field a
// string or number that JSON carries exactly; a name with bytes that are not UTF-8 (which JSON
// writes as U+FFFD) is not kept, and its record is decoded as written. A list already in key
// order is kept as it is, not copied (a 65,536-endpoint floor's cables and HCAs, 27 MB), so
// floor is shared with the plan's readers as DecodeRecord's floors are: do not change it after.
func EncodeRecord(floor *fabric.Spec) (Record, error) {
	body := recordBody{Version: recordVersion,
		Switches: byKey(floor.Switches, func(x *fabric.Switch) string { return x.Key }),
		Nodes:    byKey(floor.Nodes, func(x *fabric.Node) string { return x.Key }),
		HCAs:     byKey(floor.HCAs, func(x *fabric.HCA) string { return x.Key }),
		Cables:   byKey(floor.Cables, func(x *fabric.Cable) string { return x.Key }),
	}
	// The JSON is written a few items at a time into the digest and the gzip stream, never whole:
	// a 65,536-endpoint floor's is 41 MiB, which json.Marshal built by doubling and then copied
	// (issue 32 point 5). The bytes are json.Marshal's of body: an object's fields in order, a
	// slice as its items' encodings between brackets, joined by commas, null for a nil slice.
	sum := sha256.New()
	var z bytes.Buffer
	w := gzip.NewWriter(&z) // no name or time in the header: the bytes are the floor's alone
	rw := &recordWriter{out: io.MultiWriter(sum, w)}
	rw.raw(`{"Version":`)
	rw.value(body.Version)
	rw.raw(`,"Switches":`)
	recordList(rw, body.Switches)
	rw.raw(`,"Nodes":`)
	recordList(rw, body.Nodes)
	rw.raw(`,"HCAs":`)
	recordList(rw, body.HCAs)
	rw.raw(`,"Cables":`)
	recordList(rw, body.Cables)
	rw.raw(`}`)
	rw.flush()
	if rw.err != nil {
		return Record{}, fmt.Errorf("recording the floor: %w", rw.err)
	}
	if err := w.Close(); err != nil {
		return Record{}, err
	}
	rec := Record{SHA256: hex.EncodeToString(sum.Sum(nil)), Data: base64.StdEncoding.EncodeToString(z.Bytes())}
	if !rw.replaced {
		recent.put(rec, &fabric.Spec{Switches: body.Switches, Nodes: body.Nodes, HCAs: body.HCAs, Cables: body.Cables})
	}
	return rec, nil
}

// recordWriter writes a record's JSON in pieces: each value is encoded into one reused buffer
// and written out once the buffer holds recordChunk bytes. replaced is whether some string held
// bytes that are not UTF-8, which JSON writes as U+FFFD (an escape within one value's encoding,
// so it is seen whole in the buffer).
type recordWriter struct {
	out      io.Writer
	buf      bytes.Buffer
	enc      *json.Encoder
	replaced bool
	err      error
}

const recordChunk = 64 << 10

func (rw *recordWriter) raw(s string) {
	rw.buf.WriteString(s)
}

// value appends v as json.Marshal writes it (json.Encoder escapes HTML as Marshal does; the
// newline it ends a value with is taken off).
func (rw *recordWriter) value(v any) {
	if rw.err != nil {
		return
	}
	if rw.enc == nil {
		rw.enc = json.NewEncoder(&rw.buf)
	}
	start := rw.buf.Len()
	if err := rw.enc.Encode(v); err != nil {
		rw.err = err
		return
	}
	rw.buf.Truncate(rw.buf.Len() - 1)
	if bytes.Contains(rw.buf.Bytes()[start:], []byte(`\ufffd`)) {
		rw.replaced = true
	}
	if rw.buf.Len() >= recordChunk {
		rw.flush()
	}
}

func (rw *recordWriter) flush() {
	if rw.err == nil {
		_, rw.err = rw.out.Write(rw.buf.Bytes())
	}
	rw.buf.Reset()
}

// recordList writes items as json.Marshal writes a slice.
func recordList[T any](rw *recordWriter, items []T) {
	if items == nil {
		rw.raw("null")
		return
	}
	rw.raw("[")
	for i := range items {
		if i > 0 {
			rw.raw(",")
		}
		rw.value(&items[i])
	}
	rw.raw("]")
}

// ErrRecordAltered is returned by DecodeRecord for a record whose data is not what its digest
// says: edited, truncated or pasted from another floor.
var ErrRecordAltered = errors.New("the floor record does not match its sha256")

// maxRecordJSON bounds what DecodeRecord inflates, so that a forged record cannot exhaust the
// planner's memory or time (issue 32: a 1 MB record inflating to 1 GiB took 25 s and 2.7 GB
// before it was refused). The record of the largest floor planned, 65,536 endpoints, is about
// 41 MiB of JSON (TestRecordBoundMeasured); the bound is about 4x that. The gzip stream is read
// through a LimitReader, so no more than this is ever inflated.
const maxRecordJSON = 160 << 20

// DecodeRecord gives back the floor EncodeRecord recorded, after checking the digest. The floor
// is shared: a plan reads one record several times (the topology's floor, then the design's in
// the fabric and the BOM), and the record decoded last is given again without inflating or
// parsing it (recent). Read the floor; to change it, change a Clone.
func DecodeRecord(r Record) (*fabric.Spec, error) {
	if f := recent.get(r); f != nil {
		return f, nil
	}
	f, err := decodeRecord(r)
	if err != nil {
		return nil, err
	}
	recent.put(r, f)
	return f, nil
}

// recent holds the floors decoded last, by their whole record (its data as well as its digest,
// so an edited record is never taken for the one it was edited from). A provider process lives
// for one Terraform command, which reads a floor or two.
var recent = &recordCache{}

type recordCache struct {
	mu      sync.Mutex
	records []Record
	floors  []*fabric.Spec
}

const recentRecords = 2

func (c *recordCache) get(r Record) *fabric.Spec {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, k := range c.records {
		if k == r {
			return c.floors[i]
		}
	}
	return nil
}

func (c *recordCache) put(r Record, f *fabric.Spec) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if slices.Contains(c.records, r) {
		return
	}
	if len(c.records) == recentRecords {
		c.records, c.floors = c.records[1:], c.floors[1:]
	}
	c.records, c.floors = append(c.records, r), append(c.floors, f)
}

func decodeRecord(r Record) (*fabric.Spec, error) {
	z, err := base64.StdEncoding.DecodeString(r.Data)
	if err != nil {
		return nil, fmt.Errorf("%w: its data is not base64 (%v)", ErrRecordAltered, err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(z))
	if err != nil {
		return nil, fmt.Errorf("%w: its data is not gzip (%v)", ErrRecordAltered, err)
	}
	js, err := io.ReadAll(io.LimitReader(zr, maxRecordJSON+1))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrRecordAltered, err)
	}
	if len(js) > maxRecordJSON {
		return nil, fmt.Errorf("%w: it inflates past %d MiB, about 4 times the record of a 65,536-endpoint floor", ErrRecordAltered, maxRecordJSON>>20)
	}
	if sum := sha256.Sum256(js); hex.EncodeToString(sum[:]) != r.SHA256 {
		return nil, ErrRecordAltered
	}
	var b recordBody
	if err := json.Unmarshal(js, &b); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrRecordAltered, err)
	}
	if b.Version != recordVersion {
		return nil, fmt.Errorf("a floor record of version %d; this provider reads version %d: read the floor again with this provider's gpucluster_topology", b.Version, recordVersion)
	}
	return &fabric.Spec{Switches: b.Switches, Nodes: b.Nodes, HCAs: b.HCAs, Cables: b.Cables}, nil
}

// byKey is items in the order of their keys: items itself when they are in that order already
// (a floor read from a text: its cables and HCAs, most of it), else a sorted copy (items is left
// as it is). The sort is stable, so items without keys keep their order.
func byKey[T any](items []T, key func(*T) string) []T {
	// By index, not by value: a comparison of two copies whose address key takes moved both to
	// the heap, 70 MB of garbage for a 65,536-endpoint floor's cables.
	sorted := true
	for i := 1; i < len(items) && sorted; i++ {
		sorted = key(&items[i-1]) <= key(&items[i])
	}
	if sorted {
		return items
	}
	out := slices.Clone(items)
	sort.SliceStable(out, func(i, j int) bool { return key(&out[i]) < key(&out[j]) })
	return out
}
