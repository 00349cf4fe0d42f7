package analysis

// lowerBound is lowerBoundOf with every choice of M, for the tests that compare the routing
// bound alone with the others.
func lowerBound(t *topo) lowerResult { return lowerBoundOf(t, true, nil) }
