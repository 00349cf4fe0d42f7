package partition

import (
	"fmt"
	"sort"
	"strings"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
)

// Tenants is the fabric's policy for partitions that keep tenants apart (the fabric's
// `policy.partitions`). It holds for every target alike: it judges the declared partitions, not
// how a subnet manager applies them.
//
// The rules follow from what a membership means (IBTA vol. 1, 10.9.1 and 10.9.3): two ports may
// talk when they share a P_Key and at least one of them is a full member. A port that is a full
// member of two partitions therefore talks to every member of both, and joins two tenants that
// the partitions were meant to keep apart; a port that is a limited member of each talks only to
// their full members, which is how a shared service (storage) is offered to several tenants
// without letting them reach each other through it.
type Tenants struct {
	// SharedFullMembers allows a port to be a full member of more than one partition.
	SharedFullMembers bool
	// StorageHCAs are HCAs (by name "<node>/<device>", or by port GUID) that serve storage: each
	// must be a limited member of every partition it is in.
	StorageHCAs []string
}

// Rules of the tenant checks, as named in diagnostics.
const (
	RuleMemberNotHCA      = "partition-member-not-hca"
	RuleSharedFullMember  = "shared-full-member"
	RuleStorageFull       = "storage-full-member"
	RuleStorageHCAUnknown = "storage-hca-unknown"
)

// Problem is one refusal of CheckTenants. A member's problem has Partition and Member (indexes in
// Spec.Partitions and its Members) and the member's attribute at fault (Attr: "guid" or
// "membership"); a policy problem has Partition -1 and StorageHCA, the index in
// Tenants.StorageHCAs at fault.
type Problem struct {
	Rule       string
	Partition  int
	Member     int
	Attr       string
	StorageHCA int
	Message    string
}

// mostNamed is how many HCAs a message names before it counts the rest.
const mostNamed = 4

// CheckTenants judges the declared partitions of s against the policy t, once per cause:
//   - a member given by GUID must be the port GUID of an HCA of the fabric (an OpenSM keyword
//     such as ALL_CAS is not a GUID and is not checked here; a member given by name is checked
//     by the fabric's build, fabric.RulePartitionMember);
//   - unless t.SharedFullMembers, two partitions may not share a full member: one problem per
//     pair of partitions, on the later partition's first shared member, naming what they share;
//   - each HCA of t.StorageHCAs must be an HCA of the fabric, and a limited member wherever it is
//     a member: one problem per such member.
//
// Members are compared as HCAs: gpu001/mlx5_0 by name in one partition and by its port GUID in
// another are the same port. Keywords are left out of the comparison: a partition of ALL_CAS is
// the fabric-wide partition a site declares on purpose, not a tenant.
func CheckTenants(s *fabric.Spec, t Tenants) []Problem {
	byName := make(map[string]int, len(s.HCAs))
	byGUID := make(map[uint64]int, len(s.HCAs))
	for i, h := range s.HCAs {
		byName[hcaName(h)] = i
		if g, msg := fabric.ParseGUID(h.PortGUID); h.PortGUID != "" && msg == "" {
			byGUID[g] = i
		}
	}
	switches := map[uint64]string{}
	for _, sw := range s.Switches {
		if g, msg := fabric.ParseGUID(sw.GUID); sw.GUID != "" && msg == "" {
			switches[g] = sw.Name
		}
	}
	var out []Problem
	// hca resolves a member to an HCA index, or -1 (a keyword, an unknown name or GUID, a bad
	// GUID: each reported where it is checked).
	hca := func(pi, mi int, m fabric.Member) int {
		if m.HCA != "" {
			if i, ok := byName[m.HCA]; ok && m.GUID == "" {
				return i
			}
			return -1
		}
		if m.GUID == "" || IsKeyword(m.GUID) {
			return -1
		}
		g, msg := fabric.ParseGUID(m.GUID)
		if msg != "" {
			return -1
		}
		if i, ok := byGUID[g]; ok {
			return i
		}
		why := fmt.Sprintf("member guid %s is not the port GUID of any HCA of this fabric", m.GUID)
		if sw, ok := switches[g]; ok {
			why = fmt.Sprintf("member guid %s is the GUID of switch %q, not an HCA's port", m.GUID, sw)
		}
		out = append(out, Problem{Rule: RuleMemberNotHCA, Partition: pi, Member: mi, Attr: "guid", Message: why +
			"; a tenant partition holds HCAs of the fabric: name one as hca = \"<node>/<device>\", or give the port_guid of one of its HCAs (set that HCA's port_guid if it has none)"})
		return -1
	}
	storage := map[int]bool{}
	for k, v := range t.StorageHCAs {
		i := -1
		if j, ok := byName[v]; ok {
			i = j
		} else if g, msg := fabric.ParseGUID(v); msg == "" {
			if j, ok := byGUID[g]; ok {
				i = j
			}
		}
		if i < 0 {
			out = append(out, Problem{Rule: RuleStorageHCAUnknown, Partition: -1, StorageHCA: k, Message: fmt.Sprintf(
				"%q is not an HCA of this fabric; list HCAs by name (\"<node>/<device>\") or by the port_guid of one of the fabric's HCAs", v)})
			continue
		}
		storage[i] = true
	}
	// full[p] maps each HCA that is a full member of partition p to its first member index there.
	full := make([]map[int]int, len(s.Partitions))
	for pi, p := range s.Partitions {
		full[pi] = map[int]int{}
		for mi, m := range p.Members {
			i := hca(pi, mi, m)
			if i < 0 {
				continue
			}
			isFull := m.Membership != fabric.MembershipLimited
			if storage[i] && isFull {
				out = append(out, Problem{Rule: RuleStorageFull, Partition: pi, Member: mi, Attr: "membership", Message: fmt.Sprintf(
					"%s is a storage HCA (policy.partitions.storage_hcas) and a full member of partition %q; a storage HCA is a limited member of every partition it serves, so that tenants reach it but not each other through it: set membership = %q",
					hcaName(s.HCAs[i]), p.Name, fabric.MembershipLimited)})
			}
			if _, seen := full[pi][i]; isFull && !seen {
				full[pi][i] = mi
			}
		}
	}
	if t.SharedFullMembers {
		return out
	}
	for pj := range s.Partitions {
		for pi := 0; pi < pj; pi++ {
			var shared []int // HCAs, by their member index in pj
			for i, mj := range full[pj] {
				if _, ok := full[pi][i]; ok {
					shared = append(shared, mj)
				}
			}
			if len(shared) == 0 {
				continue
			}
			sort.Ints(shared)
			names := make([]string, 0, mostNamed)
			for _, mj := range shared[:min(len(shared), mostNamed)] {
				names = append(names, hcaName(s.HCAs[hcaOf(byName, byGUID, s.Partitions[pj].Members[mj])]))
			}
			list := strings.Join(names, ", ")
			if len(shared) > mostNamed {
				list += fmt.Sprintf(" and %d more", len(shared)-mostNamed)
			}
			out = append(out, Problem{Rule: RuleSharedFullMember, Partition: pj, Member: shared[0], Attr: "membership", Message: fmt.Sprintf(
				"partitions %q and %q share %d full member(s): %s. A port that is a full member of two partitions talks to every member of both, so the two tenants are joined through it; make it a limited member (membership = %q) of one of them, or set policy.partitions.shared_full_members = true where that is intended",
				s.Partitions[pi].Name, s.Partitions[pj].Name, len(shared), list, fabric.MembershipLimited)})
		}
	}
	return out
}

// hcaOf is the HCA of a member known to resolve to one.
func hcaOf(byName map[string]int, byGUID map[uint64]int, m fabric.Member) int {
	if m.HCA != "" {
		return byName[m.HCA]
	}
	g, _ := fabric.ParseGUID(m.GUID)
	return byGUID[g]
}

// hcaName is an HCA's name, "<node>/<device>" when it has none of its own.
func hcaName(h fabric.HCA) string {
	if h.Name != "" {
		return h.Name
	}
	return fabric.HCAName(h.Node, h.Device)
}
