package demo

import (
	"archive/zip"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"golang.org/x/crypto/ssh"
)

// FindLeaks finds a password in a log and a private line of a key inside a zip entry (a saved
// plan), and nothing in the stores meant for credentials nor in another key of the same kind,
// whose first line (OpenSSH's header) is the same as the secret key's.
func TestFindLeaks(t *testing.T) {
	dir := t.TempDir()
	const pw = "0f1e2d3c4b5a6978"
	key, other := ed25519PEM(t), ed25519PEM(t)
	keyLines, otherLines := strings.Split(key, "\n"), strings.Split(other, "\n")
	if keyLines[1] != otherLines[1] {
		t.Fatalf("two ed25519 keys should share their first line (the OpenSSH header):\n%s\n%s", keyLines[1], otherLines[1])
	}
	write := func(rel, body string) string {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("logs/01-apply.log", "ok\nbmc password is "+pw+"\n")
	write("logs/02-plan.log", "nothing here\n")
	write("peers/ssh_host_ed25519_key", other)
	store := write("peers/id_ed25519", key)
	bmcDir := filepath.Join(dir, "tmp", "003")
	write("tmp/003/lan.conf", `user 2 true "admin" "`+pw+`"`)
	write("work/secrets.auto.tfvars.json", `{"bmc_password":"`+pw+`"}`)
	f, err := os.Create(filepath.Join(dir, "work", "fabric.tfplan"))
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	w, _ := zw.Create("tfplan")
	_, _ = w.Write([]byte("variables: {key: \"" + keyLines[3] + "\"}"))
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()

	leaks, err := FindLeaks(dir, []string{pw, key}, []string{store, bmcDir, filepath.Join(dir, "work", "secrets.auto.tfvars.json")})
	if err != nil {
		t.Fatal(err)
	}
	sort.Slice(leaks, func(i, j int) bool { return leaks[i].File < leaks[j].File })
	want := []Leak{{File: filepath.Join(dir, "logs", "01-apply.log"), Secret: 0}, {File: filepath.Join(dir, "work", "fabric.tfplan") + "!tfplan", Secret: 1}}
	if !reflect.DeepEqual(leaks, want) {
		t.Errorf("leaks %+v\nwant %+v", leaks, want)
	}
}

// ed25519PEM is a new ed25519 private key in OpenSSH's PEM form, as the simulated cluster's.
func ed25519PEM(t *testing.T) string {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	block, err := ssh.MarshalPrivateKey(priv, "test")
	if err != nil {
		t.Fatal(err)
	}
	return string(pem.EncodeToMemory(block))
}
