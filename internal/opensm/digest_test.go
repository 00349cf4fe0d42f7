package opensm

import (
	"reflect"
	"testing"
)

func TestDigestOf(t *testing.T) {
	cases := []struct {
		text         string
		sha          string
		bytes, lines int
	}{
		// Reference values: sha256sum of the same bytes (printf '%s' ... | sha256sum).
		{"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", 0, 0},
		{"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad", 3, 1},
		{"abc\n", "edeaaff3f1774ad2888673770c6d64097e391bc362d7d6fb34982ddf0efd18cb", 4, 1},
		{"a\nb\n\n", "", 5, 3},
		{"a\nb", "", 3, 2},
	}
	for _, c := range cases {
		d := DigestOf(c.text)
		if c.sha != "" && d.SHA256 != c.sha {
			t.Errorf("DigestOf(%q).SHA256 = %s, want %s", c.text, d.SHA256, c.sha)
		}
		if d.Bytes != c.bytes || d.Lines != c.lines {
			t.Errorf("DigestOf(%q) = %d bytes, %d lines; want %d, %d", c.text, d.Bytes, d.Lines, c.bytes, c.lines)
		}
	}
	if DigestOf("x 1\n") == DigestOf("x  1\n") {
		t.Error("a doubled space must change the digest")
	}
}

func TestMismatch(t *testing.T) {
	files := Files{FileOpenSMConf: "a\n", FilePartitions: "b\n", FileRootGUIDs: "", FileCNGUIDs: "", FileNodeNameMap: "n\n"}
	want := Digests(files)
	if got := Mismatch(files, want); len(got) != 0 {
		t.Fatalf("same files: %v", got)
	}
	edited := Files{}
	for k, v := range files {
		edited[k] = v
	}
	edited[FilePartitions] = "b=limited\n"
	delete(edited, FileCNGUIDs)
	edited["extra.conf"] = ""
	if got, exp := Mismatch(edited, want), []string{FilePartitions, FileCNGUIDs, "extra.conf"}; !reflect.DeepEqual(got, exp) {
		t.Errorf("Mismatch = %v, want %v", got, exp)
	}
}
