// Package partition is the seam between a fabric's declared InfiniBand partitions and the
// subnet manager that applies them. It holds the partition model (name, 15-bit P_Key, members
// with their membership, index0, IPoIB, MTU, rate, SL) that every target shares, and the Target
// interface a subnet manager implements: OpenSM's partitions.conf pushed over SSH
// (internal/opensm) or NVIDIA UFM's PKey REST API (internal/ufm). A new target is one package
// that implements Target and registers its kind with an Opener (Register); the fabric's apply
// and destroy reach every kind through Open. CheckTenants holds the plan-time policy for tenant
// partitions (members are HCAs of the fabric, shared full members, storage HCAs limited), the
// same for every target.
//
// The package knows nothing of Terraform, SSH or HTTP.
package partition
