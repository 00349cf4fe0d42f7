package fabric

// LinkTotals sums the link counts over the tiers.
func (d Diff) LinkTotals() (added, removed, rewired int) {
	for _, t := range d.Links {
		added, removed, rewired = added+t.Added, removed+t.Removed, rewired+t.Rewired
	}
	return
}
