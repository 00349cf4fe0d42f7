package opensm

import (
	"fmt"
	"sort"
	"strings"
	"testing"
)

// FuzzParseOptionFile: whatever opensm.conf text ParseOptionFile reads, writing the options back
// as "key value" lines and reading them again gives the same options; keys are single words;
// CheckOption and ParseEngines judge any value without panicking, and an engine list they accept
// names only engines OpenSM 3.3 has.
func FuzzParseOptionFile(f *testing.F) {
	f.Add("routing_engine ftree\nlmc 0\n# comment\nforce_log_flush TRUE\n")
	f.Add("partition_config_file\t/etc/opensm/partitions.conf # trailing\n\n  log_flags 0x43\n")
	f.Add("routing_engine updn,minhop,no_fallback\nsm_priority 15\nsweep_interval -1\n")
	f.Add("key\t \tvalue with  spaces\nkey later\n\r\n#only\n")
	f.Fuzz(func(t *testing.T, text string) {
		opts := ParseOptionFile(text)
		keys := make([]string, 0, len(opts))
		for k, v := range opts {
			if k == "" || strings.ContainsAny(k, " \t\n#") {
				t.Fatalf("key %q of %q is not one word", k, text)
			}
			if strings.ContainsAny(v, "\n#") || v != strings.TrimSpace(v) {
				t.Fatalf("value %q of key %q is not trimmed text of one line", v, k)
			}
			keys = append(keys, k)
			err := CheckOption(k, v)
			if k == "routing_engine" {
				engines, _, perr := ParseEngines(v)
				if perr == nil {
					for _, e := range engines {
						if !knownEngine(e) {
							t.Fatalf("ParseEngines(%q) accepted unknown engine %q", v, e)
						}
					}
				}
				if err == nil && perr != nil {
					t.Fatalf("CheckOption accepts routing_engine %q that ParseEngines refuses: %v", v, perr)
				}
			}
			_ = HotUpdatable(k)
		}
		sort.Strings(keys)
		var b strings.Builder
		for _, k := range keys {
			fmt.Fprintf(&b, "%s %s\n", k, opts[k])
		}
		again := ParseOptionFile(b.String())
		if len(again) != len(opts) {
			t.Fatalf("round trip of %q: %v then %v", text, opts, again)
		}
		for k, v := range opts {
			if again[k] != v {
				t.Fatalf("round trip of %q: %s = %q then %q", text, k, v, again[k])
			}
		}
	})
}

// FuzzParseFiles: the reader of what filesScript prints on the SM host. Any content (any bytes,
// "gpc-end" lines and missing final newlines included) framed as the script frames it is read
// back exactly; for arbitrary output the reader never panics and returns only contents that are
// part of its input, under the names the input gave.
func FuzzParseFiles(f *testing.F) {
	f.Add("", "Default=0x7fff : ALL=full ;\n", "x\ngpc-end\n", "gpc-absent cn_guids.conf\n")
	f.Add("routing_engine ftree\n", "", "no newline", "gpc-file opensm.conf 3\nab\ngpc-end\n")
	f.Add("\ngpc-end\n", "gpc-file a 1\n", "\x00\xff", "gpc-file x -1\n")
	f.Fuzz(func(t *testing.T, a, b, c, raw string) {
		framed := Files{FileOpenSMConf: a, FilePartitions: b, FileRootGUIDs: c}
		var out strings.Builder
		for _, n := range FileNames {
			text, ok := framed[n]
			if !ok {
				fmt.Fprintf(&out, "gpc-absent %s\n", n)
				continue
			}
			fmt.Fprintf(&out, "gpc-file %s %d\n%s\ngpc-end\n", n, len(text), text)
		}
		got, err := parseFiles(out.String())
		if err != nil {
			t.Fatalf("framed files refused: %v", err)
		}
		if !sameFiles(got, framed) {
			t.Fatalf("framed files read back as %q, want %q", got, framed)
		}

		files, err := parseFiles(raw)
		if err != nil {
			return
		}
		for name, text := range files {
			if !strings.Contains(raw, "gpc-file "+name) && !strings.Contains(raw, name) {
				t.Fatalf("file %q is not named in the input %q", name, raw)
			}
			if !strings.Contains(raw, text) {
				t.Fatalf("content %q of %s is not part of the input %q", text, name, raw)
			}
		}
	})
}
