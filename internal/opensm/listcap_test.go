package opensm

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/listed"
)

// fed is how many bad entries each case of TestListsCapped feeds.
const fed = 12

// checkListCap: an error built from a list that grows with its input names listed.Few items and
// counts the rest (issue 32, point 5): item finds each entry the message names (by a marker each
// carries), against the fed entries.
func checkListCap(t *testing.T, what string, err error, item *regexp.Regexp) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s: no error", what)
	}
	named := len(item.FindAllString(err.Error(), -1))
	m := regexp.MustCompile(` and (\d+) more`).FindStringSubmatch(err.Error())
	if named != listed.Few || m == nil || m[1] != strconv.Itoa(fed-listed.Few) {
		t.Errorf("%s: %d fed, %d named and %v counted, want %d and %d: %.400s", what, fed, named, m, listed.Few, fed-listed.Few, err)
	}
}

// TestListsCapped: a node name map, a perfquery text, the root GUIDs of a push and a partition
// header with more bad entries than the cap.
func TestListsCapped(t *testing.T) {
	var nnm, perf, roots []string
	for i := range fed {
		nnm = append(nnm, fmt.Sprintf("0xZZ%d \"sw%d\"", i, i))
		perf = append(perf, fmt.Sprintf("bad line %d", i))
		roots = append(roots, fmt.Sprintf("notaguid%d", i))
	}
	_, err := ParseNodeNameMap(strings.Join(nnm, "\n"))
	checkListCap(t, "node name map", err, regexp.MustCompile(`line \d+: "0xZZ`))

	_, err = ParsePerfQuery("# Port counters: Lid 1 port 1\n" + strings.Join(perf, "\n"))
	checkListCap(t, "perfquery text", err, regexp.MustCompile(`cannot read "bad line`))

	p := Paths{ConfigDir: "/etc/opensm"}
	cfg := baseConfig()
	cfg.Paths = p
	files, err := Render(cfg)
	if err != nil {
		t.Fatal(err)
	}
	files[FileRootGUIDs] = strings.Join(roots, "\n")
	checkListCap(t, "root GUIDs", CheckFiles(files, p), regexp.MustCompile(FileRootGUIDs+`:\d+:`))

	var flags []string
	for i := range fed {
		flags = append(flags, fmt.Sprintf("=x%d", i))
	}
	_, problems := parseHeader("p1=0x10," + strings.Join(flags, ","))
	checkListCap(t, "partition header", fmt.Errorf("%s", problems), regexp.MustCompile(`empty flag`))
}
