package fabric

import "math"

// Hall geometry used to estimate cable runs from rack placement. The figures are the common
// data-centre defaults: 600 mm wide racks, a 1200 mm deep rack plus a 1200 mm aisle between rows,
// 44.45 mm per rack unit (EIA-310), cables routed up to an overhead tray 300 mm above the rack,
// and 0.5 m of service slack at each end.
const (
	DefaultRackUnits = 42
	RackWidthM       = 0.6
	RowPitchM        = 2.4
	UnitM            = 0.04445
	TrayClearanceM   = 0.3
	SlackPerEndM     = 0.5
)

// Placement is where a device sits: a rack and the lowest rack unit it occupies.
type Placement struct {
	Rack      *Rack
	PositionU int
}

// RunLength estimates the cable run between two placements, in metres, rounded up to 0.1 m.
// Within one rack the cable runs vertically; between racks it goes up to the overhead tray,
// along the rows (Manhattan distance) and down again. ok is false when either end has no rack.
func RunLength(a, b Placement) (metres float64, ok bool) {
	if a.Rack == nil || b.Rack == nil {
		return 0, false
	}
	var run float64
	if a.Rack.Name == b.Rack.Name {
		run = math.Abs(float64(a.PositionU-b.PositionU)) * UnitM
	} else {
		up := func(p Placement) float64 {
			units := p.Rack.Units
			if units == 0 {
				units = DefaultRackUnits
			}
			return float64(units-p.PositionU)*UnitM + TrayClearanceM
		}
		horizontal := math.Abs(float64(a.Rack.Position-b.Rack.Position))*RackWidthM +
			math.Abs(float64(a.Rack.Row-b.Rack.Row))*RowPitchM
		run = up(a) + horizontal + up(b)
	}
	run += 2 * SlackPerEndM
	return math.Ceil(run*10-1e-9) / 10, true
}
