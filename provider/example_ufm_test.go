package provider

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/testrig"
)

// TestAccUFMExample runs examples/clusters/ufm as a user would (the real terraform, the example
// copied as it is): first plan-only with no UFM anywhere (its default URL), then applied against
// the UFM test service beside another team's PKey: UFM then holds the example's three P_Keys with
// the members its variables say (counted here from the example's own rules: 4 nodes of 8 rails
// per tenant, full; mlx5_0 of all 8 nodes in storage, limited), the next plan is empty, and
// destroy leaves 0x7fff and the other team's PKey as they were.
func TestAccUFMExample(t *testing.T) {
	requireAcc(t)
	tf := newTerraformCLI(t)
	dir := t.TempDir()
	copyDir(t, filepath.Join(moduleRoot(), "examples", "clusters", "ufm"), dir)

	out := tf.run(dir, "plan", "-input=false", "-no-color")
	for _, want := range []string{"Plan: 4 to add, 0 to change, 0 to destroy.", "OpenSM files are not pushed: UFM owns the partitions"} {
		if !strings.Contains(flatText(out), want) {
			t.Errorf("plan without UFM: lacks %q:\n%s", want, out)
		}
	}

	u := testrig.StartUFM(t, testrig.UFMOptions{})
	caFile := filepath.Join(t.TempDir(), "ufm-ca.pem")
	if err := os.WriteFile(caFile, []byte(u.CAPEM), 0o600); err != nil {
		t.Fatal(err)
	}
	other := testrig.UFMPKey{Name: "other", IPoIB: true, MTULimit: 2, RateLimit: 2.5,
		GUIDs: []testrig.UFMGUID{{GUID: "0002c90300ffff01", Membership: "full"}}}
	u.SetPKey(0x0300, other)
	vars, err := json.Marshal(map[string]string{"ufm_url": u.URL, "ufm_username": u.Username, "ufm_password": u.Password, "ufm_ca_file": caFile})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "terraform.tfvars.json"), vars, 0o600); err != nil {
		t.Fatal(err)
	}
	tf.run(dir, "apply", "-input=false", "-no-color", "-auto-approve")
	held := u.PKeys()
	for k, want := range map[uint16]struct {
		n          int
		membership string
	}{0x0010: {32, "full"}, 0x0011: {32, "full"}, 0x0020: {8, "limited"}} {
		p, ok := held[k]
		if !ok {
			t.Errorf("UFM does not hold P_Key 0x%04x", k)
			continue
		}
		if len(p.GUIDs) != want.n {
			t.Errorf("P_Key 0x%04x: %d members, want %d", k, len(p.GUIDs), want.n)
		}
		for _, g := range p.GUIDs {
			if g.Membership != want.membership || len(g.GUID) != 16 {
				t.Errorf("P_Key 0x%04x: member %+v, want 16 hex digits, %s", k, g, want.membership)
			}
		}
	}
	if len(held) != 5 {
		t.Errorf("UFM holds %d P_Keys, want 5 (0x7fff, 0x0300 and the example's three)", len(held))
	}
	if _, err := tf.try(dir, "plan", "-input=false", "-no-color", "-detailed-exitcode"); err != nil {
		out, _ := tf.try(dir, "plan", "-input=false", "-no-color")
		t.Errorf("the plan after apply is not empty: %v\n%s", err, out)
	}
	tf.run(dir, "destroy", "-input=false", "-no-color", "-auto-approve")
	if err := ufmHolds(u, map[uint16][]string{0x7fff: nil, 0x0300: {"0002c90300ffff01:full"}}); err != nil {
		t.Errorf("after destroy: %v", err)
	}
}
