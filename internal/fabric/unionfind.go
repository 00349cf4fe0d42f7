package fabric

// UnionFind is a disjoint-set forest over the integers 0..n-1, the one the packages above share
// (pods and groups in internal/analysis, scalable units in internal/scheduler, cycles of switches
// in internal/opensm, a floor's blocks, pods and planes in internal/asbuilt). Find halves paths as it goes, and Union hangs the root of the higher index
// under the lower, so a set's root is its least member: roots follow the caller's order, and
// iterating sets by root is deterministic. With path halving and union by index alone, m
// operations on n elements take O(m log n) (R. E. Tarjan, J. van Leeuwen, "Worst-case analysis
// of set union algorithms", J. ACM 31(2):245-281, 1984, doi:10.1145/62.2160).
type UnionFind []int32

// NewUnionFind returns n singletons.
func NewUnionFind(n int) UnionFind {
	u := make(UnionFind, n)
	for i := range u {
		u[i] = int32(i)
	}
	return u
}

// Find returns the root of x's set: its least member.
func (u UnionFind) Find(x int32) int32 {
	for u[x] != x {
		u[x] = u[u[x]]
		x = u[x]
	}
	return x
}

// Union joins the sets of a and b and reports whether they were apart.
func (u UnionFind) Union(a, b int32) bool {
	ra, rb := u.Find(a), u.Find(b)
	if ra == rb {
		return false
	}
	if rb < ra {
		ra, rb = rb, ra
	}
	u[rb] = ra
	return true
}
