package policy

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// TestLoadRules reads every file of the list: the rules of the good ones in order, and one error
// per bad file at its index (a file that is missing, one that does not parse).
func TestLoadRules(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "fabric.hcl")
	bad := filepath.Join(dir, "bad.hcl")
	second := filepath.Join(dir, "second.hcl")
	for f, src := range map[string]string{
		good:   headroomRule,
		bad:    `rule "x" {`,
		second: "rule \"warn\" {\n  severity = \"warning\"\n  condition = true\n  error_message = \"w\"\n}\n",
	} {
		if err := os.WriteFile(f, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	missing := filepath.Join(dir, "missing.hcl")
	rules, errs := LoadRules([]string{good, missing, bad, second})
	if len(rules) != 2 || rules[0].Name != "spine-headroom" || rules[1].Name != "warn" {
		t.Errorf("rules %+v", rules)
	}
	if len(errs) != 2 || errs[0].Index != 1 || errs[1].Index != 2 {
		t.Fatalf("errors %v", errs)
	}
	if !errors.Is(errs[0].Err, fs.ErrNotExist) || errs[0].File != missing {
		t.Errorf("missing file: %v", errs[0])
	}
	var pe *ParseError
	if !errors.As(errs[1].Err, &pe) {
		t.Errorf("bad file: %T %v", errs[1].Err, errs[1])
	}
	if rules, errs := LoadRules(nil); rules != nil || errs != nil {
		t.Errorf("no files: %v %v", rules, errs)
	}
}
