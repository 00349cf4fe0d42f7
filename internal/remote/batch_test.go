package remote

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/testrig"
)

// TestRunBatchIsEachCommandAlone: a batch gives each command exactly what running it alone
// gives (the independent computation: one Run per command on the same host), whatever it
// prints, however it ends, in one session.
func TestRunBatchIsEachCommandAlone(t *testing.T) {
	testrig.RequirePeers(t)
	s := testrig.StartSSHD(t, testrig.SSHDOptions{})
	c := dialT(t, s)
	ctx := context.Background()
	cmds := []string{
		"echo out; echo err >&2",
		"printf 'no newline'; printf 'err no newline' >&2",
		"exit 3",
		"printf '\\n\\n'; exit 0",
		"cat; echo read-stdin", // stdin is empty, not the rest of the script
		"echo before # a trailing comment",
		"kill -TERM $$",
		"printf '%s\\n' \"$(printf 'gpc-batch-000000000000 7')\"", // a line shaped like a marker
		"",
		"echo 'unbalanced",   // a syntax error stays its command's
		"exec echo replaced", // and so does an exec
		"true",
	}
	got, err := RunBatch(ctx, c, cmds...)
	if err != nil {
		t.Fatalf("RunBatch: %v", err)
	}
	var want []Result
	for _, cmd := range cmds {
		stdout, stderr, exit, err := c.Run(ctx, cmd)
		if err != nil {
			t.Fatalf("Run %q: %v", cmd, err)
		}
		want = append(want, Result{stdout, stderr, exit})
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("RunBatch:\n%+v\nwant, from one Run each:\n%+v", got, want)
	}

	// A batch whose shell dies part-way (killed by its second command: the parent of the
	// subshell that runs it) returns what finished, and says so.
	got, err = RunBatch(ctx, c, "echo first", "kill -KILL $(cut -d' ' -f4 /proc/$PPID/stat)", "echo never")
	if err == nil || !strings.Contains(err.Error(), "a batch of 3 commands ended after 1") || len(got) != 1 || got[0].Stdout != "first\n" {
		t.Errorf("batch killed part-way: %+v, %v", got, err)
	}
}
