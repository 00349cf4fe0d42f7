package policy

import (
	"github.com/gpucluster/terraform-provider-gpucluster/internal/inputfile"
)

// FileError is a policy file that could not be read or parsed; Index is its place in the list
// given to LoadRules, where the caller reports Err.
type FileError struct {
	Index int
	File  string
	Err   error // the read error, or ParseRules' *ParseError
}

// LoadRules reads and parses the policy files in order and returns their rules, in order. Every
// file is tried, so one plan reports every bad file; the rules of the good ones are returned
// either way.
func LoadRules(files []string) ([]Rule, []*FileError) {
	var rules []Rule
	var errs []*FileError
	for i, f := range files {
		src, err := inputfile.Read(f, inputfile.MaxPolicyFile)
		if err == nil {
			var rs []Rule
			rs, err = ParseRules(f, src)
			rules = append(rules, rs...)
		}
		if err != nil {
			errs = append(errs, &FileError{Index: i, File: f, Err: err})
		}
	}
	return rules, errs
}
