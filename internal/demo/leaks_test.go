package demo

import (
	"archive/zip"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"testing"
)

// FindLeaks finds a password in a log and a key line inside a zip entry (a saved plan), and
// nothing in the stores meant for credentials nor in another key's armour.
func TestFindLeaks(t *testing.T) {
	dir := t.TempDir()
	const pw = "0f1e2d3c4b5a6978"
	key := "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtz\nAAA=\n-----END OPENSSH PRIVATE KEY-----\n"
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
	write("peers/host_key", "-----BEGIN OPENSSH PRIVATE KEY-----\nsomethingelseentirely1234567890\n-----END OPENSSH PRIVATE KEY-----\n")
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
	_, _ = w.Write([]byte("variables: {key: \"b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtz\"}"))
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
