package demo

import (
	"archive/zip"
	"bytes"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/crypto/ssh"
)

// Leak is a credential found where none should be.
type Leak struct {
	File   string // the file (and, inside a zip such as a saved plan, the entry after "!")
	Secret int    // which of the secrets looked for (its index: never the secret itself)
}

// FindLeaks looks for every secret in every file under dir, except the stores that hold
// credentials by design (files, or directories with everything under them). A zip file (a saved
// Terraform plan) is searched entry by entry, uncompressed. A multi-line secret (a PEM key) is
// found by any of its own lines of 16 characters or more (ownLines).
func FindLeaks(dir string, secrets, stores []string) ([]Leak, error) {
	var needles [][]byte
	var owner []int
	for i, sec := range secrets {
		if !strings.Contains(sec, "\n") {
			if sec = strings.TrimSpace(sec); sec != "" {
				needles, owner = append(needles, []byte(sec)), append(owner, i)
			}
			continue
		}
		for _, l := range ownLines(sec) {
			if len(l) >= 16 {
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

// ownLines are the lines of a PEM secret that belong to it alone: not its "-----BEGIN ...-----"
// armour, and not a line that every key of its kind has at the same place. The OpenSSH private
// key format (PROTOCOL.key in OpenSSH's sources) opens with the magic "openssh-key-v1", the
// cipher and KDF names and the key type, which fill the whole first line of every unencrypted
// ed25519 key: a host key would read as a leak of any client key. Those lines are found by
// writing a fresh key of the same kind and keeping only the lines that differ from it.
func ownLines(sec string) []string {
	lines := strings.Split(strings.TrimSpace(sec), "\n")
	var fresh []string
	if key, err := ssh.ParseRawPrivateKey([]byte(sec)); err == nil && strings.Contains(lines[0], "OPENSSH PRIVATE KEY") {
		if f := freshKeyLike(key); f != nil {
			if block, err := ssh.MarshalPrivateKey(f, ""); err == nil {
				fresh = strings.Split(strings.TrimSpace(string(pem.EncodeToMemory(block))), "\n")
			}
		}
	}
	var own []string
	for i, l := range lines {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, "-----") || (i < len(fresh) && strings.TrimSpace(fresh[i]) == l) {
			continue
		}
		own = append(own, l)
	}
	return own
}

// freshKeyLike returns a new private key of key's kind (nil for a kind it does not make).
func freshKeyLike(key any) any {
	switch k := key.(type) {
	case *ed25519.PrivateKey, ed25519.PrivateKey:
		_, f, err := ed25519.GenerateKey(rand.Reader)
		if err != nil {
			return nil
		}
		return f
	case *ecdsa.PrivateKey:
		f, err := ecdsa.GenerateKey(k.Curve, rand.Reader)
		if err != nil {
			return nil
		}
		return f
	}
	return nil
}
