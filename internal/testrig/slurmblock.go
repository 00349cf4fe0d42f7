package testrig

import (
	"fmt"
	"strconv"
	"strings"
)

// The Slurm side of the scheduler tests: an independent reading of what the provider writes for
// Slurm, where the slurmctld the tests run cannot check it.

// CheckBlockConf checks a topology/block topology.conf against Slurm's documented grammar
// (topology.conf(5) of Slurm 23.11 and later, section "topology/block"), since the slurmctld the
// tests can run (Debian 12's 22.05) predates the plugin. The rules, as the man page and the
// plugin's parser (src/plugins/topology/block/block_record.c) state them:
//   - lines hold Key=Value pairs, keys case-insensitive, "#" starts a comment;
//   - BlockName (required on a block line, unique) with Nodes, a hostlist;
//   - BlockSizes: positive integers, the first being the planning base block size; each later
//     size a multiple of it by a power of two, larger than the one before, at most 2^15 times
//     the base (MAX_BLOCK_LEVELS = 16);
//   - "Each block must have at least the planning base block size count of nodes".
//
// This package's own rule on top: every node is in exactly one block and is one of known (when
// known is non-nil).
func CheckBlockConf(text string, known []string) error {
	knownSet := map[string]bool{}
	for _, n := range known {
		knownSet[n] = true
	}
	blocks := map[string]int{}
	owner := map[string]string{}
	var sizes []int
	var order []string
	for ln, line := range strings.Split(text, "\n") {
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		kv := map[string]string{}
		for _, f := range fields {
			k, v, ok := strings.Cut(f, "=")
			if !ok {
				return fmt.Errorf("line %d: %q is not Key=Value", ln+1, f)
			}
			k = strings.ToLower(k)
			if _, dup := kv[k]; dup {
				return fmt.Errorf("line %d: %s given twice", ln+1, k)
			}
			kv[k] = v
		}
		switch {
		case kv["blocksizes"] != "" && len(kv) == 1:
			if sizes != nil {
				return fmt.Errorf("line %d: BlockSizes given twice", ln+1)
			}
			for _, s := range strings.Split(kv["blocksizes"], ",") {
				v, err := strconv.Atoi(s)
				if err != nil || v <= 0 {
					return fmt.Errorf("line %d: BlockSizes value %q is not a positive integer", ln+1, s)
				}
				if len(sizes) > 0 {
					base, prev := sizes[0], sizes[len(sizes)-1]
					r := v / base
					if v%base != 0 || r&(r-1) != 0 {
						return fmt.Errorf("line %d: BlockSizes %d is not the base %d times a power of two", ln+1, v, base)
					}
					if v <= prev {
						return fmt.Errorf("line %d: BlockSizes %d is not larger than %d before it", ln+1, v, prev)
					}
					if r > 1<<15 {
						return fmt.Errorf("line %d: BlockSizes %d is more than 2^15 times the base", ln+1, v)
					}
				}
				sizes = append(sizes, v)
			}
		case kv["blockname"] != "":
			name := kv["blockname"]
			for k := range kv {
				if k != "blockname" && k != "nodes" {
					return fmt.Errorf("line %d: unknown key %q on a block line (BlockName, Nodes)", ln+1, k)
				}
			}
			if _, dup := blocks[name]; dup {
				return fmt.Errorf("line %d: Block (%s) has already been defined", ln+1, name)
			}
			nodes, err := ExpandHostlist(kv["nodes"])
			if err != nil {
				return fmt.Errorf("line %d: %v", ln+1, err)
			}
			for _, n := range nodes {
				if known != nil && !knownSet[n] {
					return fmt.Errorf("line %d: block %s names node %s, which is not in the cluster", ln+1, name, n)
				}
				if o, dup := owner[n]; dup {
					return fmt.Errorf("line %d: node %s is in blocks %s and %s", ln+1, n, o, name)
				}
				owner[n] = name
			}
			blocks[name] = len(nodes)
			order = append(order, name)
		default:
			return fmt.Errorf("line %d: neither a BlockName line nor a BlockSizes line", ln+1)
		}
	}
	if len(blocks) == 0 {
		return fmt.Errorf("no blocks configured")
	}
	if sizes != nil {
		for _, b := range order {
			if blocks[b] < sizes[0] {
				return fmt.Errorf("block %s has %d nodes, fewer than the base block size %d", b, blocks[b], sizes[0])
			}
		}
	}
	for _, n := range known {
		if owner[n] == "" {
			return fmt.Errorf("node %s is in no block", n)
		}
	}
	return nil
}

// ExpandHostlist reads a Slurm hostlist expression back into names: "gpu[001-003],leaf01" -> gpu001, gpu002,
// gpu003, leaf01. It handles one bracket per name, which is all scheduler.Compress writes and what
// scontrol prints for these names.
func ExpandHostlist(expr string) ([]string, error) {
	var out []string
	for _, part := range splitTop(expr) {
		if part == "" {
			continue
		}
		open := strings.IndexByte(part, '[')
		if open < 0 {
			out = append(out, part)
			continue
		}
		shut := strings.IndexByte(part, ']')
		if shut < open {
			return nil, fmt.Errorf("hostlist %q: unbalanced bracket", expr)
		}
		prefix, suffix := part[:open], part[shut+1:]
		for _, r := range strings.Split(part[open+1:shut], ",") {
			lo, hi, isRange := strings.Cut(r, "-")
			if !isRange {
				hi = lo
			}
			a, err1 := strconv.Atoi(lo)
			b, err2 := strconv.Atoi(hi)
			if err1 != nil || err2 != nil || b < a {
				return nil, fmt.Errorf("hostlist %q: bad range %q", expr, r)
			}
			for v := a; v <= b; v++ {
				out = append(out, fmt.Sprintf("%s%0*d%s", prefix, len(lo), v, suffix))
			}
		}
	}
	return out, nil
}

// splitTop splits on commas outside brackets.
func splitTop(s string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '[':
			depth++
		case ']':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}
