package opensm

import (
	"strings"
	"testing"
)

// The cases follow rdma-core's parser (util/node_name_map.c) line by line: what it maps, what
// it skips, and what makes it drop the whole file.
func TestParseNodeNameMap(t *testing.T) {
	text := "# OpenSM node name map\n" +
		"\n" +
		"0x0002c90000000001 \"leaf01\"\n" +
		"   0x0002C90000000002\t\"ib leaf 02\"   # a name with spaces, and a comment\n" +
		"0x0002c90000000003 spine01  # unquoted: the name ends at '#', blanks dropped\n" +
		"0x0002c90000000001 \"second\"\n" + // the first line for a GUID wins
		"0x0002c90000000004\n" + // no name: nothing mapped
		"0x0002c90000000005 \"\"\n" + // an empty name: nothing mapped
		"42 \"decimal\"\n" +
		"010 \"octal\"\n" +
		"0x0002c90000000006#\"hash\"\n"
	m, err := ParseNodeNameMap(text)
	if err != nil {
		t.Fatal(err)
	}
	want := map[GUID]string{
		0x0002c90000000001: "leaf01", 0x0002c90000000002: "ib leaf 02", 0x0002c90000000003: "spine01",
		42: "decimal", 8: "octal", 0x0002c90000000006: "hash",
	}
	if len(m) != len(want) {
		t.Errorf("got %d entries %v, want %d", len(m), m, len(want))
	}
	for g, name := range want {
		if m[g] != name {
			t.Errorf("%s: got %q, want %q", g, m[g], name)
		}
	}
}

func TestParseNodeNameMapErrors(t *testing.T) {
	for _, text := range []string{"leaf01 0x1\n", "0x12g4 \"x\"\n", "0x \"x\"\n", "0x1\"x\"\n"} {
		_, err := ParseNodeNameMap("0x1 \"ok\"\n" + text)
		if err == nil || !strings.Contains(err.Error(), "line 2") || !strings.Contains(err.Error(), "ignore a map") {
			t.Errorf("%q: %v", text, err)
		}
	}
}
