package opensm

import (
	"context"
	"os/exec"
	"reflect"
	"strings"
	"testing"
)

func TestPortQuery(t *testing.T) {
	for _, c := range []struct {
		sel      PortSelector
		extended bool
		want     PerfQuery
	}{
		{PortSelector{GUID: "0x0002C90300001003", Port: 2}, false,
			PerfQuery{Name: "0x0002c90300001003", GUID: "0x0002c90300001003", Args: []string{"-G", "0x0002c90300001003", "2"}}},
		{PortSelector{Name: "leaf01", GUID: "0x0002c90300001003"}, true,
			PerfQuery{Name: "leaf01", GUID: "0x0002c90300001003", Args: []string{"-x", "-l", "-G", "0x0002c90300001003", "255"}}},
		{PortSelector{LID: 12, Port: 1}, false, PerfQuery{Name: "lid 12", Args: []string{"12", "1"}}},
		{PortSelector{Name: "hca", LID: 12}, true, PerfQuery{Name: "hca", Args: []string{"-x", "-l", "12", "255"}}},
	} {
		if got := PortQuery(c.sel, c.extended); !reflect.DeepEqual(got, c.want) {
			t.Errorf("PortQuery(%+v, %v) = %+v, want %+v", c.sel, c.extended, got, c.want)
		}
	}
}

func TestCountsDropsSelectorsAndUnlinkedPorts(t *testing.T) {
	q := PerfQuery{Linked: map[int]bool{2: true}}
	b := PortCounters{LID: 2, Port: 2, Counters: map[string]uint64{"PortSelect": 2, "CounterSelect": 0, "SymbolErrorCounter": 7}}
	if got, ok := q.Counts(b); !ok || !reflect.DeepEqual(got, map[string]uint64{"SymbolErrorCounter": 7}) {
		t.Errorf("Counts(port 2) = %v, %v", got, ok)
	}
	b.Port = 3
	if _, ok := q.Counts(b); ok {
		t.Error("port 3 is not linked but was kept")
	}
	if _, ok := (PerfQuery{}).Counts(b); !ok {
		t.Error("a query without Linked keeps every port")
	}
}

// localShell runs the batch under the machine's own /bin/sh, as sshd would on a host.
type localShell struct{}

func (localShell) Addr() string { return "localhost" }

func (localShell) Run(ctx context.Context, cmd string) (string, string, int, error) {
	c := exec.CommandContext(ctx, "/bin/sh", "-c", cmd)
	var out, errb strings.Builder
	c.Stdout, c.Stderr = &out, &errb
	err := c.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return out.String(), errb.String(), ee.ExitCode(), nil
	}
	return out.String(), errb.String(), 0, err
}

// TestRunPerfQueriesInOrder runs a batch in a real shell with echo standing in for perfquery:
// each query's stdout comes back apart and in order, quoted arguments intact.
func TestRunPerfQueriesInOrder(t *testing.T) {
	ctx := context.Background()
	qs := []PerfQuery{
		{Name: "a", Args: []string{"-l", "2", "255"}},
		{Name: "b", Args: []string{"it's", "two words"}},
		{Name: "c"},
	}
	res, err := RunEachPerfQuery(ctx, localShell{}, "echo", qs)
	if err != nil {
		t.Fatal(err)
	}
	// The last body also holds the empty line after the script's final newline (harmless to
	// ParsePerfQuery, which skips blank lines).
	var outs []string
	for _, r := range res {
		if r.Err != nil {
			t.Errorf("query: %v", r.Err)
		}
		outs = append(outs, r.Out)
	}
	if want := []string{"-l 2 255\n", "it's two words\n", "\n\n"}; !reflect.DeepEqual(outs, want) {
		t.Errorf("outputs %q, want %q", outs, want)
	}
	if res, err := RunEachPerfQuery(ctx, localShell{}, "echo", nil); res != nil || err != nil {
		t.Errorf("no queries: %v, %v", res, err)
	}
}

func TestParsePerfBatchRefusesForeignFrames(t *testing.T) {
	if _, err := parseEach("gpc-query 5\n", "perfquery", []PerfQuery{{Name: "a"}}); err == nil || !strings.Contains(err.Error(), `"gpc-query 5"`) {
		t.Errorf("frame of a query not asked for: %v", err)
	}
	res, err := parseEach("noise\ngpc-query 0\n# Port counters: Lid 2 port 1\ngpc-rc 0\n", "perfquery", []PerfQuery{{Name: "a"}})
	if err != nil || len(res) != 1 || res[0].Out != "# Port counters: Lid 2 port 1\n\n" || res[0].Err != nil {
		t.Errorf("parseEach = %+v, %v", res, err)
	}
}

// TestRunEachPerfQuery: in a real shell, a query that fails (a port behind a down cable) fails
// alone with its stderr; the others come back.
func TestRunEachPerfQuery(t *testing.T) {
	perf := `sh -c 'if [ "$1" = 99 ]; then echo "ibwarn: no such lid" >&2; exit 3; fi; echo "lid $1"' x`
	res, err := RunEachPerfQuery(context.Background(), localShell{}, perf, []PerfQuery{{Name: "a", Args: []string{"2"}}, {Name: "b", Args: []string{"99"}}, {Name: "c", Args: []string{"4"}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 3 || res[0].Out != "lid 2\n" || res[0].Err != nil || res[2].Err != nil || !strings.HasPrefix(res[2].Out, "lid 4\n") {
		t.Errorf("results %+v", res)
	}
	if res[1].Err == nil || !strings.Contains(res[1].Err.Error(), "(b) exited with status 3: ibwarn: no such lid") {
		t.Errorf("failing query: %v", res[1].Err)
	}
	// A batch that stops early leaves the rest unframed: each says it did not run.
	out, err := parseEach("gpc-query 0\nx\ngpc-rc 0\n", "perfquery", []PerfQuery{{Name: "a"}, {Name: "b"}})
	if err != nil || out[0].Err != nil || out[1].Err == nil || !strings.Contains(out[1].Err.Error(), "did not run") {
		t.Errorf("unframed: %+v %v", out, err)
	}
}
