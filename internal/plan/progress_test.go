package plan

import (
	"testing"
	"time"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
)

func TestProgress(t *testing.T) {
	cat := catalog.Default()
	out := Run(cat, built(t, cat, smallSpec(2)), Request{})
	got := out.Progress("compute", 1234567*time.Microsecond)
	want := "fabric compute: 16 endpoints, 2 switches, 32 links; bisection 3200-3200 Gb/s of 3200 (ratio 1); 0 violations; planned in 1.235s"
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}
