package partition

import (
	"fmt"
	"math/rand"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
)

// handFloor is a small floor written by hand (no generator): two storage servers with one HCA
// each, three compute servers with two, and one switch, with names and GUIDs of its own.
func handFloor() *fabric.Spec {
	s := &fabric.Spec{Switches: []fabric.Switch{{Name: "ib-edge-a", GUID: "0xe41d2d0300aa0001"}}}
	add := func(node, dev, guid string) {
		s.HCAs = append(s.HCAs, fabric.HCA{Name: node + "/" + dev, Node: node, Device: dev, PortGUID: guid, Rail: -1})
	}
	add("nas-north", "ib0", "0x98039b0300c0ffee")
	add("nas-south", "ib0", "0x98039b0300c0ffef")
	add("blade-x", "hca0", "0x1070fd0300000a01")
	add("blade-x", "hca1", "0x1070fd0300000a02")
	add("blade-y", "hca0", "0x1070fd0300000b01")
	add("blade-y", "hca1", "") // no GUID known
	add("blade-z", "hca0", "0x1070fd0300000c01")
	return s
}

func TestCheckTenantsHandFloor(t *testing.T) {
	s := handFloor()
	s.Partitions = []fabric.Partition{
		{Name: "red", PKey: "0x0a0a", Members: []fabric.Member{
			{HCA: "blade-x/hca0", Membership: "full"},
			{GUID: "0x1070FD0300000A02"}, // blade-x/hca1 by GUID, default membership (full)
			{GUID: "nas-north"},          // not a GUID: the fabric's attribute rules report it
			{HCA: "nas-north/ib0", Membership: "full"},
		}},
		{Name: "blue", PKey: "0x0b0b", Members: []fabric.Member{
			{GUID: "0x1070fd0300000a01", Membership: "full"}, // blade-x/hca0 again, by GUID
			{HCA: "blade-x/hca1", Membership: "full"},
			{GUID: "0xe41d2d0300aa0001", Membership: "full"}, // the switch
			{GUID: "0x00000000deadbeef", Membership: "full"}, // nobody's
			{GUID: "ALL_CAS", Membership: "full"},            // keyword: not compared
			{HCA: "nas-north/ib0", Membership: "limited"},
		}},
		{Name: "green", PKey: "0x0c0c", Members: []fabric.Member{
			{GUID: "ALL_CAS", Membership: "full"},
			{HCA: "blade-z/hca0", Membership: "limited"},
		}},
	}
	got := CheckTenants(s, Tenants{StorageHCAs: []string{"nas-north/ib0", "0x98039b0300c0ffef", "nas-west/ib0"}})
	want := []string{
		"storage-hca-unknown -1/-1 [2]",
		"storage-full-member 0/3 membership",
		"partition-member-not-hca 1/2 guid",
		"partition-member-not-hca 1/3 guid",
		"shared-full-member 1/0 membership n=2",
	}
	sort.Strings(want)
	if g := keys(got); strings.Join(g, "\n") != strings.Join(want, "\n") {
		t.Fatalf("problems:\n%s\nwant:\n%s", strings.Join(g, "\n"), strings.Join(want, "\n"))
	}
	for _, p := range got {
		switch p.Rule {
		case RuleSharedFullMember:
			if !strings.Contains(p.Message, `partitions "red" and "blue" share 2 full member(s): blade-x/hca0, blade-x/hca1.`) ||
				!strings.Contains(p.Message, "shared_full_members = true") {
				t.Errorf("shared message: %s", p.Message)
			}
		case RuleMemberNotHCA:
			if p.Member == 2 && !strings.Contains(p.Message, `GUID of switch "ib-edge-a", not an HCA's port`) {
				t.Errorf("switch message: %s", p.Message)
			}
		case RuleStorageHCAUnknown:
			if !strings.Contains(p.Message, `"nas-west/ib0" is not an HCA of this fabric`) {
				t.Errorf("storage message: %s", p.Message)
			}
		}
	}
	// Allowed by the policy: only the shared refusal goes.
	got = CheckTenants(s, Tenants{SharedFullMembers: true})
	if g := strings.Join(keys(got), "\n"); g != "partition-member-not-hca 1/2 guid\npartition-member-not-hca 1/3 guid" {
		t.Errorf("with shared_full_members: %s", g)
	}
}

// TestCheckTenantsBruteForce compares CheckTenants with a direct computation on random floors
// built here (names and GUIDs unlike the generator's): every member resolved by a linear scan
// of the HCAs, every pair of members of every pair of partitions compared.
func TestCheckTenantsBruteForce(t *testing.T) {
	rng := rand.New(rand.NewSource(30))
	for round := 0; round < 400; round++ {
		s := &fabric.Spec{}
		nh := 1 + rng.Intn(7)
		var guids []uint64
		for h := 0; h < nh; h++ {
			node := fmt.Sprintf("rack%c-srv%d", 'a'+rune(rng.Intn(3)), h)
			g := ""
			if rng.Intn(4) > 0 {
				v := 0x5000000000000000 + uint64(rng.Intn(1<<20))*0x101 + uint64(h)
				g = fmt.Sprintf("0x%016x", v)
				guids = append(guids, v)
			}
			s.HCAs = append(s.HCAs, fabric.HCA{Name: node + "/port" + strconv.Itoa(h%2), Node: node, Device: "port" + strconv.Itoa(h%2), PortGUID: g, Rail: -1})
		}
		s.Switches = []fabric.Switch{{Name: "core", GUID: "0x7000000000000001"}}
		np := 1 + rng.Intn(4)
		for p := 0; p < np; p++ {
			part := fabric.Partition{Name: fmt.Sprintf("t%d", p), PKey: fmt.Sprintf("0x%04x", p+1)}
			for m := rng.Intn(6); m > 0; m-- {
				mem := fabric.Member{Membership: []string{"", "full", "limited"}[rng.Intn(3)]}
				switch rng.Intn(6) {
				case 0, 1, 2:
					mem.HCA = s.HCAs[rng.Intn(nh)].Name
				case 3:
					if len(guids) > 0 {
						mem.GUID = strings.ToUpper(fmt.Sprintf("0X%x", guids[rng.Intn(len(guids))]))
					} else {
						mem.GUID = "SELF"
					}
				case 4:
					mem.GUID = []string{"0x7000000000000001", "0x0000000000000042", "ALL"}[rng.Intn(3)]
				case 5:
					mem.HCA = "ghost/port9"
				}
				part.Members = append(part.Members, mem)
			}
			s.Partitions = append(s.Partitions, part)
		}
		var pol Tenants
		pol.SharedFullMembers = rng.Intn(3) == 0
		for k := rng.Intn(3); k > 0; k-- {
			h := s.HCAs[rng.Intn(nh)]
			switch {
			case rng.Intn(5) == 0:
				pol.StorageHCAs = append(pol.StorageHCAs, "nobody/port0")
			case h.PortGUID != "" && rng.Intn(2) == 0:
				pol.StorageHCAs = append(pol.StorageHCAs, h.PortGUID)
			default:
				pol.StorageHCAs = append(pol.StorageHCAs, h.Name)
			}
		}
		got, want := keys(CheckTenants(s, pol)), bruteTenants(s, pol)
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("round %d:\n%+v\npolicy %+v\ngot:\n%s\nwant:\n%s", round, s, pol, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}

// bruteTenants is the independent computation: members resolved by scanning the HCAs, shared
// full members found by comparing every member of every earlier partition.
func bruteTenants(s *fabric.Spec, pol Tenants) []string {
	num := func(g string) (uint64, bool) {
		l := strings.ToLower(g)
		if !strings.HasPrefix(l, "0x") {
			return 0, false
		}
		v, err := strconv.ParseUint(l[2:], 16, 64)
		return v, err == nil && v != 0
	}
	ident := func(m fabric.Member) (int, bool) { // HCA index; bad: a GUID member no HCA has
		for i, h := range s.HCAs {
			if m.HCA != "" && m.HCA == h.Name {
				return i, false
			}
			if a, ok := num(m.GUID); ok && m.HCA == "" {
				if b, ok := num(h.PortGUID); ok && a == b {
					return i, false
				}
			}
		}
		_, isGUID := num(m.GUID)
		return -1, m.HCA == "" && isGUID
	}
	var out []string
	storage := map[int]bool{}
	for k, v := range pol.StorageHCAs {
		found := false
		for i, h := range s.HCAs {
			a, ok := num(v)
			b, okb := num(h.PortGUID)
			if v == h.Name || (ok && okb && a == b) {
				storage[i], found = true, true
			}
		}
		if !found {
			out = append(out, fmt.Sprintf("%s -1/-1 [%d]", RuleStorageHCAUnknown, k))
		}
	}
	for pi, p := range s.Partitions {
		for mi, m := range p.Members {
			i, bad := ident(m)
			if bad {
				out = append(out, fmt.Sprintf("%s %d/%d guid", RuleMemberNotHCA, pi, mi))
			}
			if i >= 0 && storage[i] && m.Membership != "limited" {
				out = append(out, fmt.Sprintf("%s %d/%d membership", RuleStorageFull, pi, mi))
			}
		}
	}
	if !pol.SharedFullMembers {
		for pj := range s.Partitions {
			for pi := 0; pi < pj; pi++ {
				first, n := -1, map[int]bool{}
				for mj, b := range s.Partitions[pj].Members {
					for _, a := range s.Partitions[pi].Members {
						ia, _ := ident(a)
						ib, _ := ident(b)
						if ia >= 0 && ia == ib && a.Membership != "limited" && b.Membership != "limited" {
							if first < 0 {
								first = mj
							}
							n[ib] = true
						}
					}
				}
				if first >= 0 {
					out = append(out, fmt.Sprintf("%s %d/%d membership n=%d", RuleSharedFullMember, pj, first, len(n)))
				}
			}
		}
	}
	sort.Strings(out)
	return out
}

// keys writes problems as bruteTenants does, sorted.
func keys(ps []Problem) []string {
	out := make([]string, 0, len(ps))
	for _, p := range ps {
		switch {
		case p.Partition < 0:
			out = append(out, fmt.Sprintf("%s -1/-1 [%d]", p.Rule, p.StorageHCA))
		case p.Rule == RuleSharedFullMember:
			n := p.Message[strings.Index(p.Message, " share ")+7:]
			out = append(out, fmt.Sprintf("%s %d/%d %s n=%s", p.Rule, p.Partition, p.Member, p.Attr, n[:strings.Index(n, " ")]))
		default:
			out = append(out, fmt.Sprintf("%s %d/%d %s", p.Rule, p.Partition, p.Member, p.Attr))
		}
	}
	sort.Strings(out)
	return out
}
