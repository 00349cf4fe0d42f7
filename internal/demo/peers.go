package demo

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/testrig"
)

// The peers are read with their own clients, as an operator would check them.

// bmcState is a node's power and boot override, read from its BMC.
func (s *Session) bmcState(n testrig.ClusterNode) (power, boot string) {
	s.t.Helper()
	if n.Protocol == "ipmi" {
		status := s.ipmitool(n, "chassis", "power", "status")
		power = strings.TrimPrefix(strings.TrimSpace(status), "Chassis Power is ")
		// ipmi_sim keeps the boot device its chassis script was last told (OpenIPMI's ipmi_sim keeps
		// no persistent or EFI flags); ipmitool's boot parameter read shows the same thing, less legibly.
		boot = s.Cluster.IPMI(n.Name).BootDevice()
		return power, boot
	}
	var sys struct {
		PowerState string
		Boot       struct{ BootSourceOverrideTarget string }
	}
	s.redfishGet(n, "/redfish/v1/Systems/1", &sys)
	return strings.ToLower(sys.PowerState), strings.ToLower(sys.Boot.BootSourceOverrideTarget)
}

func (s *Session) ipmitool(n testrig.ClusterNode, args ...string) string {
	s.t.Helper()
	full := append([]string{"-I", "lanplus", "-H", n.BMCHost, "-p", strconv.Itoa(n.BMCPort), "-U", n.BMCUser, "-E", "-C", "3", "-N", "2", "-R", "2"}, args...)
	cmd := exec.Command("ipmitool", full...)
	cmd.Env = []string{"IPMITOOL_PASSWORD=" + n.Password()}
	out, err := cmd.CombinedOutput()
	if err != nil {
		s.t.Fatalf("demo: ipmitool %s on %s: %v: %s", strings.Join(args, " "), n.Name, err, out)
	}
	return string(out)
}

func (s *Session) redfishGet(n testrig.ClusterNode, path string, v any) {
	s.t.Helper()
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM([]byte(n.CAPEM))
	cl := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	req, err := http.NewRequestWithContext(context.Background(), http.MethodGet, fmt.Sprintf("https://%s:%d%s", n.BMCHost, n.BMCPort, path), nil)
	if err != nil {
		s.t.Fatalf("demo: %v", err)
	}
	req.SetBasicAuth(n.BMCUser, n.Password())
	resp, err := cl.Do(req)
	if err != nil {
		s.t.Fatalf("demo: Redfish GET %s on %s: %v", path, n.Name, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		s.t.Fatalf("demo: Redfish GET %s on %s: %s", path, n.Name, resp.Status)
	}
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		s.t.Fatalf("demo: Redfish GET %s on %s: %v", path, n.Name, err)
	}
}

// powerOff turns a node off through its BMC, behind Terraform's back.
func (s *Session) powerOff(n testrig.ClusterNode) {
	s.t.Helper()
	if n.Protocol == "ipmi" {
		s.ipmitool(n, "chassis", "power", "off")
		return
	}
	s.Cluster.Redfish(n.Name).SetPowerOutOfBand("Off")
}

// pkeys is what `smpquery pkeys <lid> 1` says of an HCA port: its P_Key table.
func (s *Session) pkeys(hca string) []string {
	s.t.Helper()
	guid := s.facts.guids[hca]
	lid, ok := s.Cluster.Sim.LIDs(s.t)[guid]
	if !ok {
		s.t.Fatalf("demo: OpenSM gave no LID to %s (%s)", hca, guid)
	}
	res, err := s.Cluster.Sim.Run(s.t, smAt, 20*time.Second, "smpquery", "pkeys", strconv.Itoa(lid), "1")
	if err != nil {
		s.t.Fatalf("demo: smpquery pkeys %d: %v", lid, err)
	}
	var keys []string
	for _, f := range strings.FieldsFunc(res.Stdout, func(r rune) bool { return r == ' ' || r == '\n' || r == '\t' }) {
		if strings.HasPrefix(f, "0x") && f != "0x0000" {
			keys = append(keys, f)
		}
	}
	return keys
}

// firmware is what the node's mlxconfig prints for the demo's parameters of one device.
func (s *Session) firmware(n testrig.ClusterNode, device string) map[string]string {
	s.t.Helper()
	out, err := exec.Command(n.Tool, "-d", device, "query", "LINK_TYPE_P1", "SRIOV_EN", "NUM_OF_VFS").CombinedOutput()
	if err != nil {
		s.t.Fatalf("demo: mlxconfig query on %s: %v: %s", n.Name, err, out)
	}
	got := map[string]string{}
	for _, l := range strings.Split(string(out), "\n") {
		f := strings.Fields(l)
		if len(f) == 2 && (f[0] == "LINK_TYPE_P1" || f[0] == "SRIOV_EN" || f[0] == "NUM_OF_VFS") {
			got[f[0]] = f[1]
		}
	}
	return got
}

// openSMLog is OpenSM's log on the SM host.
func (s *Session) openSMLog() string {
	b, _ := os.ReadFile(s.Cluster.LogFile)
	return string(b)
}
