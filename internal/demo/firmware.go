package demo

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/testrig"
)

// Firmware (docs/guides/firmware.md): every node's firmware as Terraform read it (the HCAs with
// flint, the BMC and BIOS from the Redfish FirmwareInventory), checked against what flint and each
// BMC say to an operator; then one BMC brought to a new baseline (bmc_firmware) by the apply,
// through UpdateService.SimpleUpdate and its task, and its new version read back. The rig's update
// task ends on its own (testrig.RedfishUpdateTime) and the provider follows it: nothing here waits
// on the clock.

// bmcBaseline is the version the demo's update brings, and bmcImage where the site's image server
// holds it (the rig "fetches" it from the table AddFirmwareImage fills).
const (
	bmcBaseline = "25.01.03"
	bmcImage    = "https://images.mgmt.example/dgx-h100/bmc-25.01.03.bin"
)

// bmcFirmwareFile holds the baseline the step declares; it stays for the later steps, whose
// plans must then find the node at its baseline (no change).
const bmcFirmwareFile = "bmc-firmware.auto.tfvars.json"

// nodeFirmware is one node of the example's node_firmware output.
type nodeFirmware struct {
	BMC  *string `json:"bmc"`
	BIOS *string `json:"bios"`
}

func (s *Session) firmwareStep() {
	c := s.Cluster
	s.say("Firmware: what each node runs, and one BMC brought to the baseline through Redfish")
	var fw map[string]nodeFirmware
	var cardsOf map[string]map[string]string // node -> device -> version
	s.output("output-node-firmware", "node_firmware", &fw)
	s.output("output-hca-firmware", "hca_firmware", &cardsOf)
	var hcas, agree, redfish int
	for _, n := range c.Nodes {
		got, hcaFW := fw[n.Name], cardsOf[n.Name]
		devices := make([]string, 0, len(hcaFW))
		for d := range hcaFW {
			devices = append(devices, d)
		}
		sort.Strings(devices)
		versions := map[string][]string{}
		for _, d := range devices {
			hcas++
			if v := s.flintVersion(n, d); v != "" && v == hcaFW[d] {
				agree++
			}
			versions[hcaFW[d]] = append(versions[hcaFW[d]], d)
		}
		var cards []string
		for v, ds := range versions {
			cards = append(cards, fmt.Sprintf("%d at %s", len(ds), v))
		}
		sort.Strings(cards)
		bmc := "BMC over IPMI: no firmware inventory"
		if n.Protocol == "redfish" {
			inv := s.inventory(n)
			bmc = fmt.Sprintf("BMC %s, BIOS %s (Redfish FirmwareInventory)", str(got.BMC), str(got.BIOS))
			if got.BMC != nil && got.BIOS != nil && *got.BMC == inv["BMC"] && *got.BIOS == inv["BIOS"] {
				redfish++
			}
		}
		s.detail("%s: HCAs %s (flint); %s", n.Name, strings.Join(cards, ", "), bmc)
	}
	rf := len(c.Nodes) - IPMINodes
	s.expect(hcas == s.facts.hcas && agree == hcas,
		"Terraform read the firmware of all %d HCAs, each the version flint -d DEV q prints on its node", s.facts.hcas)
	s.expect(redfish == rf, "Terraform read the BMC and BIOS versions of the %d Redfish nodes, each as its FirmwareInventory lists them", rf)

	// The first Redfish node gets the new baseline.
	n := c.Nodes[IPMINodes]
	rig := c.Redfish(n.Name)
	before := s.inventory(n)["BMC"]
	rig.AddFirmwareImage(bmcImage, "BMC", bmcBaseline)
	s.detail("image server: %s holds BMC firmware %s", bmcImage, bmcBaseline)
	s.writeJSON(bmcFirmwareFile, map[string]any{"bmc_firmware": map[string]any{
		n.Name: map[string]any{"version": bmcBaseline, "image": bmcImage},
	}}, 0o644)
	s.detail("%s: bmc_firmware = { %s = { version = %q, image = ... } }", bmcFirmwareFile, n.Name, bmcBaseline)
	// The nodes alone: every node's BMC is planned against its baseline, and the fabric's data
	// sources, whose port counters cost most of a full plan, are not read again for a change
	// that cannot touch them.
	s.detail("terraform apply -target=gpucluster_node.all")
	out, code := s.terraformEnv("apply-firmware", s.providerLog("apply-firmware"), "apply", "-auto-approve", "-target=gpucluster_node.all")
	if code != 0 {
		s.t.Fatalf("demo: terraform apply exited %d:\n%s", code, tail(out, 60))
	}
	change := regexp.MustCompile(`~ bmc\s+= "` + regexp.QuoteMeta(before) + `" -> "` + regexp.QuoteMeta(bmcBaseline) + `"`)
	// The resource's diff (the outputs' diff repeats its bmc line), then the counts.
	updated := lines(out, 0, "will be updated in-place")
	for _, l := range append(append(updated, lines(out, 1, "~ bmc ")...), lines(out, 2, "Plan:", "Apply complete!")...) {
		s.detail("%s", l)
	}
	s.expect(change.MatchString(out) && strings.Contains(out, "Plan: 0 to add, 1 to change, 0 to destroy.") &&
		len(updated) == 1 && strings.Contains(updated[0], fmt.Sprintf(`gpucluster_node.all["%s"]`, n.Name)),
		"the plan of the nodes showed %s's BMC off the baseline (%s -> %s), and nothing else", n.Name, before, bmcBaseline)
	s.progress("apply-firmware")
	updates := rig.Updates()
	s.detail("%s's BMC: SimpleUpdate %s", n.Name, strings.Join(updates, ", "))
	after := s.inventory(n)["BMC"]
	s.detail("%s's FirmwareInventory/BMC now says %s", n.Name, after)
	s.expect(len(updates) == 1 && updates[0] == bmcImage+" -> Completed" && after == bmcBaseline,
		"%s's BMC ran one SimpleUpdate to Completed and its FirmwareInventory reads %s back", n.Name, bmcBaseline)
	fw = nil
	s.output("output-node-firmware-after", "node_firmware", &fw)
	got := fw[n.Name]
	s.expect(got.BMC != nil && *got.BMC == bmcBaseline, "Terraform's state holds the version read back: %s", str(got.BMC))
}

// output reads one of the example's outputs from the state (no refresh) into v; name is the
// command's log.
func (s *Session) output(name, output string, v any) {
	s.t.Helper()
	out := s.terraform(name, "output", "-json", output)
	// The JSON from its first line: terraform's output is combined with its warnings.
	if i := strings.Index(out, "\n{"); i >= 0 && !strings.HasPrefix(out, "{") {
		out = out[i+1:]
	}
	if err := json.NewDecoder(strings.NewReader(out)).Decode(v); err != nil {
		s.t.Fatalf("demo: reading the output %s: %v (log %s)", output, err, s.logFile(name))
	}
}

// flintVersion is the FW Version `flint -d DEV q` prints on a node, as an operator would run it
// there (the flint beside the node's mlxconfig).
func (s *Session) flintVersion(n testrig.ClusterNode, device string) string {
	s.t.Helper()
	flint := filepath.Join(filepath.Dir(n.Tool), "flint")
	out, err := exec.Command(flint, "-d", device, "q").CombinedOutput()
	if err != nil {
		s.t.Fatalf("demo: flint -d %s q on %s: %v: %s", device, n.Name, err, out)
	}
	for _, l := range strings.Split(string(out), "\n") {
		if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "FW Version" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// inventory is a Redfish node's FirmwareInventory: member Id -> Version.
func (s *Session) inventory(n testrig.ClusterNode) map[string]string {
	s.t.Helper()
	got := map[string]string{}
	for _, id := range []string{"BMC", "BIOS"} {
		var m struct{ Version string }
		s.redfishGet(n, "/redfish/v1/UpdateService/FirmwareInventory/"+id, &m)
		got[id] = m.Version
	}
	return got
}

func str(p *string) string {
	if p == nil {
		return "null"
	}
	return *p
}
