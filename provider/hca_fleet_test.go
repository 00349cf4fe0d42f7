package provider

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/testrig"
)

// hcaFleet is a fleet of GPU nodes for refresh measurements: one real sshd per node on
// loopback (all taking one client key, all recorded in one known_hosts file, as a fleet's
// provider block gives them), each with the mlxconfig double holding perNode cards, and one
// gpucluster_hca model per card as its state would hold it.
type hcaFleet struct {
	nodes []*testrig.SSHD
	logs  []string // per node: the double's log of tool calls
	data  *Data
	hcas  []*hcaModel
}

func startHCAFleet(t testing.TB, nodes, perNode int) *hcaFleet {
	t.Helper()
	double := buildMlxconfigDouble(t)
	f := &hcaFleet{}
	settings, _ := types.MapValueFrom(context.Background(), types.StringType, map[string]string{
		"LINK_TYPE_P1": "IB", "SRIOV_EN": "True", "NUM_OF_VFS": "16", "PCI_WR_ORDERING": "per_mkey",
	})
	for n := 0; n < nodes; n++ {
		var opts testrig.SSHDOptions
		if n > 0 {
			opts.Share = f.nodes[0]
		}
		s := testrig.StartSSHD(t, opts)
		f.nodes = append(f.nodes, s)
		bin := filepath.Join(s.Dir, "mft", "bin")
		state, log := filepath.Join(s.Dir, "nvconfig.json"), filepath.Join(s.Dir, "tool-calls.log")
		f.logs = append(f.logs, log)
		mustMkdir(t, bin)
		for _, name := range []string{"mlxconfig", "flint"} {
			script := fmt.Sprintf("#!/bin/sh\nMLXCONFIG_DOUBLE_STATE='%s' MLXCONFIG_DOUBLE_LOG='%s' exec '%s' \"$@\"\n", state, log, filepath.Join(double, name))
			mustWrite(t, filepath.Join(bin, name), script, 0o755)
		}
		var devs []string
		for d := 0; d < perNode; d++ {
			devs = append(devs, fmt.Sprintf(`{"device": "/dev/mst/mt4129_pciconf%d", "aliases": ["mlx5_%d"], "device_type": "ConnectX7",
 "name": "MCX75310AAS-NEA_Ax", "description": "NVIDIA ConnectX-7 HHHL Adapter card; 400GbE / NDR IB (default mode); Single-port OSFP; PCIe 5.0 x16",
 "params": [{"name": "LINK_TYPE_P1", "next": "IB(1)"}, {"name": "SRIOV_EN", "next": "True(1)"}, {"name": "NUM_OF_VFS", "next": "16"},
            {"name": "PCI_WR_ORDERING", "next": "per_mkey(0)"}, {"name": "KEEP_IB_LINK_UP_P1", "next": "False(0)"}],
 "firmware": {"image_type": "FS4", "fw_version": "28.42.1000", "fw_release_date": "8.8.2024", "product_version": "28.42.1000",
  "rom_info": [], "description": "UID                GuidsNumber", "base_guid": "e09d730300126474        16",
  "base_mac": "e09d73126474            16", "image_vsd": "N/A", "device_vsd": "N/A", "psid": "MT_0000001244", "security_attributes": "secure-fw"}}`, d, d))
			node := fmt.Sprintf("gpu%03d", n+1)
			f.hcas = append(f.hcas, &hcaModel{
				Name: types.StringValue(fmt.Sprintf("%s/mlx5_%d", node, d)), Node: types.StringValue(node),
				Device: types.StringValue(fmt.Sprintf("mlx5_%d", d)), MSTDevice: types.StringValue(fmt.Sprintf("/dev/mst/mt4129_pciconf%d", d)),
				SSHHost: types.StringValue(s.Addr()), Tool: types.StringValue(filepath.Join(bin, "mlxconfig")),
				FirmwareSettings: settings, SSH: types.ObjectNull(hcaSSHAttrTypes),
			})
		}
		mustWrite(t, state, `{"devices": [`+strings.Join(devs, ",\n")+`]}`, 0o644)
	}
	f.data = &Data{SSH: SSHDefaults{User: f.nodes[0].User, PrivateKey: f.nodes[0].PrivateKeyPEM, KnownHostsFile: f.nodes[0].KnownHostsFile}}
	return f
}

func mustMkdir(t testing.TB, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
}

func mustWrite(t testing.TB, path, content string, mode os.FileMode) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
}

// refresh reads every HCA as Terraform's refresh does, parallelism HCAs at a time (Terraform's
// -parallelism, 10 by default), and fails on any error or a wrong reading.
func (f *hcaFleet) refresh(t testing.TB, parallelism int) {
	t.Helper()
	r := &hcaResource{data: f.data}
	work := make(chan *hcaModel)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var failures []string
	for w := 0; w < parallelism; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for h := range work {
				m := *h
				ctx, cancel := context.WithTimeout(context.Background(), defaultHCAReadTimeout)
				_, diags := r.firmwareRead(ctx, &m, defaultHCAReadTimeout)
				cancel()
				if diags.HasError() || diags.WarningsCount() > 0 || m.FirmwareVersion.ValueString() != "28.42.1000" || !m.FirmwareSettings.Equal(h.FirmwareSettings) {
					mu.Lock()
					failures = append(failures, fmt.Sprintf("%s: %v, firmware %s, settings %s", m.Name.ValueString(), diags, m.FirmwareVersion, m.FirmwareSettings))
					mu.Unlock()
				}
			}
		}()
	}
	for _, h := range f.hcas {
		work <- h
	}
	close(work)
	wg.Wait()
	if len(failures) > 0 {
		t.Fatalf("%d of %d reads failed; first: %s", len(failures), len(f.hcas), failures[0])
	}
}

// fleetCost is what refreshes cost, read from the peers (sshd's log, the double's log, the
// kernel's accounting of sshd and its children), not from the provider.
type fleetCost struct {
	conns, toolCalls int
	remoteCPU        time.Duration // sshd, its connection handlers, and the sessions' shells and tools
}

func (f *hcaFleet) cost(t testing.TB) fleetCost {
	t.Helper()
	var c fleetCost
	for i, s := range f.nodes {
		c.conns += strings.Count(s.Proc.Output(), "Accepted publickey for ")
		if b, err := os.ReadFile(f.logs[i]); err == nil {
			c.toolCalls += strings.Count(string(b), "\n")
		}
		c.remoteCPU += processCPU(t, s.Proc.Cmd.Process.Pid)
	}
	return c
}

// processCPU is the user and system time of pid and of its children that it has reaped
// (proc(5), /proc/PID/stat fields 14-17, in clock ticks of 1/100 s on Linux).
func processCPU(t testing.TB, pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+2:]))
	var ticks int64
	for _, i := range []int{11, 12, 13, 14} { // utime stime cutime cstime, counted from field 3
		n, _ := strconv.ParseInt(f[i], 10, 64)
		ticks += n
	}
	return time.Duration(ticks) * 10 * time.Millisecond
}

// settle ends the refresh's connections (the provider stopping) and waits until every sshd has
// reaped the processes that served them, so that their CPU time is counted.
func (f *hcaFleet) settle(t testing.TB) {
	t.Helper()
	resetConnections()
	for _, s := range f.nodes {
		pid := s.Proc.Cmd.Process.Pid
		if !testrig.WaitFor(30*time.Second, func() bool { return len(testrig.Children(pid)) == 0 }) {
			t.Fatalf("%s still serves a connection", s)
		}
	}
}

func selfCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestHCARefreshOneConnectionPerNode: a refresh of 4 nodes of 8 HCAs, read 10 at a time, opens
// one SSH connection per node, not one per HCA, and runs each tool once per HCA; sshd's own log
// counts the connections.
func TestHCARefreshOneConnectionPerNode(t *testing.T) {
	testrig.RequirePeers(t)
	const nodes, perNode = 4, 8
	f := startHCAFleet(t, nodes, perNode)
	f.settle(t)
	f.refresh(t, 10)
	f.settle(t)
	c := f.cost(t)
	if c.conns != nodes {
		t.Errorf("the refresh opened %d connections, want %d: one per node", c.conns, nodes)
	}
	if want := 2 * nodes * perNode; c.toolCalls != want {
		t.Errorf("the refresh called the tools %d times, want %d: mlxconfig and flint once per HCA", c.toolCalls, want)
	}
}

// BenchmarkHCARefresh64x8 refreshes 64 nodes of 8 HCAs (512 gpucluster_hca), 10 reads at a time
// as Terraform's default -parallelism, against one sshd per node on loopback. Besides time it
// reports per refresh: connections sshd accepted, tool calls, the CPU of the provider's side
// (this process) and of the nodes' side (sshd, shells, tools).
//
//	GPUCLUSTER_PEERS=1 go test ./provider -run '^$' -bench BenchmarkHCARefresh64x8 -benchtime 1x
func BenchmarkHCARefresh64x8(b *testing.B) {
	testrig.RequirePeers(b)
	f := startHCAFleet(b, 64, 8)
	f.settle(b)
	before := f.cost(b)
	var cpu time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := selfCPU()
		f.refresh(b, 10)
		cpu += selfCPU() - start
		b.StopTimer()
		f.settle(b)
		b.StartTimer()
	}
	b.StopTimer()
	after := f.cost(b)
	n := float64(b.N)
	b.ReportMetric(float64(after.conns-before.conns)/n, "conns/op")
	b.ReportMetric(float64(after.toolCalls-before.toolCalls)/n, "toolcalls/op")
	b.ReportMetric(cpu.Seconds()/n, "local-cpu-s/op")
	b.ReportMetric((after.remoteCPU-before.remoteCPU).Seconds()/n, "node-cpu-s/op")
}
