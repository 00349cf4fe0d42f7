package opensm

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/listed"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/partition"
)

// The partition model lives in internal/partition, shared by every partition target; these
// aliases keep the OpenSM code that renders and parses partitions.conf reading as before.
type (
	Partition = partition.Partition
	Member    = partition.Member
	GUID      = partition.GUID
)

// Membership of a port in a partition, the fabric's words.
const (
	Full    = partition.Full
	Limited = partition.Limited
)

// Keywords are the port-list keywords OpenSM accepts in place of a port GUID.
var Keywords = partition.Keywords

// DefaultPKey is the default partition that OpenSM always has; the provider always writes it.
const DefaultPKey = partition.DefaultPKey

// ParseGUID reads a GUID as partition.ParseGUID does.
func ParseGUID(s string) (GUID, error) { return partition.ParseGUID(s) }

// The codes of the mtu= and rate= flags come from fabric's tables, one of each: fabric.MTUCode
// (the IBTA MTU encoding) and fabric.PathRates (the IBTA path-record rates OpenSM 3.3.23's
// include/iba/ib_types.h knows). Both flavours read the same codes: fabric.PathRates says why
// neither gets 800 Gb/s.

func mtuFromEnum(e int) (int, bool) {
	for _, b := range fabric.MTUs {
		if c, _ := fabric.MTUCode(b); c == e {
			return b, true
		}
	}
	return 0, false
}

// rateList is every rate of fabric.PathRates in Gb/s, ascending.
func rateList() string {
	g := make([]float64, len(fabric.PathRates))
	for i, r := range fabric.PathRates {
		g[i] = r.Gbps
	}
	sort.Float64s(g)
	s := make([]string, len(g))
	for i, v := range g {
		s[i] = strconv.FormatFloat(v, 'g', -1, 64)
	}
	return strings.Join(s, ", ")
}

// Partition names are checked by fabric.CheckPartitionName, which follows OpenSM's header
// parser (osm_prtn_config.c): split on ',', '=', ':' and ';', '#' starts a comment, a leading
// digit reads as a P_Key, and the name is kept in a fixed-size field.

// validatePartitions checks what OpenSM would drop, merge or ignore silently. qos tells whether
// the opensm.conf enables QoS, without which OpenSM overrides every partition SL with 0.
func validatePartitions(parts []Partition, qos bool) Errors {
	var errs Errors
	names := map[string]int{}
	pkeys := map[uint16]int{}
	for i, p := range parts {
		f := elemLoc(fabric.MapPartitions, i)
		switch {
		case p.Name == "":
			errs.add(f.Attr("name"), "", "a partition needs a name")
		case strings.EqualFold(p.Name, "Default"):
			errs.add(f.Attr("name"), "", "\"Default\" is the default partition (P_Key 0x7fff) that the provider always writes; choose another name")
		case fabric.CheckPartitionName(p.Name) != "":
			errs.add(f.Attr("name"), "", fabric.CheckPartitionName(p.Name))
		default:
			if j, dup := names[p.Name]; dup {
				errs.add(f.Attr("name"), "", fmt.Sprintf("partition name %q is already used by partitions[%d]", p.Name, j))
			} else {
				names[p.Name] = i
			}
		}
		switch {
		case p.PKey == 0 || p.PKey > 0x7ffe:
			errs.add(f.Attr("pkey"), "", fmt.Sprintf("P_Key 0x%04x is out of range: use 0x0001-0x7ffe (0x7fff is the default partition; OpenSM uses only the low 15 bits)", p.PKey))
		default:
			if j, dup := pkeys[p.PKey]; dup {
				errs.add(f.Attr("pkey"), "", fmt.Sprintf("P_Key 0x%04x is already used by partitions[%d]; OpenSM would merge the two and keep the first name", p.PKey, j))
			} else {
				pkeys[p.PKey] = i
			}
		}
		if p.MTU != 0 {
			if msg := fabric.CheckMTU(p.MTU); msg != "" {
				errs.add(f.Attr("mtu"), "", msg)
			}
		}
		if p.RateGbps != 0 {
			if _, ok := fabric.RateCode(p.RateGbps); !ok {
				errs.add(f.Attr("rate"), "", fmt.Sprintf("rate %g Gb/s has no IBTA rate code OpenSM 3.3 knows: use one of %s", p.RateGbps, rateList()))
			}
		}
		if (p.MTU != 0 || p.RateGbps != 0) && !p.IPoIB {
			errs.add(f.Attr("ipoib"), "", "mtu and rate set the IPoIB broadcast group, which OpenSM creates only with ipoib = true")
		}
		switch {
		case fabric.CheckSL(p.SL) != "":
			errs.add(f.Attr("sl"), "", fabric.CheckSL(p.SL))
		case p.SL != 0 && !qos:
			errs.add(f.Attr("sl"), "qos", fmt.Sprintf("SL %d needs QoS: without the option qos = TRUE OpenSM overrides every partition SL with 0 (osm_prtn_config.c partition_create)", p.SL))
		}
		seen := map[string]int{}
		for j, m := range p.Members {
			mf := f.Attr("members").At(j)
			switch {
			case m.Keyword != "" && m.GUID != 0:
				errs.add(mf.Attr("guid"), "", "a member is either a GUID or a keyword, not both")
			case m.Keyword != "":
				if !partition.IsKeyword(m.Keyword) {
					errs.add(mf.Attr("guid"), "", fmt.Sprintf("%q is not an OpenSM port keyword (%s)", m.Keyword, strings.Join(Keywords, ", ")))
				}
			case m.GUID == 0:
				errs.add(mf.Attr("guid"), "", "a member needs a port GUID or one of "+strings.Join(Keywords, ", "))
			}
			if msg := fabric.CheckMembership(m.Membership); msg != "" {
				errs.add(mf.Attr("membership"), "", msg)
			}
			key := m.Port()
			if k, dup := seen[key]; dup {
				errs.add(mf.Attr("guid"), "", fmt.Sprintf("%s is already a member (members[%d])", key, k))
			} else {
				seen[key] = j
			}
		}
	}
	return errs
}

// renderPartitions writes partitions.conf. Default comes first; each member goes on its own line
// because OpenSM reads the file with a 4096-byte line buffer (osm_prtn_config_parse_file), and a
// partition definition may continue over lines until its ';'.
func renderPartitions(def Partition, parts []Partition) string {
	var b strings.Builder
	b.WriteString("# OpenSM partition configuration (opensm(8), PARTITION CONFIGURATION).\n")
	b.WriteString("# Written by terraform-provider-gpucluster: edits are overwritten on the next apply.\n")
	writePartition(&b, def)
	for _, p := range parts {
		writePartition(&b, p)
	}
	return b.String()
}

func writePartition(b *strings.Builder, p Partition) {
	fmt.Fprintf(b, "%s=0x%04x", p.Name, p.PKey)
	if p.IPoIB {
		b.WriteString(",ipoib")
	}
	if e, ok := fabric.MTUCode(p.MTU); ok {
		fmt.Fprintf(b, ",mtu=%d", e)
	}
	if e, ok := fabric.RateCode(p.RateGbps); ok {
		fmt.Fprintf(b, ",rate=%d", e)
	}
	if p.SL != 0 {
		fmt.Fprintf(b, ",sl=%d", p.SL)
	}
	b.WriteString(" :")
	entries := make([]string, 0, len(p.Members)+len(p.MGroups))
	entries = append(entries, p.MGroups...)
	for _, m := range p.Members {
		entries = append(entries, m.Port()+"="+m.Membership)
	}
	if len(entries) <= 2 && len(p.MGroups) == 0 {
		// Short definitions stay on one line, as in the man page.
		if len(entries) > 0 {
			b.WriteString(" " + strings.Join(entries, ", "))
		}
		b.WriteString(" ;\n")
		return
	}
	for i, e := range entries {
		b.WriteString("\n\t" + e)
		switch {
		case i == len(entries)-1:
			b.WriteString(" ;\n")
		case isMGroupEntry(e):
			// an mgid entry consumes the rest of its line: no separating comma (a comma would
			// become part of the group's flags when the file is read back)
		default:
			b.WriteString(",")
		}
	}
}

// ParsePartitions reads a partitions.conf the way OpenSM 3.3 does (osm_prtn_config.c), including
// the default partition, and reports as errors both what OpenSM rejects ("PARSE ERROR", after
// which it drops every partition but Default) and what it silently ignores or guesses (unknown
// flags, unknown membership words, a name it takes for a P_Key, GUIDs without 0x, a missing ';').
// Abbreviations OpenSM accepts by prefix ("limi", "ipo") are read as OpenSM reads them. The
// returned partitions are complete as far as they could be read.
func ParsePartitions(text string) ([]Partition, error) {
	var (
		out  []Partition
		errs Errors
		cur  *Partition
	)
	fail := func(line int, format string, args ...any) {
		// The text's line, not an attribute: the location is the partitions as a whole.
		errs = append(errs, &FieldError{At: Loc{Map: fabric.MapPartitions, Index: -1},
			Field: fmt.Sprintf("partitions.conf:%d", line), Message: fmt.Sprintf(format, args...)})
	}
	lines := strings.Split(text, "\n")
	lastLine := 0
	for n, raw := range lines {
		lineno := n + 1
		line := raw
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		if strings.ContainsRune(line, '\r') {
			// OpenSM trims only blanks, tabs and newlines: a CR (a file saved with CRLF line
			// ends) becomes a port name or a statement of its own, and the file is rejected.
			fail(lineno, "carriage return in the line (CRLF line ends?): OpenSM does not strip it and rejects the file; use LF line ends")
			line = strings.ReplaceAll(line, "\r", "")
		}
		for strings.TrimSpace(line) != "" {
			lastLine = lineno
			stmt, rest, ended := strings.Cut(line, ";")
			if cur == nil {
				head, body, ok := strings.Cut(stmt, ":")
				if !ok {
					fail(lineno, "no partition definition found (a definition is name=pkey,flags : ports ;)")
					break
				}
				p, perr := parseHeader(head)
				if perr != "" {
					fail(lineno, "%s", perr)
				}
				out = append(out, p)
				cur = &out[len(out)-1]
				stmt = body
			}
			parsePorts(cur, stmt, lineno, fail)
			if !ended {
				break
			}
			cur = nil
			line = rest
		}
	}
	if cur != nil {
		fail(lastLine, "partition %q is not closed with ';'", cur.Name)
	}
	return out, errs.Err()
}

func parseHeader(head string) (Partition, string) {
	var p Partition
	fields := strings.Split(head, ",")
	name, id, hasID := strings.Cut(fields[0], "=")
	name, id = strings.TrimSpace(name), strings.TrimSpace(id)
	var problems []string
	if !hasID && name != "" && name[0] >= '0' && name[0] <= '9' {
		id, name = name, ""
		problems = append(problems, "a definition without a name: OpenSM reads the leading number as the P_Key")
	}
	p.Name = name
	if id == "" {
		problems = append(problems, fmt.Sprintf("partition %q has no P_Key; OpenSM would generate one", name))
	} else if v, err := strconv.ParseUint(id, 0, 16); err != nil {
		problems = append(problems, fmt.Sprintf("bad P_Key %q", id))
	} else {
		p.PKey = uint16(v) & 0x7fff
	}
	for _, f := range fields[1:] {
		flag, val, _ := strings.Cut(f, "=")
		flag, val = strings.TrimSpace(flag), strings.TrimSpace(val)
		if flag == "" {
			problems = append(problems, "bad partition flags (empty flag)")
			continue
		}
		if msg := applyHeaderFlag(&p, flag, val); msg != "" {
			problems = append(problems, msg)
		}
	}
	return p, listed.First(problems, listed.Few, "; ")
}

// prefixOf mirrors OpenSM's strncmp(flag, word, strlen(flag)): flag is a prefix of word.
func prefixOf(flag, word string) bool { return flag != "" && strings.HasPrefix(word, flag) }

func applyHeaderFlag(p *Partition, flag, val string) string {
	num := func() (int, bool) {
		v, err := strconv.ParseUint(val, 0, 32)
		return int(v), err == nil
	}
	// Same order as parse_group_flag, then partition_add_flag.
	switch {
	case prefixOf(flag, "mtu"):
		e, ok := num()
		if b, known := mtuFromEnum(e); ok && known {
			p.MTU = b
			return ""
		}
		return fmt.Sprintf("mtu=%q is not an IBTA MTU code (1-5); OpenSM skips it", val)
	case prefixOf(flag, "rate"):
		e, ok := num()
		if g, known := fabric.RateOfCode(e); ok && known {
			p.RateGbps = g
			return ""
		}
		return fmt.Sprintf("rate=%q is not an IBTA rate code; OpenSM skips it", val)
	case prefixOf(flag, "scope"), prefixOf(flag, "Q_Key"), prefixOf(flag, "TClass"), prefixOf(flag, "FlowLabel"):
		return fmt.Sprintf("flag %q is not managed by the provider", flag)
	case prefixOf(flag, "sl"):
		e, ok := num()
		if !ok || e > 15 {
			return fmt.Sprintf("sl=%q must be 0-15; OpenSM skips it", val)
		}
		p.SL = e
		return ""
	case prefixOf(flag, "ipoib"):
		p.IPoIB = true
		return ""
	case prefixOf(flag, "defmember"), prefixOf(flag, "indx0"):
		return fmt.Sprintf("flag %q is not managed by the provider: give each member its membership", flag)
	}
	return fmt.Sprintf("unrecognized partition flag %q: OpenSM ignores it with only a verbose log line", flag)
}

func parsePorts(p *Partition, body string, lineno int, fail func(int, string, ...any)) {
	entries := strings.Split(body, ",")
	for i := 0; i < len(entries); i++ {
		e := strings.TrimSpace(entries[i])
		if e == "" {
			continue
		}
		name, flag, hasFlag := strings.Cut(e, "=")
		name, flag = strings.TrimSpace(name), strings.TrimSpace(flag)
		if name == "mgid" {
			// An mgid entry takes the rest of the statement as its flags (parse_part_conf
			// hands it to mgroup_create, which parses the GID with inet_pton). Blank flags
			// are dropped, so that the text kept is the same however it was spaced.
			var rest []string
			for _, r := range append([]string{e}, entries[i+1:]...) {
				if r = strings.TrimSpace(r); r != "" {
					rest = append(rest, r)
				}
			}
			if !hasFlag || flag == "" {
				fail(lineno, "mgid entry without a multicast GID: write mgid=ff12:401b::1 (OpenSM cannot create the group)")
			}
			p.MGroups = append(p.MGroups, strings.Join(rest, ","))
			return
		}
		m := Member{Membership: Limited}
		if hasFlag {
			switch {
			case prefixOf(flag, Full):
				m.Membership = Full
			case prefixOf(flag, Limited):
			case prefixOf(flag, "both"):
				fail(lineno, "membership \"both\" of %s needs allow_both_pkeys and is not managed by the provider", name)
			default:
				fail(lineno, "unrecognized membership %q of %s: OpenSM assumes limited", flag, name)
			}
		}
		if kw := keywordByPrefix(name); kw != "" {
			m.Keyword = kw
		} else if prefixOf(name, "NONE") {
			continue
		} else if !strings.HasPrefix(name, "0x") && !strings.HasPrefix(name, "0X") {
			fail(lineno, "bad PortGUID %q: write port GUIDs as 0x-prefixed hex (OpenSM reads them with strtoull base 0)", name)
			continue
		} else if g, err := ParseGUID(name); err != nil {
			fail(lineno, "bad PortGUID %q: %v", name, err)
			continue
		} else {
			m.GUID = g
		}
		p.Members = append(p.Members, m)
	}
}

// isMGroupEntry tells an mgid entry the way parsePorts does: the name before '=' is "mgid".
func isMGroupEntry(e string) bool {
	name, _, _ := strings.Cut(e, "=")
	return strings.TrimSpace(name) == "mgid"
}

// keywordByPrefix mirrors partition_add_port: the keywords are tried in order and a name matches
// the first keyword it is a prefix of ("A" is ALL, "ALL_" is ALL_CAS, "S" is SELF).
func keywordByPrefix(name string) string {
	for _, k := range Keywords {
		if prefixOf(name, k) {
			return k
		}
	}
	return ""
}
