package provider

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/testrig"
)

// writeFirmwareImage puts an image file on the node, as the double reads one: the fields that
// flint -i IMAGE q prints.
func (h *hcaNode) writeFirmwareImage(t *testing.T, name, version, psid string) string {
	t.Helper()
	b, err := json.Marshal(map[string]any{
		"image_type": "FS4", "fw_version": version, "fw_release_date": "12.12.2024", "product_version": version,
		"rom_info":    []string{"type=UEFI version=14.36.16 cpu=AMD64,AARCH64", "type=PXE version=3.7.500 cpu=AMD64"},
		"description": "UID                GuidsNumber", "image_vsd": "N/A", "psid": psid, "security_attributes": "secure-fw",
	})
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(h.sshd.Dir, name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// flash returns the version on the double's flash and the one the card runs.
func (h *hcaNode) flash() (flash, running string, err error) {
	b, err := os.ReadFile(h.state)
	if err != nil {
		return "", "", err
	}
	var st struct {
		Devices []struct {
			Firmware struct {
				FWVersion      string `json:"fw_version"`
				RunningVersion string `json:"running_version"`
			}
		}
	}
	if err := json.Unmarshal(b, &st); err != nil {
		return "", "", err
	}
	return st.Devices[0].Firmware.FWVersion, st.Devices[0].Firmware.RunningVersion, nil
}

func (h *hcaNode) burns() []string {
	var out []string
	for _, c := range h.calls() {
		if strings.HasPrefix(c, "flint ") && (strings.HasSuffix(c, " burn") || strings.HasSuffix(c, " b")) {
			out = append(out, c)
		}
	}
	return out
}

// TestAccHCAFirmwareImage reads and updates a ConnectX-7's firmware through the flint double
// over a real sshd: the card's version and PSID are read; with an image the plan shows the
// version it brings; apply burns once and reads the new version back (the old one still
// running); a second plan is empty; an image of another PSID is refused at plan and never
// reaches a burn; a baseline version the image does not hold is refused too.
func TestAccHCAFirmwareImage(t *testing.T) {
	requireAcc(t)
	testrig.RequirePeers(t)
	h := startHCANode(t)
	const addr = "gpucluster_hca.h"
	good := h.writeFirmwareImage(t, "fw-ConnectX7-rel-28_43_1014.bin", "28.43.1014", "MT_0000001244")
	other := h.writeFirmwareImage(t, "fw-ConnectX7-rel-28_43_1014-MCX755106AS.bin", "28.43.1014", "MT_0000000834")
	newer := h.writeFirmwareImage(t, "fw-ConnectX7-rel-28_44_1036.bin", "28.44.1036", "MT_0000001244")
	fw := func(body string) string { return h.hca("  firmware = {\n" + body + "\n  }\n") }
	version := tfjsonpath.New("firmware").AtMapKey("version")
	burnsAre := func(n int) resource.TestCheckFunc {
		return rigCheck(func() error {
			if b := h.burns(); len(b) != n {
				return fmt.Errorf("burns: %q, want %d", b, n)
			}
			return nil
		})
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		CheckDestroy:             burnsAre(2),
		Steps: []resource.TestStep{
			{
				// A new HCA with an image for another board: the plan reads the card and the
				// image, and refuses before anything exists.
				Config:      fw(fmt.Sprintf("    image = %q", other)),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)the image is for another card.*PSID mismatch`),
			},
			{
				Config:      fw(`    image = "fw.bin"`),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)firmware\.image.*must be an absolute path on the node`),
			},
			{
				Config:      fw(`    version = "28.43"`),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)firmware\.version.*major\.minor\.subminor`),
			},
			{
				// Read only: the card's version and PSID.
				Config: fw(""),
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(addr, "firmware.version", "28.42.1000"),
					resource.TestCheckResourceAttr(addr, "firmware.psid", "MT_0000001244"),
					resource.TestCheckNoResourceAttr(addr, "firmware.image"),
					burnsAre(0),
				),
			},
			{
				// The image: the plan shows 28.42.1000 -> 28.43.1014, apply burns it once.
				Config: fw(fmt.Sprintf("    image = %q", good)),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
					expectBefore{addr, []string{"firmware", "version"}, "28.42.1000"},
					plancheck.ExpectKnownValue(addr, version, knownvalue.StringExact("28.43.1014")),
				}},
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(addr, "firmware.version", "28.43.1014"),
					resource.TestCheckResourceAttr(addr, "firmware.psid", "MT_0000001244"),
					burnsAre(1),
					rigCheck(func() error {
						if b := h.burns(); b[0] != "flint -d "+cx7+" -i "+good+" -y burn" {
							return fmt.Errorf("burn %q", b[0])
						}
						flash, running, err := h.flash()
						if err != nil || flash != "28.43.1014" || running != "28.42.1000" {
							return fmt.Errorf("card: flash %s running %s (%v); want 28.43.1014 on the flash, 28.42.1000 running until a reset", flash, running, err)
						}
						return nil
					}),
				),
			},
			// Already there: nothing to do.
			{Config: fw(fmt.Sprintf("    image = %q", good)), PlanOnly: true},
			{
				// An image for another board: refused at plan, in flint's words.
				Config:      fw(fmt.Sprintf("    image = %q", other)),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)the image is for another card.*PSID mismatch\. The PSID on flash \(MT_0000001244\)\s+differs from the PSID in the given image \(MT_0000000834\)`),
			},
			{
				// A baseline the image does not hold.
				Config:      fw(fmt.Sprintf("    image = %q\n    version = \"28.44.1000\"", good)),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)not the baseline version.*holds firmware 28\.43\.1014, not version = 28\.44\.1000`),
			},
			{
				// The refusals burned nothing; the baseline stated with its image is no change.
				Config: fw(fmt.Sprintf("    image = %q\n    version = \"28.43.1014\"\n    psid = \"MT_0000001244\"", good)),
				Check:  burnsAre(1),
			},
			{
				// With firmware_settings beside it: the settings' refresh reads the firmware too.
				Config: h.hca(fmt.Sprintf("  firmware = {\n    image = %q\n  }\n  firmware_settings = {\n    LINK_TYPE_P1 = \"IB\"\n  }\n", good)),
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(addr, "firmware.version", "28.43.1014"),
					resource.TestCheckResourceAttr(addr, "firmware_version", "28.43.1014"),
					paramIs(h, "LINK_TYPE_P1", "IB(1)", ""),
					burnsAre(1),
				),
			},
			{Config: h.hca(fmt.Sprintf("  firmware = {\n    image = %q\n  }\n  firmware_settings = {\n    LINK_TYPE_P1 = \"IB\"\n  }\n", good)), PlanOnly: true},
			{
				// A newer image with the settings: both versions read the burned one back.
				Config: h.hca(fmt.Sprintf("  firmware = {\n    image = %q\n  }\n  firmware_settings = {\n    LINK_TYPE_P1 = \"IB\"\n  }\n", newer)),
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(addr, "firmware.version", "28.44.1036"),
					resource.TestCheckResourceAttr(addr, "firmware_version", "28.44.1036"),
					burnsAre(2),
				),
			},
		},
	})
}
