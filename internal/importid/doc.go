// Package importid reads the import IDs of the inventory types. An inventory item (a rack, a
// switch, a cable, a partition, ...) describes hardware: there is no remote object to read back
// on import, so its ID carries the attributes after the name,
//
//	rack01,row=1,position=3,units=48,power_kw=40
//
// and this package owns that text: the generic reader (Parse, Require, Int, Float), and for the
// types whose ID holds more than strings, which attributes the ID takes, which it needs and how
// each value is read (ParseRack, ParsePartition, ParseCable, CableIdentity). It knows nothing of
// Terraform: each error is one problem of the ID, worded for the user, and the caller maps the
// values to its models and each error to one diagnostic.
package importid
