package provider

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
)

func TestAccNode(t *testing.T) {
	requireAcc(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{
			{
				Config: `resource "gpucluster_node" "n" {
  name       = "gpu001"
  rack       = "r01"
  position_u = 2
}`,
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr("gpucluster_node.n", "id", "gpu001"),
					resource.TestCheckResourceAttr("gpucluster_node.n", "model", "DGX-H100"),
					resource.TestCheckResourceAttr("gpucluster_node.n", "compute_hcas", "8"),
					resource.TestCheckResourceAttr("gpucluster_node.n", "hca_devices.#", "8"),
					resource.TestCheckResourceAttr("gpucluster_node.n", "hca_devices.0", "mlx5_0"),
					resource.TestCheckResourceAttr("gpucluster_node.n", "hca_devices.7", "mlx5_7"),
					resource.TestCheckNoResourceAttr("gpucluster_node.n", "ssh_host"),
				),
			},
			{
				// An HGX with one HCA per GPU pair, whose kernel numbers the compute HCAs after
				// two storage ports.
				Config: `resource "gpucluster_node" "n" {
  name         = "gpu001"
  model        = "HGX-H100"
  rack         = "r01"
  position_u   = 10
  ssh_host     = "gpu001.mgmt.example"
  compute_hcas = 4
  hca_devices  = ["mlx5_2", "mlx5_3", "mlx5_4", "mlx5_5"]
}`,
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr("gpucluster_node.n", "model", "HGX-H100"),
					resource.TestCheckResourceAttr("gpucluster_node.n", "position_u", "10"),
					resource.TestCheckResourceAttr("gpucluster_node.n", "ssh_host", "gpu001.mgmt.example"),
					resource.TestCheckResourceAttr("gpucluster_node.n", "compute_hcas", "4"),
					resource.TestCheckResourceAttr("gpucluster_node.n", "hca_devices.#", "4"),
					resource.TestCheckResourceAttr("gpucluster_node.n", "hca_devices.0", "mlx5_2"),
				),
			},
			{
				ResourceName:      "gpucluster_node.n",
				ImportState:       true,
				ImportStateId:     "gpu001,model=HGX-H100,rack=r01,position_u=10,ssh_host=gpu001.mgmt.example,compute_hcas=4,hca_devices=mlx5_2;mlx5_3;mlx5_4;mlx5_5",
				ImportStateVerify: true,
			},
			{
				// Back to the model's defaults: compute_hcas and hca_devices follow the model again.
				Config: `resource "gpucluster_node" "n" {
  name       = "gpu001"
  rack       = "r01"
  position_u = 10
}`,
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr("gpucluster_node.n", "compute_hcas", "8"),
					resource.TestCheckResourceAttr("gpucluster_node.n", "hca_devices.#", "8"),
					resource.TestCheckResourceAttr("gpucluster_node.n", "hca_devices.0", "mlx5_0"),
				),
			},
			{
				ResourceName:      "gpucluster_node.n",
				ImportState:       true,
				ImportStateId:     "gpu001,rack=r01,position_u=10",
				ImportStateVerify: true,
			},
		},
	})
}

func TestAccNodeInvalid(t *testing.T) {
	t.Parallel()
	node := func(extra string) string {
		return `resource "gpucluster_node" "n" {
  name       = "gpu001"
  rack       = "r01"
  position_u = 2
` + extra + `
}`
	}
	steps := []struct{ config, want string }{
		{`resource "gpucluster_node" "n" {
  name       = "gpu_001!"
  rack       = "r01"
  position_u = 2
}`, `"gpu_001!" holds '!' at position 8; use 1-63 letters`},
		{node(`  model = "DGX-A100"`), `unknown node model "DGX-A100"; the catalog has "DGX-H100", "HGX-H100"`},
		{`resource "gpucluster_node" "n" {
  name       = "gpu001"
  rack       = "r01"
  position_u = 61
}`, `position_u 61 is out of range: rack units count from 1 (the bottom) to at most 60`},
		{`resource "gpucluster_node" "n" {
  name       = "gpu001"
  rack       = "rack/01"
  position_u = 2
}`, `"rack/01" holds '/' at position 5, which separates node and device in an HCA name`},
		{node(`  ssh_host = "root@gpu001"`), `Attribute ssh_host must be a host name or an IP address`},
		{`provider "gpucluster" {
  ssh = { user = "root", known_hosts_file = "/nonexistent/known_hosts" }
}
` + node(""), `known_hosts_file "/nonexistent/known_hosts" does not exist; give the path of the OpenSSH known_hosts file on the machine that runs Terraform`},
		{node(`  ssh_host = "127.0.0.1:0"`), `ssh_host "127.0.0.1:0": port "0" is not a number from 1 to 65535; write the host alone for port 22`},
		{node(`  bmc = { endpoint = "10.0.0.5:9623", port = 9624 }`),
			`bmc.endpoint "10.0.0.5:9623" names port 9623 but bmc.port is 9624; give the port once: remove ":9623" from endpoint (endpoint = "10.0.0.5") to use port 9624, or remove port to use 9623`},
		{node(`  bmc = { endpoint = "10.0.0.5", username = "operator-account-1" }`),
			`user name "operator-account-1" is 18 bytes, but IPMI carries at most 16`},
		{node(`  bmc       = { endpoint = "10.0.0.5", protocols = ["redfish", "ipmi"] }
  bmc_users = [{ name = "automation-user-01", role = "Operator", password = "x" }]`),
			`user name "automation-user-01" is 18 bytes, but IPMI carries at most 16 (IPMI v2.0, Set User Name) and bmc.protocols lets the provider fall back to IPMI; shorten the name to 16 bytes, or set bmc.protocols = ["redfish"]`},
		{node(`  compute_hcas = 0`), `compute_hcas 0 is out of range: a node has 1-64 compute HCAs`},
		{node(`  hca_devices = ["mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3", "mlx5_4", "mlx5_5", "mlx5_6", "mlx5_6"]`),
			`This attribute contains duplicate values of: "mlx5_6"`},
		{node(`  hca_devices = ["mlx5_0", "mlx5 1", "mlx5_2", "mlx5_3", "mlx5_4", "mlx5_5", "mlx5_6", "mlx5_7"]`),
			`"mlx5 1" holds a space at position 5, which splits words`},
		{node(`  hca_devices = ["mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3"]`),
			`hca_devices lists 4 devices but the node has 8 compute HCAs (compute_hcas, the DGX-H100 default); list one device per compute HCA or set compute_hcas = 4`},
		{node(`  compute_hcas = 2
  hca_devices  = ["mlx5_0", "mlx5_1", "mlx5_2"]`),
			`hca_devices lists 3 devices but the node has 2 compute HCAs (compute_hcas); list one device per compute HCA or set compute_hcas = 3`},
		// BMC attributes: checked at plan, before any BMC is asked.
		{node(`  power_state = "on"`), `power_state is set through the node's BMC, but the node has no bmc = { endpoint = ... }`},
		{node(`  bios_settings = { BootMode = "Uefi" }`), `bios_settings is set through the node's BMC, but the node has no bmc`},
		{node(`  bmc = { endpoint = "http://10.0.0.5" }`), `Attribute bmc.endpoint must be a BMC host name or address`},
		{node(`  bmc = { endpoint = "10.0.0.5", protocols = ["redfish", "snmp"] }`), `Attribute bmc.protocols[1] value must be one of`},
		{node(`  bmc           = { endpoint = "10.0.0.5", protocols = ["ipmi"] }
  bios_settings = { BootMode = "Uefi" }`), `bios_settings are set through Redfish, but bmc.protocols allows only IPMI`},
		{node(`  bmc         = { endpoint = "10.0.0.5" }
  power_state = "reboot"`), `Attribute power_state value must be one of: ["on" "off"]`},
		{node(`  bmc         = { endpoint = "10.0.0.5" }
  boot_device = { device = "usb" }`), `Attribute boot_device.device value must be one of`},
		{node(`  bmc       = { endpoint = "10.0.0.5" }
  bmc_users = [{ name = "ops", role = "Admin", password = "x" }]`), `Attribute bmc_users[0].role value must be one of`},
		{node(`  bmc       = { endpoint = "10.0.0.5" }
  bmc_users = [{ name = "ops", role = "Operator", password = "x" }, { name = "ops", role = "ReadOnly", password = "y" }]`),
			`bmc_users lists the account "ops" twice`},
		{node(`  bmc = { endpoint = "10.0.0.5" }
  timeouts {
    create = "soon"
  }`), `"soon" must be a string containing a sequence of decimal numbers`},
	}
	var ts []resource.TestStep
	for _, s := range steps {
		ts = append(ts, resource.TestStep{Config: s.config, PlanOnly: true, ExpectError: re(s.want)})
	}
	resource.UnitTest(t, resource.TestCase{ProtoV6ProviderFactories: testProviders, Steps: ts})
}
