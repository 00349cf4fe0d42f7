package demo

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/testrig"
)

// TestDemo runs `make demo`'s scenario: the provider built from this tree, the real terraform,
// the simulated cluster's real peers. Like the provider's acceptance tests it runs with TF_ACC
// (and must, in CI).
func TestDemo(t *testing.T) {
	testrig.RequirePeers(t)
	if os.Getenv("TF_ACC") == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("TF_ACC must be set in CI: the demo is the product's main job")
		}
		t.Skip("TF_ACC not set: the demo runs terraform against the simulated cluster")
	}
	tf, err := exec.LookPath("terraform")
	if err != nil {
		t.Fatal("terraform (>= 1.11) must be on PATH")
	}
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	build := exec.Command("go", "build", "-o", filepath.Join(bin, "terraform-provider-gpucluster"), ".")
	build.Dir = repo
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the provider: %v\n%s", err, out)
	}
	var out strings.Builder
	defer func() { t.Logf("demo output:\n%s", out.String()) }()
	s := Run(t, Options{Repo: repo, Example: DefaultExample, Dir: t.TempDir(), ProviderDir: bin, Terraform: tf, Out: &out})
	// What it printed holds no credential either (FindLeaks searched the files).
	for i, sec := range s.Cluster.Secrets() {
		for _, l := range strings.Split(sec, "\n") {
			if l = strings.TrimSpace(l); len(l) >= 16 && !strings.HasPrefix(l, "-----") && strings.Contains(out.String(), l) {
				t.Errorf("the demo printed credential #%d", i)
			}
		}
	}
	// The firmware step's table: the rig's factory versions (testrig: nodeTools' cards, the
	// Redfish rig's BMC and BIOS), read through Terraform.
	for _, want := range []string{
		"gpu001: HCAs 8 at 28.42.1000 (flint); BMC over IPMI: no firmware inventory",
		"gpu005: HCAs 8 at 28.42.1000 (flint); BMC 24.09.17, BIOS 1.6.7 (Redfish FirmwareInventory)",
		"gpu005's FirmwareInventory/BMC now says 25.01.03",
	} {
		if !strings.Contains(out.String(), "\n    "+want+"\n") {
			t.Errorf("the demo did not print %q", want)
		}
	}
	for _, want := range []string{
		"OpenSM routed the fabric",
		"gpu001/mlx5_1 holds the default P_Key and exactly 0x8001, 0x8010",
		"no changes",
		"the fabric's digest of partitions.conf drifted",
		"gpu003's power state is off and will be set on",
		"Terraform read the firmware of all 64 HCAs, each the version flint -d DEV q prints on its node",
		"Terraform read the BMC and BIOS versions of the 4 Redfish nodes, each as its FirmwareInventory lists them",
		"the plan of the nodes showed gpu005's BMC off the baseline (24.09.17 -> 25.01.03), and nothing else",
		"gpu005's BMC ran one SimpleUpdate to Completed and its FirmwareInventory reads 25.01.03 back",
		"Terraform's state holds the version read back: 25.01.03",
		"the first_light check counts",
		"its punch list is one swap row naming both ports of",
		"the first_light check passes: every link of the design is ok",
		"the check block reports the unplugged cable",
		"partitions.conf on the SM host is the rendered one again",
		"Terraform cannot replug it",
		"the check names leaf01:40 <-> spine01:8 by label with its symbol error rate and BER",
		"and says where it is (rack, unit, cage and split at both ends) and what goes down with it",
		"the partition change applied while the cable is down",
		"the plan warns once that leaf01:40 <-> spine01:8 failed, with the fabric's degraded numbers",
		"gpu005/mlx5_1 is in tenant A's partition now",
		"the counters say down, with the evidence",
		"every cable is ok again and no check complains",
		"no file the demo wrote holds a credential",
	} {
		found := false
		for _, l := range strings.Split(out.String(), "\n") {
			if strings.HasPrefix(strings.TrimSpace(l), "ok: ") && strings.Contains(l, want) {
				found = true
			}
		}
		if !found {
			t.Errorf("the demo did not report %q as met", want)
		}
	}
}
