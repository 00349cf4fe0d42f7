package plan

import (
	"fmt"
	"time"
)

// Progress is the line logged when a fabric named name has been planned: its size, the
// bisection it proves, its verdict and how long planning took (rounded to the millisecond), so
// that a slow plan of a large fabric can be followed and timed from the log.
func (o *Outcome) Progress(name string, took time.Duration) string {
	a := o.Analysis
	return fmt.Sprintf("fabric %s: %d endpoints, %d switches, %d links; bisection %.0f-%.0f Gb/s of %.0f (ratio %g); %d violations; planned in %s",
		name, a.Endpoints, a.Switches, a.Links, a.BisectionLowerGbps, a.BisectionUpperGbps, a.FullBisectionGbps, a.BisectionRatio,
		len(o.Violations), took.Round(time.Millisecond))
}
