package plan

import (
	"fmt"
	"sync"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/asbuilt"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/topogen"
)

// A plan fits its floor once. gpucluster_topology fits the design to the floor and hands the
// floor on in its design; gpucluster_fabric and gpucluster_bom, given that design, would fit
// the same design to the same floor again (issue 28). Within one provider process (a Terraform
// command's walk) the floor decoded from one record is one *fabric.Spec
// (asbuilt.DecodeRecord), so the fit is kept by the design's arguments, the floor and the
// catalog, and each reader gets its own Clone of it.

type fitKey struct {
	cat    *catalog.Catalog
	params string // the design's arguments, normalized, as fmt prints them (maps in key order)
	floor  *fabric.Spec
}

// fits holds the fits made last; a process plans one fabric or two.
var fits = &fitMemo{}

type fitMemo struct {
	mu    sync.Mutex
	keys  []fitKey
	fits  []*asbuilt.Fitted
	count int // fits made, for tests
}

const recentFits = 4

// fit is asbuilt.Fit of the generated design des onto floor, made once per key. The key is the
// design's normalized arguments (topogen.Design.Normalized), not those it was generated from:
// the topology generates from its own arguments, the fabric from the design object, which holds
// them normalized, and both are the same design.
func (m *fitMemo) fit(cat *catalog.Catalog, des *topogen.Design, floor *fabric.Spec) (*asbuilt.Fitted, error) {
	f, err := m.shared(cat, des, floor)
	if err != nil {
		return nil, err
	}
	return f.Clone(), nil
}

// shared is the memo's own fit, not a copy: for readers that only read it.
func (m *fitMemo) shared(cat *catalog.Catalog, des *topogen.Design, floor *fabric.Spec) (*asbuilt.Fitted, error) {
	k := fitKey{cat, fmt.Sprintf("%+v", des.Normalized()), floor}
	m.mu.Lock()
	for i, x := range m.keys {
		if x == k {
			f := m.fits[i]
			m.mu.Unlock()
			return f, nil
		}
	}
	m.mu.Unlock()
	f, err := asbuilt.Fit(des, floor, cat)
	if err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.count++
	if len(m.keys) == recentFits {
		m.keys, m.fits = m.keys[1:], m.fits[1:]
	}
	m.keys, m.fits = append(m.keys, k), append(m.fits, f)
	return f, nil
}

// FloorFit is asbuilt.Fit of the generated design des onto floor, made once per plan with the
// fits Design makes (the same memo), for a reader that compares the design with a floor it does
// not build on (gpucluster_cable_validation's firstlight.MatchFitted). The Fitted is shared:
// read it, never change it.
func FloorFit(cat *catalog.Catalog, des *topogen.Design, floor *fabric.Spec) (*asbuilt.Fitted, error) {
	return fits.shared(cat, des, floor)
}
