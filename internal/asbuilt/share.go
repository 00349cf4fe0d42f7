package asbuilt

// Clone is a copy of the fit whose Spec is its own (fabric.Spec.Clone): plan.Build merges the
// declared items into the fitted spec and removes absent cables from it, and a fit shared by the
// readers of one plan (the topology's, the fabric's, the BOM's) must reach each of them as it
// was fitted. The report, the appliance links and what the work order is computed from are
// read, never changed, and are shared.
func (f *Fitted) Clone() *Fitted {
	c := *f
	c.Spec = f.Spec.Clone()
	return &c
}
