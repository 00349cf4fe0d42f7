package demo

import (
	"archive/zip"
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Leak is a credential found where none should be.
type Leak struct {
	File   string // the file (and, inside a zip such as a saved plan, the entry after "!")
	Secret int    // which of the secrets looked for (its index: never the secret itself)
}

// FindLeaks looks for every secret in every file under dir, except the stores that hold
// credentials by design (files, or directories with everything under them). A zip file (a saved
// Terraform plan) is searched entry by entry, uncompressed. A multi-line secret (a PEM key) is
// found by any of its lines of 16 characters or more, its "-----BEGIN ...-----" armour excepted
// (every key of that type has it).
func FindLeaks(dir string, secrets, stores []string) ([]Leak, error) {
	var needles [][]byte
	var owner []int
	for i, sec := range secrets {
		for _, l := range strings.Split(sec, "\n") {
			l = strings.TrimSpace(l)
			if strings.HasPrefix(l, "-----") {
				continue
			}
			if len(l) >= 16 || (len(l) > 0 && !strings.Contains(sec, "\n")) {
				needles, owner = append(needles, []byte(l)), append(owner, i)
			}
		}
	}
	stored := func(p string) bool {
		for _, s := range stores {
			if p == s || strings.HasPrefix(p, strings.TrimSuffix(s, string(filepath.Separator))+string(filepath.Separator)) {
				return true
			}
		}
		return false
	}
	var leaks []Leak
	scan := func(name string, b []byte) {
		seen := map[int]bool{}
		for k, n := range needles {
			if !seen[owner[k]] && bytes.Contains(b, n) {
				seen[owner[k]] = true
				leaks = append(leaks, Leak{File: name, Secret: owner[k]})
			}
		}
	}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if os.IsNotExist(err) {
				return nil // a peer removed its own file meanwhile
			}
			return err
		}
		if stored(p) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			if os.IsNotExist(err) {
				return nil
			}
			return err
		}
		scan(p, b)
		if zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b))); err == nil {
			for _, f := range zr.File {
				rc, err := f.Open()
				if err != nil {
					continue
				}
				eb, _ := io.ReadAll(io.LimitReader(rc, 1<<30))
				_ = rc.Close()
				scan(p+"!"+f.Name, eb)
			}
		}
		return nil
	})
	return leaks, err
}

// checkNoLeaks is the demo's last word on secrets: no file it wrote (logs, the working copy, the
// state, the provider's logs) holds a credential it generated, except the stores meant for them.
func (s *Session) checkNoLeaks() {
	s.say("Secrets: none in any file the demo wrote")
	stores := append(s.Cluster.CredentialStores(), filepath.Join(s.Work, secretsFile))
	leaks, err := FindLeaks(s.o.Dir, s.Cluster.Secrets(), stores)
	if err != nil {
		s.t.Fatalf("demo: %v", err)
	}
	var where []string
	for _, l := range leaks {
		where = append(where, fmt.Sprintf("%s (secret #%d)", l.File, l.Secret))
	}
	s.detail("searched every file under %s for the %d credentials generated (the fleet's BMC password, each BMC's own, the SSH key); kept only in %d stores", s.o.Dir, len(s.Cluster.Secrets()), len(stores))
	s.expect(len(leaks) == 0, "no file the demo wrote holds a credential%s", map[bool]string{true: "", false: ": " + strings.Join(where, ", ")}[len(leaks) == 0])
}
