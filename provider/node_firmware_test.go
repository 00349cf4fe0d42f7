package provider

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/testrig"
)

// TestAccNodeFirmware: with the real terraform against the Redfish rig, refresh reads the BMC and
// BIOS versions from FirmwareInventory; a declared version off the baseline plans as an update,
// which apply carries out through SimpleUpdate and its task (the BMC restarting in the middle of
// it) and reads back; the same configuration then plans nothing (already at the version, no
// update posted); a task that ends in Exception fails the apply with its messages; a differing
// version without an image, and firmware on an IPMI-only BMC, are refused at plan.
func TestAccNodeFirmware(t *testing.T) {
	requireAcc(t)
	rig := testrig.StartRedfish(t, testrig.RedfishOptions{UpdateTime: 300 * time.Millisecond})
	const bmcImage, biosImage, badImage = "https://images.example/bmc-25.01.03.bin", "https://images.example/bios-1.7.0.bin", "https://images.example/bios-1.8.0.bin"
	rig.AddFirmwareImage(bmcImage, "BMC", "25.01.03")
	rig.AddFirmwareImage(biosImage, "BIOS", "1.7.0")
	rig.AddFirmwareImage(badImage, "BIOS", "1.8.0")
	const n = "gpucluster_node.n"
	readOnly := rfNode(rig, `
  firmware = { bmc = "24.09.17" }
`)
	baseline := rfNode(rig, `
  firmware = {
    bmc    = "25.01.03"
    bios   = "1.7.0"
    images = { bmc = "`+bmcImage+`", bios = "`+biosImage+`" }
  }
`)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{
			{
				Config: readOnly,
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(n, "firmware.bmc", "24.09.17"),
					resource.TestCheckResourceAttr(n, "firmware.bios", "1.6.7"), // read, not declared
					rigCheck(func() error {
						if u := rig.Updates(); len(u) != 0 {
							return fmt.Errorf("a node at its version posted updates: %v", u)
						}
						return nil
					}),
				),
			},
			{
				PreConfig: func() { rig.RebootDuringNextUpdate(time.Second) },
				Config:    baseline,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(n, plancheck.ResourceActionUpdate),
					expectBefore{n, []string{"firmware", "bmc"}, "24.09.17"},
					expectBefore{n, []string{"firmware", "bios"}, "1.6.7"},
					plancheck.ExpectKnownValue(n, tfjsonpath.New("firmware").AtMapKey("bmc"), knownvalue.StringExact("25.01.03")),
					plancheck.ExpectUnknownValue(n, tfjsonpath.New("inventory")),
				}},
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(n, "firmware.bmc", "25.01.03"),
					resource.TestCheckResourceAttr(n, "firmware.bios", "1.7.0"),
					resource.TestCheckResourceAttr(n, "inventory.bmc_firmware", "25.01.03"),
					resource.TestCheckResourceAttr(n, "inventory.bios_firmware", "1.7.0"),
					rigCheck(func() error {
						// BIOS first, then the BMC (whose update restarted it).
						if got := strings.Join(rig.Updates(), ","); got != biosImage+" -> Completed,"+bmcImage+" -> Completed" {
							return fmt.Errorf("rig updates: %s", got)
						}
						return nil
					}),
				),
			},
			{
				// At the baseline: nothing to do, nothing posted.
				Config:   baseline,
				PlanOnly: true,
			},
			{
				PreConfig: func() {
					rig.FailNextUpdate("Installation of image 'bios-1.8.0.bin' to 'BIOS' failed: the image signature is not valid.")
				},
				Config: rfNode(rig, `
  firmware = {
    bmc    = "25.01.03"
    bios   = "1.8.0"
    images = { bmc = "`+bmcImage+`", bios = "`+badImage+`" }
  }
`),
				ExpectError: reAll("ended in Exception", "the image signature is not valid"),
			},
			{
				Config: rfNode(rig, `
  firmware = { bios = "1.9.9" }
`),
				PlanOnly:    true,
				ExpectError: reAll(`firmware.bios is "1.9.9" but the BMC runs "1.7.0"`, "set images.bios to the URI"),
			},
			{
				Config:      strings.Replace(readOnly, `protocols  = ["redfish"]`, `protocols  = ["ipmi"]`, 1),
				PlanOnly:    true,
				ExpectError: reAll("Firmware needs Redfish", "bmc.protocols allows only IPMI"),
			},
		},
	})
	if got := len(rig.Updates()); got != 3 {
		t.Fatalf("updates posted: %d (%v), want 3: the baseline's two and the failing one", got, rig.Updates())
	}
}

// reAll matches the parts in order, anything between them (re for each part).
func reAll(parts ...string) *regexp.Regexp {
	var b strings.Builder
	b.WriteString("(?s)")
	for i, p := range parts {
		if i > 0 {
			b.WriteString(".*")
		}
		b.WriteString(re(p).String())
	}
	return regexp.MustCompile(b.String())
}

// TestAccNodeFirmwareTimeout: an update task that outlasts the resource's timeout fails the apply
// when the timeout runs out, saying where the task was and what to do, instead of waiting for it.
func TestAccNodeFirmwareTimeout(t *testing.T) {
	requireAcc(t)
	rig := testrig.StartRedfish(t, testrig.RedfishOptions{UpdateTime: 10 * time.Minute})
	rig.AddFirmwareImage("https://images.example/bmc.bin", "BMC", "25.01.03")
	var start time.Time
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{{
			PreConfig: func() { start = time.Now() },
			Config: rfNode(rig, `
  firmware = {
    bmc    = "25.01.03"
    images = { bmc = "https://images.example/bmc.bin" }
  }
  timeouts {
    create = "4s"
  }
`),
			ExpectError: reAll("update its BMC firmware to 25.01.03", "still Running", "when the node's timeouts ran out; raise them"),
		}},
	})
	if took := time.Since(start); took > 20*time.Second {
		t.Fatalf("a 4 s timeout took %s (plan, apply and the harness included)", took)
	}
	if got := strings.Join(rig.Updates(), ","); got != "https://images.example/bmc.bin -> Running" {
		t.Fatalf("rig updates: %s", got)
	}
}
