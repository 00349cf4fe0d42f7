// Package importid reads the import IDs of the inventory types. An inventory item (a rack, a
// switch, a cable, a partition, ...) describes hardware: there is no remote object to read back
// on import, so its ID carries the attributes after the name,
//
//	rack01,row=1,position=3,units=48,power_kw=40
//
// and this package owns that text. Parse, Require, Int, Float and String are the reader every
// type's import uses; ParseRack, ParsePartition, ParseCable and CableIdentity also know which
// attributes their type's ID takes, which it needs and how each value is read, so that the
// import of those types only maps values. FloorCable is the same Cable for a cable read from
// the floor, so an import by identity and a list result map one type too. NameGenerated
// (generated.go) names the resources `terraform query -generate-config-out` writes after the
// items their identities import, where Terraform names them by position. It knows nothing of Terraform: each error is one
// problem of the ID, worded for the user, and the caller makes each error one diagnostic.
package importid
