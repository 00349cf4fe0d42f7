package provider

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/listed"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/opensm"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/plan"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/testrig"
)

// Issue 32, point 5: every list of diagnostics that grows with the input is capped as the
// plan's problems are (capDiagnostics, capDiagnosticsBy): plan.MaxPerCause of a cause, then one
// that counts the rest. Each test feeds more than the cap and checks both figures against the
// number fed.

// moreRE reads the figure of plan.MoreDetail.
var moreRE = regexp.MustCompile(`(\d+) more problems? of this kind are not shown`)

// capFigures counts the diagnostics whose summary starts with prefix and reads the figure of
// the one whose summary is counter; more is -1 when there is none.
func capFigures(ds diag.Diagnostics, prefix, counter string) (shown, more int) {
	more = -1
	for _, d := range ds {
		switch {
		case d.Summary() == counter:
			if m := moreRE.FindStringSubmatch(d.Detail()); m != nil {
				more, _ = strconv.Atoi(m[1])
			}
		case strings.HasPrefix(d.Summary(), prefix):
			shown++
		}
	}
	return shown, more
}

func checkCapped(t *testing.T, what string, ds diag.Diagnostics, prefix, counter string, fed int) {
	t.Helper()
	if fed <= plan.MaxPerCause {
		t.Fatalf("%s: %d fed is not beyond the cap %d", what, fed, plan.MaxPerCause)
	}
	shown, more := capFigures(ds, prefix, counter)
	if shown != plan.MaxPerCause || more != fed-plan.MaxPerCause {
		var b strings.Builder
		for _, d := range ds {
			fmt.Fprintf(&b, "  %s: %s | %.100s\n", d.Severity(), d.Summary(), d.Detail())
		}
		t.Errorf("%s: %d fed, %d shown and %d counted, want %d and %d:\n%s", what, fed, shown, more, plan.MaxPerCause, fed-plan.MaxPerCause, b.String())
	}
}

// TestSMHostDiagnosticsCapped: the warnings of a run over many SM hosts (OpenSM logged errors
// after a push, a host whose state cannot be read, a host left as it is at destroy) and the
// summary of the hosts whose OpenSM needs repair are capped.
func TestSMHostDiagnosticsCapped(t *testing.T) {
	const hosts = 9
	var results []opensm.Result
	var unread []opensm.HostError
	var sick []opensm.HostHealth
	for i := range hosts {
		h := fmt.Sprintf("sm%02d", i+1)
		results = append(results, opensm.Result{Host: h, Written: true, Kept: true,
			Verdict: opensm.Verdict{Engine: "ftree", Errors: []string{"ERR 0A01: something"}}})
		unread = append(unread, opensm.HostError{Host: h, Err: errors.New("connection refused")})
		sick = append(sick, opensm.HostHealth{Host: h, Health: opensm.Health{Why: "not running"}})
	}

	var d diag.Diagnostics
	if !reportHosts(opensm.OpPush, results, nil, &d) {
		t.Fatal("reportHosts failed a run without an error")
	}
	checkCapped(t, "logged errors", d, "OpenSM on sm", "OpenSM logged errors on these SM hosts", hosts)

	d = nil
	addWarnings(&d, opensm.HostsState{Unread: unread, Sick: sick}.Warnings("sm01", "/etc/opensm"))
	checkCapped(t, "unread hosts", d, opensm.UnreadSummary+"sm", opensm.UnreadSummary+"these SM hosts", hosts)
	var sickDiag diag.Diagnostic
	for _, x := range d {
		if strings.HasPrefix(x.Summary(), "OpenSM does not run as intended") {
			sickDiag = x
		}
	}
	if sickDiag == nil || !strings.HasSuffix(sickDiag.Summary(), listed.First([]string{"sm01", "sm02", "sm03", "sm04", "sm05"}, listed.Few, ", ")+
		fmt.Sprintf(" and %d more", hosts-listed.Few)) {
		t.Errorf("the hosts that need repair: %v", sickDiag)
	}

	d = nil
	reportRestore(results, nil, &d)
	checkCapped(t, "hosts left as they are", d, "Subnet manager host sm", "Subnet manager hosts left as they are", hosts)
}

// TestAccMaintenanceWavesCapped: through the real terraform, 9 devices the fabric lacks and 9
// leaves that no wave can hold (each cuts off its nodes where no endpoint may be) give
// plan.MaxPerCause errors each and one that counts the rest.
func TestAccMaintenanceWavesCapped(t *testing.T) {
	const n = 9
	var unknown, leaves []string
	for i := range n {
		unknown = append(unknown, fmt.Sprintf("%q", fmt.Sprintf("spine9%d", i)))
		leaves = append(leaves, fmt.Sprintf("%q", fmt.Sprintf("leaf%02d", i+1)))
	}
	for _, c := range []struct {
		what, devices, prefix, counter string
	}{
		{"devices the fabric lacks", strings.Join(unknown, ", "), "No such device", "No such device"},
		{"devices no wave holds", strings.Join(leaves, ", "), "No wave can hold leaf", "No wave can hold these devices"},
	} {
		var got string
		resource.UnitTest(t, resource.TestCase{
			ProtoV6ProviderFactories: testProviders,
			ErrorCheck: func(err error) error {
				got = err.Error()
				return nil
			},
			Steps: []resource.TestStep{{Config: wavesConfig(fmt.Sprintf(`
data "gpucluster_maintenance_waves" "spines" {
  design   = data.gpucluster_topology.pod.design
  devices  = [%s]
  degraded = { max_unreachable_endpoints = 0 }
}
`, c.devices))}},
		})
		shown := strings.Count(got, "Error: "+c.prefix)
		if c.prefix == c.counter {
			shown-- // the one that counts the rest has the same summary
		}
		m := moreRE.FindStringSubmatch(strings.Join(strings.Fields(got), " "))
		if shown != plan.MaxPerCause || m == nil || m[1] != strconv.Itoa(n-plan.MaxPerCause) || !strings.Contains(got, "Error: "+c.counter) {
			t.Errorf("%s: %d shown, counted %v, want %d and %d:\n%s", c.what, shown, m, plan.MaxPerCause, n-plan.MaxPerCause, got)
		}
	}
}

// TestAccFirmwareRolloutCapped: a rollout over 9 nodes whose BMCs do not answer (a port nothing
// listens on) fails its plan with one error per node, alike but for the node's name: capped
// as one cause (bySubject), plan.MaxPerCause shown and one that counts the rest.
func TestAccFirmwareRolloutCapped(t *testing.T) {
	const n = 9
	dead := testrig.FreePort(t)
	var got string
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		ErrorCheck: func(err error) error {
			got = err.Error()
			return nil
		},
		Steps: []resource.TestStep{{Config: fmt.Sprintf(`
provider "gpucluster" {
  bmc = { username = "admin", password = "secret-pw" }
}
data "gpucluster_topology" "pod" {
  kind       = "fat-tree"
  node_count = 16
}
locals {
  names = [for i in range(%d) : format("gpu%%03d", i + 1)]
}
data "gpucluster_maintenance_waves" "nodes" {
  design   = data.gpucluster_topology.pod.design
  devices  = local.names
  degraded = { max_unreachable_endpoints = 16 }
}
resource "gpucluster_firmware_rollout" "fw" {
  waves = data.gpucluster_maintenance_waves.nodes.waves
  nodes = { for n in local.names : n => { name = n, bmc = { endpoint = "127.0.0.1", port = %d, protocols = ["redfish"], ipmi_port = null, insecure_tls = null, tls_ca_pem = null, username = null, password = null } } }
  firmware = {
    bmc    = "25.01.03"
    images = { bmc = "https://images.example/bmc.bin" }
  }
}
`, n, dead)}},
	})
	text := strings.Join(strings.Fields(got), " ")
	shown := regexp.MustCompile(`Error: Node gpu\d{3}: cannot`).FindAllString(text, -1)
	if len(shown) > 0 && shown[0] != "Error: Node gpu001: cannot" {
		t.Errorf("the first error shown is %q, want gpu001's: the nodes in order", shown[0])
	}
	m := moreRE.FindStringSubmatch(text)
	if len(shown) != plan.MaxPerCause || m == nil || m[1] != strconv.Itoa(n-plan.MaxPerCause) || !strings.Contains(text, "Error: Node ...: cannot") {
		t.Errorf("%d shown, counted %v, want %d and %d:\n%s", len(shown), m, plan.MaxPerCause, n-plan.MaxPerCause, got)
	}
}

// planErrors plans config, which must fail, and returns Terraform's output with its whitespace
// folded.
func planErrors(t *testing.T, config string) string {
	t.Helper()
	var got string
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		ErrorCheck: func(err error) error {
			got = err.Error()
			return nil
		},
		Steps: []resource.TestStep{{Config: config, PlanOnly: true, ExpectNonEmptyPlan: true}},
	})
	if got == "" {
		t.Fatal("the plan did not fail")
	}
	return strings.Join(strings.Fields(got), " ")
}

// TestAccPerItemErrorsCapped: attributes that take a list or map of any length, each element of
// which can be wrong alike (port selectors, mlxconfig settings, BMC users), give
// plan.MaxPerCause errors and one that counts the rest.
func TestAccPerItemErrorsCapped(t *testing.T) {
	const n = 9
	var ports, settings, users []string
	for i := range n {
		ports = append(ports, fmt.Sprintf("{ port = %d }", i+1))
		settings = append(settings, fmt.Sprintf("NO_SUCH_PARAM_%d = \"1\"", i))
		users = append(users, fmt.Sprintf(`{ name = "operator-with-a-long-name-%d", role = "Operator", password = "x" }`, i))
	}
	for _, c := range []struct{ what, config, summary string }{
		{"port selectors", fmt.Sprintf(`
data "gpucluster_port_counters" "c" {
  host           = "127.0.0.1"
  sample_seconds = 0
  ports          = [%s]
}`, strings.Join(ports, ", ")), "Port selector needs a GUID or a LID"},
		{"mlxconfig settings", fmt.Sprintf(`
resource "gpucluster_hca" "h" {
  node              = "gpu001"
  device            = "mlx5_0"
  port_guid         = "0x0002c90300010000"
  firmware_settings = { %s }
}`, strings.Join(settings, ", ")), "Invalid mlxconfig setting"},
		{"BMC user names", fmt.Sprintf(`
resource "gpucluster_node" "n" {
  name       = "gpu001"
  rack       = "r01"
  position_u = 2
  bmc        = { endpoint = "10.0.0.11", protocols = ["redfish", "ipmi"], username = "admin", password = "pw" }
  bmc_users  = [%s]
}`, strings.Join(users, ", ")), "BMC user name too long for IPMI"},
	} {
		got := planErrors(t, c.config)
		shown := strings.Count(got, "Error: "+c.summary) - 1 // the one that counts the rest has the same summary
		m := moreRE.FindStringSubmatch(got)
		if shown != plan.MaxPerCause || m == nil || m[1] != strconv.Itoa(n-plan.MaxPerCause) {
			t.Errorf("%s: %d shown, counted %v, want %d and %d:\n%s", c.what, shown, m, plan.MaxPerCause, n-plan.MaxPerCause, got)
		}
	}
}
