package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/opensm"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/testrig"
)

// TestAccFabricSubnetManagerPushFaults (issue 32, point 6: the hostile round's point 9) through
// the real terraform, OpenSM on ibsim behind a real sshd, its config_dir a 256 KiB tmpfs. Three
// applies of one change (HCA gpu007/mlx5_2 joins the compute partition) fail, each differently:
//  1. the disk fills during the push (another writer filled it after the refresh);
//  2. OpenSM dies in the sweep the push's SIGHUP started (its control script SIGKILLs it as
//     soon as the sweep logs, as a crash would);
//  3. the last file the write renames into place cannot be replaced (a bind mount: EBUSY).
//
// Each apply fails naming the host and what went wrong; after each, the OpenSM files on the host
// are byte for byte those of the first apply, OpenSM runs them (the same process after 1 and 3; a
// new one, started on them by the rollback, after 2), the HCA is not a member, and the state does
// not claim the new files: the plan of the first configuration is empty, that of the change is not.
// The destroy at the end restores the host (the bind mount is taken away first).
func TestAccFabricSubnetManagerPushFaults(t *testing.T) {
	requireAcc(t)
	testrig.RequirePeers(t)
	r := startSMRig(t)
	testrig.MountTmpfs(t, r.confDir, "256k")
	base, next := r.fabricSMConfig(""), r.fabricSMConfig("", 50)
	filler := filepath.Join(r.confDir, "filler")
	var files map[string]string
	var pid int
	// same checks the host against the first apply; samePID whether OpenSM is the same process.
	same := func(samePID bool) {
		t.Helper()
		if got := r.onHost(t); fmt.Sprint(got) != fmt.Sprint(files) {
			t.Errorf("the OpenSM files on the host changed:\n%v\nwant\n%v", got, files)
		}
		if _, err := os.Stat(filepath.Join(r.confDir, opensm.PendingMarker)); !os.IsNotExist(err) {
			t.Errorf("the pending marker is on the host (%v)", err)
		}
		now := r.svc.PID()
		switch {
		case now == 0:
			t.Error("OpenSM is not running")
		case samePID && now != pid:
			t.Errorf("OpenSM's PID is %d, was %d", now, pid)
		case !samePID && now == pid:
			t.Errorf("OpenSM's PID is still %d: it was not killed", now)
		}
		if p := r.pkeys(t, 50); strings.Contains(p, "0x8001") {
			t.Errorf("HCA 50 is a member: OpenSM runs the new files\n%s", p)
		}
		pid = now
	}
	script, realScript := r.svc.Script, r.svc.Script+".real"
	killOnSweep := func() {
		if err := os.Rename(script, realScript); err != nil {
			t.Fatal(err)
		}
		body := fmt.Sprintf(`#!/bin/sh
# reload: SIGHUP, then SIGKILL once the heavy sweep logs (written by a test)
[ "$1" = reload ] || exec %[1]s "$@"
log=%[2]s; sz=$(wc -c < "$log"); pid=$(cat %[3]s)
%[1]s reload || exit $?
i=0; while [ "$(wc -c < "$log")" -le "$sz" ]; do i=$((i+1)); [ $i -gt 3000 ] && exit 9; sleep 0.01; done
kill -9 "$pid"; while kill -0 "$pid" 2>/dev/null; do sleep 0.01; done
`, realScript, r.log, r.svc.PIDFile)
		if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	unbind := func() {}
	emptyPlanOfBase := resource.TestStep{Config: base, PlanOnly: true}
	nextPlanned := resource.TestStep{Config: next, PlanOnly: true, ExpectNonEmptyPlan: true}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{
			{Config: base, Check: resource.ComposeAggregateTestCheckFunc(r.checkFilesOnHost(t), func(*terraform.State) error {
				files, pid = r.onHost(t), r.svc.PID()
				return nil
			})},
			{
				PreConfig: func() {
					// Fill the tmpfs to its last byte (the last write fails: that is the point).
					fh, err := os.Create(filler)
					if err != nil {
						t.Fatal(err)
					}
					for buf := make([]byte, 4096); ; {
						if _, err := fh.Write(buf); err != nil {
							break
						}
					}
					_ = fh.Close()
				},
				Config:      next,
				ExpectError: re(fmt.Sprintf("OpenSM on 127.0.0.1: write: remote: writing cn_guids.conf, gpucluster-pending, node-name-map, opensm.conf, partitions.conf, root_guids.conf, torus-2QoS.conf in %s on 127.0.0.1:%d: nothing was changed: not enough space", r.confDir, r.sshd.Port)),
			},
			{
				PreConfig: func() {
					same(true)
					if err := os.Remove(filler); err != nil {
						t.Fatal(err)
					}
				},
				Config: base, PlanOnly: true,
			},
			nextPlanned,
			{
				PreConfig:   killOnSweep,
				Config:      next,
				ExpectError: re("OpenSM on 127.0.0.1: verify: OpenSM is not running (the status command failed); OpenSM went down during the change: the previous files were restored and OpenSM was started again on them"),
			},
			{
				PreConfig: func() {
					same(false)
					if err := os.Rename(realScript, script); err != nil {
						t.Fatal(err)
					}
				},
				Config: base, PlanOnly: true,
			},
			nextPlanned,
			{
				PreConfig:   func() { unbind = testrig.BindOver(t, filepath.Join(r.confDir, opensm.FileTorus2QoS)) },
				Config:      next,
				ExpectError: re("on 127.0.0.1:" + strconv.Itoa(r.sshd.Port) + " failed; every file was left as it was: cannot move the new " + filepath.Join(r.confDir, opensm.FileTorus2QoS) + " into place"),
			},
			{PreConfig: func() { same(true); unbind() }, Config: base, PlanOnly: true},
			emptyPlanOfBase,
			nextPlanned,
		},
	})
}
