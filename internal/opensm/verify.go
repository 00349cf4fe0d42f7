package opensm

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Verdict is what an OpenSM run says about itself on stdout and in its log. OpenSM exits 0 and
// keeps running after almost every failure that matters here (a routing engine falling back, a
// partition file it cannot parse, an option file it cannot find), so success can only be read
// from the text. ParseLog does not care how the text was obtained: a file, `journalctl`, SSH.
type Verdict struct {
	// OptionFile is the file named by "Reading Cached Option File:" (stdout); "" when OpenSM
	// never said it read one, which is what a missing -F file looks like (it is ignored
	// silently and the defaults apply).
	OptionFile string
	// UnknownOptions are keys OpenSM printed as "Unrecognized token" and ignored.
	UnknownOptions []string
	// OptionErrors are "-E- Parsing error in field ..." lines: values OpenSM refused.
	OptionErrors []string
	// Engine is the routing engine that configured the switch tables in the last routing run
	// ("ftree", "minhop", ...); "" if no run configured them.
	Engine string
	// Routed is true when the last routing run configured the tables.
	Routed bool
	// Failed lists the engines that gave up in the last routing run before Engine took over
	// ("ftree: cannot build lid matrices", "torus-2QoS: cannot build fwd tables",
	// osm_ucast_mgr.c ucast_mgr_route): a fallback when Routed.
	Failed []string
	// Roots and Leaves are ftree's count of rank-0 switches and of leaf switches in its last
	// report; -1 when ftree reported none.
	Roots, Leaves int
	// SubnetUp is true once OpenSM logged "SUBNET UP".
	SubnetUp bool
	// PartitionsRejected is true when OpenSM could not parse partitions.conf and fell back to
	// the default partition only, dropping every tenant partition from every port.
	PartitionsRejected bool
	// Errors are the error-level log lines (level 0x01, "ERR xxxx"), without the prefix, minus
	// known harmless ones.
	Errors []string
}

var (
	reOptionFile  = regexp.MustCompile(`Reading Cached Option File:\s*(\S+)`)
	reUnknownOpt  = regexp.MustCompile(`Unrecognized token:\s*"([^"]*)"`)
	reOptionError = regexp.MustCompile(`-E- Parsing error in field (.*)$`)
	reConfigured  = regexp.MustCompile(`(\S+) tables configured`)
	reCannotBuild = regexp.MustCompile(`(\S+): cannot build (?:lid matrices|fwd tables)`)
	reRoots       = regexp.MustCompile(`has (\d+) switches at rank 0 \(roots\)`)
	reLeafs       = regexp.MustCompile(`\((\d+) of them leafs\)`)
	reLevel       = regexp.MustCompile(`\] 0x([0-9a-fA-F]{2}) -> (.*)$`)
	reErr         = regexp.MustCompile(`\bERR [0-9A-Fa-f]{4}:`)
)

// harmless are error-level lines OpenSM 3.3.23 logs for things that work: it reports
// no_fallback as an engine it "failed to setup" and still honours it.
var harmless = []string{
	"Failed to setup routing engine 'no_fallback'",
	"cannot find or setup routing engine 'no_fallback'",
}

// ParseLog reads OpenSM's stdout and/or log text. Pass the text produced since the change being
// verified (for a long-running OpenSM, from the log offset before the SIGHUP or restart): the
// routing fields describe the last routing run in the text.
func ParseLog(text string) Verdict {
	v := Verdict{Roots: -1, Leaves: -1}
	var failed []string
	leafSum := -1
	for _, line := range strings.Split(text, "\n") {
		if m := reOptionFile.FindStringSubmatch(line); m != nil {
			v.OptionFile = m[1]
		}
		if m := reUnknownOpt.FindStringSubmatch(line); m != nil {
			v.UnknownOptions = append(v.UnknownOptions, m[1])
		}
		if m := reOptionError.FindStringSubmatch(line); m != nil {
			v.OptionErrors = append(v.OptionErrors, strings.TrimSpace(m[1]))
		}
		if m := reCannotBuild.FindStringSubmatch(line); m != nil {
			failed = append(failed, m[1])
		}
		if m := reConfigured.FindStringSubmatch(line); m != nil {
			v.Engine, v.Routed, v.Failed, failed = m[1], true, failed, nil
		}
		if strings.Contains(line, "No routing engine able to successfully configure") {
			v.Engine, v.Routed, v.Failed, failed = "", false, failed, nil
		}
		if m := reRoots.FindStringSubmatch(line); m != nil {
			v.Roots, _ = strconv.Atoi(m[1])
			leafSum = 0 // a new ftree report starts with the roots line
		}
		if m := reLeafs.FindStringSubmatch(line); m != nil {
			n, _ := strconv.Atoi(m[1])
			if leafSum < 0 {
				leafSum = 0
			}
			leafSum += n
			v.Leaves = leafSum
		}
		if strings.Contains(line, "SUBNET UP") {
			v.SubnetUp = true
		}
		if strings.Contains(line, "Partition configuration in error") {
			v.PartitionsRejected = true
		}
		msg := ""
		if m := reLevel.FindStringSubmatch(line); m != nil {
			// 0x01 is OSM_LOG_ERROR. Messages OpenSM always shows (its banner) are logged
			// as 0x03, error|info, and are no errors.
			if lvl, _ := strconv.ParseUint(m[1], 16, 8); lvl == 0x01 || reErr.MatchString(m[2]) {
				msg = m[2]
			}
		} else if reErr.MatchString(line) {
			msg = strings.TrimSpace(line)
		}
		if msg != "" && !isHarmless(msg) {
			v.Errors = append(v.Errors, msg)
		}
	}
	if len(failed) > 0 && !v.Routed {
		v.Failed = append(v.Failed, failed...)
	}
	return v
}

func isHarmless(msg string) bool {
	for _, h := range harmless {
		if strings.Contains(msg, h) {
			return true
		}
	}
	return false
}

// Expect is what a good run looks like.
type Expect struct {
	Engine string // the engine that must configure the tables; "" accepts any
	// Roots and Leaves, when > 0, are the counts ftree must report: listing only some spines
	// in root_guid_file "succeeds" with a wrong rank count.
	Roots, Leaves int
	// OptionFile, when set, is the -F file OpenSM must say it read.
	OptionFile string
	// AllowErrors accepts error-level log lines (for fabrics with known faults).
	AllowErrors bool
}

// Problems lists every way the run differs from e; empty means the run is good.
func (v Verdict) Problems(e Expect) []string {
	var p []string
	if e.OptionFile != "" && v.OptionFile != e.OptionFile {
		if v.OptionFile == "" {
			p = append(p, fmt.Sprintf("OpenSM never read %s (no \"Reading Cached Option File\"): a missing -F file is ignored silently and the defaults apply", e.OptionFile))
		} else {
			p = append(p, fmt.Sprintf("OpenSM read option file %s, not %s", v.OptionFile, e.OptionFile))
		}
	}
	if len(v.UnknownOptions) > 0 {
		p = append(p, "OpenSM ignored unknown options: "+strings.Join(v.UnknownOptions, ", "))
	}
	if len(v.OptionErrors) > 0 {
		p = append(p, "OpenSM refused option values: "+strings.Join(v.OptionErrors, "; "))
	}
	switch {
	case !v.Routed && len(v.Failed) > 0:
		p = append(p, "no routing engine configured the switch tables; failed: "+strings.Join(v.Failed, ", "))
	case !v.Routed:
		p = append(p, "OpenSM did not report configured switch tables")
	case e.Engine != "" && v.Engine != e.Engine:
		how := ""
		if len(v.Failed) > 0 {
			how = " after " + strings.Join(v.Failed, ", ") + " failed (fallback)"
		}
		p = append(p, fmt.Sprintf("tables configured by %s%s, not %s", v.Engine, how, e.Engine))
	}
	if e.Roots > 0 && v.Roots != e.Roots {
		p = append(p, fmt.Sprintf("ftree found %d root switches, expected %d", v.Roots, e.Roots))
	}
	if e.Leaves > 0 && v.Leaves != e.Leaves {
		p = append(p, fmt.Sprintf("ftree found %d leaf switches, expected %d", v.Leaves, e.Leaves))
	}
	if v.PartitionsRejected {
		p = append(p, "OpenSM could not parse partitions.conf and fell back to the default partition only")
	}
	if !e.AllowErrors && len(v.Errors) > 0 {
		shown := v.Errors
		if len(shown) > 5 {
			shown = shown[:5]
		}
		p = append(p, fmt.Sprintf("%d error lines in the log, first: %s", len(v.Errors), strings.Join(shown, " | ")))
	}
	return p
}

// Check returns an error describing every problem, or nil when the run is as expected. The push
// code rolls back when it is not nil.
func (v Verdict) Check(e Expect) error {
	if p := v.Problems(e); len(p) > 0 {
		return fmt.Errorf("OpenSM run not as intended: %s", strings.Join(p, "; "))
	}
	return nil
}
