package policy

import "github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"

// CutOff compares a running graph with the designed one, as the degraded judgement does: the
// switches that had links and are cut off from the fabric's main piece, and the endpoints
// outside it, by name. Maintenance waves (internal/waves) judge a wave with it.
func CutOff(designed, running *fabric.Graph) (switches, endpoints []string) {
	sw, eps := cutOff(designed, running)
	for _, s := range sw {
		switches = append(switches, s.name)
	}
	return switches, eps
}
