// Package asbuilt owns the fabric on the floor: reading it from discovery into the fabric's own
// shapes (Read), fitting a generated design onto it (Fit), and the work order that turns the
// floor into the fitted design (WorkOrder).
package asbuilt
