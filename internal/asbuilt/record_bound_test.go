package asbuilt

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/testgate"
)

// TestRecordBoundMeasured measures what a record of the largest floor this provider plans inflates
// to (65,536 endpoints: a three-tier fat tree of 64-port switches, 2,048 leaves, 2,048 spines and
// 1,024 cores, 8,192 nodes of 8 HCAs and 196,608 cables), from the bytes each item of the 8 SU
// hand floor takes in the record's JSON, with every name 4 bytes longer; maxRecordJSON must be a
// small multiple (2 to 8) of it.
func TestRecordBoundMeasured(t *testing.T) {
	f := readFloor(t, handFloor{sus: 8}, true).Spec
	size := func(v any) float64 {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return float64(len(b))
	}
	per := func(n int, total float64) float64 { return total/float64(n) + 4*2 } // name and key 4 bytes longer
	sw := per(len(f.Switches), size(f.Switches))
	nd := per(len(f.Nodes), size(f.Nodes))
	hc := per(len(f.HCAs), size(f.HCAs))
	cb := per(len(f.Cables), size(f.Cables)) + 4*2 // both ends' device names
	big := 5120*sw + 8192*nd + 65536*hc + 196608*cb
	whole, err := json.Marshal(recordBody{Version: recordVersion, Switches: f.Switches, Nodes: f.Nodes, HCAs: f.HCAs, Cables: f.Cables})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("8 SU floor: %d switches, %d nodes, %d HCAs, %d cables: %d bytes of JSON; per item %.0f, %.0f, %.0f, %.0f bytes",
		len(f.Switches), len(f.Nodes), len(f.HCAs), len(f.Cables), len(whole), sw, nd, hc, cb)
	t.Logf("65,536-endpoint floor: about %.1f MiB of JSON; maxRecordJSON %d MiB is %.1fx that", big/(1<<20), maxRecordJSON>>20, float64(maxRecordJSON)/big)
	if r := float64(maxRecordJSON) / big; r < 2 || r > 8 {
		t.Errorf("maxRecordJSON is %.1fx the largest floor's record, not a small multiple (2 to 8)", r)
	}
}

// A record that inflates past maxRecordJSON (zeros: 1 GiB from about 1 MB of gzip) is refused
// as altered, saying the bound, having inflated no more than the bound; one just under it is
// read (and refused only for its digest).
func TestRecordInflationBound(t *testing.T) {
	testgate.RequireLong(t, "gzip bombs of 160 MiB and 1 GiB")
	bomb := func(n int64) Record {
		var z bytes.Buffer
		w, _ := gzip.NewWriterLevel(&z, gzip.BestCompression)
		chunk := make([]byte, 1<<20)
		for left := n; left > 0; left -= int64(len(chunk)) {
			if left < int64(len(chunk)) {
				chunk = chunk[:left]
			}
			if _, err := w.Write(chunk); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		return Record{SHA256: strings.Repeat("0", 64), Data: base64.StdEncoding.EncodeToString(z.Bytes())}
	}
	big := bomb(1 << 30)
	start := time.Now()
	_, err := DecodeRecord(big)
	took := time.Since(start)
	if !errors.Is(err, ErrRecordAltered) || !strings.Contains(err.Error(), fmt.Sprintf("inflates past %d MiB", maxRecordJSON>>20)) {
		t.Fatalf("a record inflating to 1 GiB: %v", err)
	}
	t.Logf("a record of %d bytes inflating to 1 GiB refused in %v", len(big.Data), took)
	_, err = DecodeRecord(bomb(maxRecordJSON))
	if !errors.Is(err, ErrRecordAltered) || strings.Contains(err.Error(), "inflates past") {
		t.Fatalf("a record of exactly the bound is refused for its size: %v", err)
	}
}
