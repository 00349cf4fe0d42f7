package fabric

import (
	"fmt"
	"strings"
)

// Partition memberships (Memberships). A member that names none is a full member, the
// resource's default, although partitions.conf reads an omitted membership as limited: a
// member is declared to talk to the others unless it says otherwise.
const (
	MembershipFull    = "full"
	MembershipLimited = "limited"
	DefaultMembership = MembershipFull
)

// ParseMembers reads a member list as gpucluster_partition's import ID writes it:
// "MEMBER[=full|limited];...", members as in partitions.conf but separated by ';' because ','
// separates the ID's fields. A member is an HCA by name when it is one (IsHCAName), else a port
// GUID or keyword, checked where the partition is; its membership is DefaultMembership when
// unsaid.
func ParseMembers(list string) ([]Member, error) {
	var out []Member
	for _, spec := range strings.Split(list, ";") {
		who, membership, _ := strings.Cut(strings.TrimSpace(spec), "=")
		if membership == "" {
			membership = DefaultMembership
		}
		if who == "" || CheckMembership(membership) != "" {
			return nil, fmt.Errorf("member %q is not MEMBER[=full|limited]", spec)
		}
		m := Member{GUID: who, Membership: membership}
		if IsHCAName(who) {
			m = Member{HCA: who, Membership: membership}
		}
		out = append(out, m)
	}
	return out, nil
}
