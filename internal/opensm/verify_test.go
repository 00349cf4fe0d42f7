package opensm

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func readTestdata(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The logs in testdata were written by OpenSM 3.3.23 on ibsim: 2 leaves, 1 spine and 4 HCAs,
// except opensm-torus-noconfig.log (a 3x3 2D torus of switches, one HCA each).
func TestParseLogCapturedRuns(t *testing.T) {
	cases := []struct {
		file    string
		expect  Expect
		engine  string
		failed  string
		problem string // "" means Check passes
	}{
		{"opensm-ftree.log", Expect{Engine: "ftree", Roots: 1, Leaves: 2, OptionFile: "opensm.conf"}, "ftree", "", ""},
		{"opensm-ftree.log", Expect{Engine: "ftree", Roots: 2}, "ftree", "", "ftree found 1 root switches, expected 2"},
		{"opensm-ftree.log", Expect{OptionFile: "/etc/opensm/opensm.conf"}, "ftree", "", "read option file opensm.conf, not /etc/opensm/opensm.conf"},
		{"opensm-ftree-lmc.log", Expect{Engine: "ftree"}, "minhop", "ftree", "tables configured by minhop after ftree failed (fallback), not ftree"},
		{"opensm-ftree-leafroot.log", Expect{Engine: "ftree"}, "minhop", "ftree", "fallback"},
		{"opensm-ftree-cn-nodeguids.log", Expect{Engine: "ftree"}, "minhop", "ftree", "fallback"},
		{"opensm-updn.log", Expect{Engine: "updn"}, "updn", "", ""},
		{"opensm-bogus-engine.log", Expect{}, "minhop", "", "cannot find or setup routing engine 'bogus'"},
		{"opensm-nofallback.log", Expect{Engine: "ftree"}, "", "ftree", "no routing engine configured the switch tables; failed: ftree"},
		{"opensm-torus-noconfig.log", Expect{Engine: "torus-2QoS"}, "minhop", "torus-2QoS", "tables configured by minhop after torus-2QoS failed (fallback)"},
		{"opensm-badpartitions.log", Expect{Engine: "minhop"}, "minhop", "", "could not parse partitions.conf"},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			v := ParseLog(readTestdata(t, c.file))
			if v.Engine != c.engine {
				t.Errorf("engine %q, want %q", v.Engine, c.engine)
			}
			if got := strings.Join(v.Failed, ","); got != c.failed {
				t.Errorf("failed %q, want %q", got, c.failed)
			}
			err := v.Check(c.expect)
			switch {
			case c.problem == "" && err != nil:
				t.Errorf("Check: %v", err)
			case c.problem != "" && (err == nil || !strings.Contains(err.Error(), c.problem)):
				t.Errorf("Check = %v, want a problem containing %q", err, c.problem)
			}
		})
	}
}

func TestParseLogDetails(t *testing.T) {
	v := ParseLog(readTestdata(t, "opensm-ftree.log"))
	if v.OptionFile != "opensm.conf" || v.Roots != 1 || v.Leaves != 2 || !v.SubnetUp || len(v.Errors) != 0 {
		t.Errorf("ftree run: %+v", v)
	}
	// 3.3.23 logs no_fallback as an engine it failed to set up, and honours it: not an error.
	v = ParseLog(readTestdata(t, "opensm-nofallback.log"))
	for _, e := range v.Errors {
		if strings.Contains(e, "no_fallback") {
			t.Errorf("no_fallback reported as an error: %s", e)
		}
	}
	if v.Routed || len(v.Errors) == 0 {
		t.Errorf("no_fallback run: %+v", v)
	}
	v = ParseLog(readTestdata(t, "opensm-bad-options.out"))
	if len(v.UnknownOptions) != 1 || v.UnknownOptions[0] != "bogus_key" || len(v.OptionErrors) != 1 || !strings.HasPrefix(v.OptionErrors[0], "lmc") {
		t.Errorf("bad options: unknown %v, errors %v", v.UnknownOptions, v.OptionErrors)
	}
	if err := v.Check(Expect{}); err == nil || !strings.Contains(err.Error(), "bogus_key") {
		t.Errorf("Check should name the unknown option: %v", err)
	}
	// A missing -F file: OpenSM says nothing about an option file.
	v = ParseLog("-------------------------------------------------\nOpenSM 3.3.23\nCommand Line Arguments:\n Run Once\n")
	if err := v.Check(Expect{OptionFile: "/etc/opensm/opensm.conf"}); err == nil || !strings.Contains(err.Error(), "ignored silently") {
		t.Errorf("missing option file: %v", err)
	}
	// Over several sweeps the last routing run counts: a fallback that is later fixed is gone.
	log := readTestdata(t, "opensm-ftree-lmc.log") + readTestdata(t, "opensm-ftree.log")
	if v := ParseLog(log); v.Engine != "ftree" || len(v.Failed) != 0 {
		t.Errorf("last run should be ftree without fallback: %+v", v)
	}
	// ERR lines with any level are errors.
	v = ParseLog("Nov 29 15:34:29 939150 [488F740] 0x02 -> osm_x: ERR 7505: Provided output GID is NULL\n")
	if len(v.Errors) != 1 {
		t.Errorf("ERR line: %+v", v.Errors)
	}
}

func FuzzParseLog(f *testing.F) {
	f.Add("Fabric has 2 switches at rank 0 (roots)\n(4 of them leafs)\nftree tables configured\n")
	f.Add("] 0x01 -> x\n] 0xzz -> y\nReading Cached Option File:\nUnrecognized token: \"")
	f.Fuzz(func(t *testing.T, s string) {
		v := ParseLog(s)
		_ = v.Problems(Expect{Engine: "ftree", Roots: 1, Leaves: 1, OptionFile: "x"})
	})
}
