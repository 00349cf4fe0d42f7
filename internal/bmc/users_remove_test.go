package bmc

import (
	"context"
	"errors"
	"testing"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/testrig"
)

// TestRemoveUserRedfish: on a BMC that creates accounts by POST the account is deleted (DELETE);
// on one with fixed slots (DELETE refused with 405) its slot is cleared. Either way it is gone
// from the account list and can no longer log in; the login account itself is refused.
func TestRemoveUserRedfish(t *testing.T) {
	for _, post := range []bool{false, true} {
		rig := testrig.StartRedfish(t, testrig.RedfishOptions{PostAccounts: post})
		ctx := context.Background()
		s := mustOpen(t, rfConfig(rig, nil))
		const pw = "0ps-Passw0rd"
		if err := s.EnsureUser(ctx, "ops", "Operator", pw); err != nil {
			t.Fatalf("post=%v: ensure: %v", post, err)
		}
		if !rig.CheckPassword("ops", pw) {
			t.Fatalf("post=%v: ops cannot log in before the removal", post)
		}
		how, err := s.RemoveUser(ctx, "ops")
		if err != nil || how != RemovedDeleted {
			t.Fatalf("post=%v: remove: %q, %v", post, how, err)
		}
		for _, a := range rig.Accounts() {
			if a.UserName == "ops" {
				t.Fatalf("post=%v: the rig still has ops: %+v", post, a)
			}
		}
		if rig.CheckPassword("ops", pw) {
			t.Fatalf("post=%v: ops still logs in", post)
		}
		if st := mustRead(t, s); len(st.Users) != 1 {
			t.Fatalf("post=%v: users after removal: %v", post, st.Users)
		}
		if how, err := s.RemoveUser(ctx, "ops"); err != nil || how != RemovedAbsent {
			t.Fatalf("post=%v: removing again: %q, %v", post, how, err)
		}
		if _, err := s.RemoveUser(ctx, rig.Username); !errors.Is(err, ErrInvalid) {
			t.Fatalf("post=%v: removing the login account: %v", post, err)
		}
	}
}

// TestRemoveUserIPMI: IPMI cannot delete; the slot is disabled, set to NO ACCESS, given a random
// password and its name cleared (ipmi_sim accepts the empty name), so the account is gone from
// the list and cannot open a session.
func TestRemoveUserIPMI(t *testing.T) {
	testrig.RequirePeers(t)
	sim := testrig.StartIPMISim(t)
	ctx := context.Background()
	s := mustOpen(t, ipmiConfig(sim, nil))
	const pw = "0psPassw0rd"
	if err := s.EnsureUser(ctx, "ops", "Operator", pw); err != nil {
		t.Fatal(err)
	}
	how, err := s.RemoveUser(ctx, "ops")
	if err != nil || how != RemovedDeleted {
		t.Fatalf("remove: %q, %v", how, err)
	}
	if st := mustRead(t, s); st.Users["ops"] != "" || len(st.Users) != 1 {
		t.Fatalf("users after removal: %v", st.Users)
	}
	ib, ok := s.b.(*ipmiBackend)
	if !ok {
		t.Fatalf("backend %T, want the IPMI one", s.b)
	}
	slots, err := ib.users(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range slots {
		if u.name == "ops" {
			t.Fatalf("slot still named ops: %+v", u)
		}
	}
	_ = s.Close()
	cfg := ipmiConfig(sim, nil)
	cfg.Username, cfg.Password = "ops", pw
	if _, err := Open(ctx, cfg); !errors.Is(err, ErrAuth) {
		t.Fatalf("login as the removed ops: %v", err)
	}
}
