package provider

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
)

func TestAccPartition(t *testing.T) {
	requireAcc(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{
			{
				Config: `resource "gpucluster_partition" "p" {
  name    = "compute"
  pkey    = "0x0001"
  members = [{ guid = "ALL_CAS" }]
}`,
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr("gpucluster_partition.p", "id", "compute"),
					resource.TestCheckResourceAttr("gpucluster_partition.p", "members.#", "1"),
					resource.TestCheckResourceAttr("gpucluster_partition.p", "members.0.guid", "ALL_CAS"),
					resource.TestCheckResourceAttr("gpucluster_partition.p", "members.0.membership", "full"),
					resource.TestCheckNoResourceAttr("gpucluster_partition.p", "members.0.hca"),
					resource.TestCheckResourceAttr("gpucluster_partition.p", "ipoib", "false"),
					resource.TestCheckResourceAttr("gpucluster_partition.p", "sl", "0"),
					resource.TestCheckNoResourceAttr("gpucluster_partition.p", "mtu"),
					resource.TestCheckNoResourceAttr("gpucluster_partition.p", "rate"),
				),
			},
			{
				ResourceName:      "gpucluster_partition.p",
				ImportState:       true,
				ImportStateId:     "compute,pkey=0x0001,members=ALL_CAS",
				ImportStateVerify: true,
			},
			{
				Config: `resource "gpucluster_partition" "p" {
  name  = "compute"
  pkey  = "0x7ffe"
  ipoib = true
  mtu   = 4096
  rate  = 400
  sl    = 3
  members = [
    { hca = "gpu001/mlx5_0" },
    { guid = "0x0002c90300010001", membership = "limited" },
    { guid = "SELF", membership = "full" },
  ]
}`,
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr("gpucluster_partition.p", "pkey", "0x7ffe"),
					resource.TestCheckResourceAttr("gpucluster_partition.p", "members.#", "3"),
					resource.TestCheckResourceAttr("gpucluster_partition.p", "members.0.hca", "gpu001/mlx5_0"),
					resource.TestCheckResourceAttr("gpucluster_partition.p", "members.0.membership", "full"),
					resource.TestCheckResourceAttr("gpucluster_partition.p", "members.1.membership", "limited"),
					resource.TestCheckResourceAttr("gpucluster_partition.p", "ipoib", "true"),
					resource.TestCheckResourceAttr("gpucluster_partition.p", "mtu", "4096"),
					resource.TestCheckResourceAttr("gpucluster_partition.p", "rate", "400"),
					resource.TestCheckResourceAttr("gpucluster_partition.p", "sl", "3"),
				),
			},
			{
				ResourceName:      "gpucluster_partition.p",
				ImportState:       true,
				ImportStateId:     "compute,pkey=0x7ffe,members=gpu001/mlx5_0;0x0002c90300010001=limited;SELF=full,ipoib=true,mtu=4096,rate=400,sl=3",
				ImportStateVerify: true,
			},
		},
	})
}

func TestAccPartitionInvalid(t *testing.T) {
	t.Parallel()
	part := func(pkey, members, extra string) string {
		return `resource "gpucluster_partition" "p" {
  name    = "compute"
  pkey    = "` + pkey + `"
  members = ` + members + `
` + extra + `
}`
	}
	const all = `[{ guid = "ALL_CAS" }]`
	steps := []struct{ config, want string }{
		{`resource "gpucluster_partition" "p" {
  name    = "compute partition"
  pkey    = "0x0001"
  members = [{ guid = "ALL_CAS" }]
}`, `"compute partition" holds a space at position 8`},
		{`resource "gpucluster_partition" "p" {
  name    = "sto:rage"
  pkey    = "0x0001"
  members = [{ guid = "ALL_CAS" }]
}`, `"sto:rage" holds ':' at position 4, which separates a cable end's device from its port and, in partitions.conf, a partition's header from its members`},
		{part("1", all, ""), `pkey "1" does not start with 0x; use 0x and 4 hex digits from "0x0001" to "0x7ffe", e.g. "0x0001"`},
		{part("0x0000", all, ""), `pkey 0x0000 is the invalid P_Key, which no port may hold; use 0x and 4 hex digits from "0x0001" to "0x7ffe"`},
		{part("0x7fff", all, ""), `pkey 0x7fff is OpenSM's default partition, which always exists and is not declared; use 0x and 4 hex digits from "0x0001" to "0x7ffe"`},
		{part("0x8001", all, ""),
			`pkey 0x8001 has the membership bit (0x8000) set; write the 15-bit key "0x0001" and set each member's membership instead`},
		{part("abc", all, ""), `pkey "abc" does not start with 0x`},
		{part("0x0001", `[]`, ""), `Attribute members list must contain at least 1 elements, got: 0`},
		{part("0x0001", `[{ guid = "ALL_CAS" }, { hca = "gpu001/mlx5_0", guid = "0x0002c90300010001" }]`, ""),
			`members[1] sets both hca and guid; name either an HCA of the fabric (hca = "gpu001/mlx5_0") or a port GUID or OpenSM keyword (guid = "0x..." or "ALL_CAS"), one per member`},
		{part("0x0001", `[{ membership = "full" }]`, ""), `members[0] sets neither hca nor guid; name either an HCA of the fabric`},
		{part("0x0001", `[{ guid = "ALL_NODES" }]`, ""),
			`GUID "ALL_NODES" does not start with 0x; write 0x and 16 hex digits, e.g. "0x0002c90300a1b2c3", or one of OpenSM's keywords ALL, ALL_CAS, ALL_SWITCHES, ALL_ROUTERS, SELF`},
		{part("0x0001", `[{ guid = "0x2c90300010001" }]`, ""), `GUID "0x2c90300010001" has 13 hex digits, not 16`},
		{part("0x0001", `[{ hca = "gpu001" }]`, ""), `"gpu001" has no '/': an HCA is named "<node>/<device>", e.g. "gpu001/mlx5_0"`},
		{part("0x0001", `[{ guid = "ALL_CAS", membership = "both" }]`, ""),
			`membership "both" must be "full" (talks to every member) or "limited" (talks to full members only)`},
		{part("0x0001", all, `  mtu = 1500`), `MTU 1500 is not an InfiniBand MTU: use 256, 512, 1024, 2048 or 4096 bytes`},
		{part("0x0001", all, `  rate = 401`),
			`rate 401 Gb/s is not an InfiniBand path rate: use one of 5, 10, 14, 20, 25, 28, 30, 40, 50, 56, 60, 80, 100, 112, 120, 168, 200, 300, 400, 600 (400 for NDR)`},
		{part("0x0001", all, `  sl = 16`), `SL 16 is out of range: a service level is 0-15`},
	}
	var ts []resource.TestStep
	for _, s := range steps {
		ts = append(ts, resource.TestStep{Config: s.config, PlanOnly: true, ExpectError: re(s.want)})
	}
	resource.UnitTest(t, resource.TestCase{ProtoV6ProviderFactories: testProviders, Steps: ts})
}
