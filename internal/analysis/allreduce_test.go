package analysis

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
)

// Hand-computed (Patarasuk & Yuan's ring, JPDC 69(2), 2009): 70e9 parameters, BF16 gradients, S = 140e9 bytes; 512 GPUs
// with one 400 Gb/s port each, 400 Gb/s = 50e9 bytes/s.
//
//	ring:         2 * 511/512 * 140e9 / 50e9                          = 5.5890625 s
//	hierarchical: 2 * 7/8 * 140e9 / 450e9 = 0.54444... s (NVLink)
//	            + 2 * 63/64 * 140e9 / (8 * 50e9) = 0.6890625 s (64 nodes, 8 rails)
//	                                                                  = 1.23350694... s
func TestAllReduceNonBlocking512(t *testing.T) {
	g := mustBuild(t, fatTree(treeParams{pods: 1, podLeaves: 16, podSpines: 8, hostsPerLeaf: 32, leafUp: 32}))
	r := Analyze(g, &Workload{Parameters: 70e9, GradientBytesPerParam: 2})
	a := r.AllReduce
	if a == nil {
		t.Fatal("no all-reduce estimate")
	}
	if a.BottleneckGbps != 400 || !near(a.RingSeconds, 5.5890625) || !near(a.HierarchicalSeconds, 0.7*7/9+0.6890625) {
		t.Errorf("%+v, want 400 Gb/s, ring 5.5890625 s, hierarchical 1.2335069 s", *a)
	}
	// FP8: one byte a parameter halves both.
	r = Analyze(g, &Workload{Parameters: 70e9, GradientBytesPerParam: 1})
	if a := r.AllReduce; !near(a.RingSeconds, 5.5890625/2) || !near(a.HierarchicalSeconds, (0.7*7/9+0.6890625)/2) {
		t.Errorf("FP8: %+v", *a)
	}
	// Defaults: BF16, all endpoints, 8 GPUs a node, 450 GB/s NVLink.
	r = Analyze(g, &Workload{Parameters: 70e9})
	if a := r.AllReduce; !near(a.RingSeconds, 5.5890625) {
		t.Errorf("defaults: %+v", *a)
	}
}

// On a 2:1 fabric every GPU is proved only half its port across the bisection: 200 Gb/s.
func TestAllReduceOversubscribed(t *testing.T) {
	g := mustBuild(t, fatTree(treeParams{pods: 1, podLeaves: 16, podSpines: 4, hostsPerLeaf: 32, leafUp: 16}))
	r := Analyze(g, &Workload{Parameters: 70e9, GradientBytesPerParam: 2, GPUs: 256})
	a := r.AllReduce
	// 2 * 255/256 * 140e9 / 25e9 = 11.15625 s; 32 nodes: 0.54444 + 2*31/32*140e9/(8*25e9).
	if a.BottleneckGbps != 200 || !near(a.RingSeconds, 11.15625) || !near(a.HierarchicalSeconds, 0.7*7/9+2*31.0/32*0.7) {
		t.Errorf("%+v", *a)
	}
}

func TestAllReduceEdges(t *testing.T) {
	r := &Result{Endpoints: 8, PortRateGbps: 400, BisectionRatio: 1}
	// One node: NVLink only. 2 * 7/8 * 16e9 / 900e9 with a custom NVLink rate.
	a := allReduce(r, &Workload{Parameters: 8e9, NVLinkGBps: 900}, fabricGPUs{})
	if !near(a.HierarchicalSeconds, 2*7.0/8*16e9/900e9) {
		t.Errorf("single node: %+v", *a)
	}
	// Fewer GPUs than a node holds: g shrinks to n.
	a = allReduce(r, &Workload{Parameters: 1e9, GPUs: 2}, fabricGPUs{})
	if !near(a.HierarchicalSeconds, 2*0.5*2e9/450e9) {
		t.Errorf("two GPUs: %+v", *a)
	}
	// No bandwidth proved: the ring never finishes.
	r.BisectionRatio = 0
	if a = allReduce(r, &Workload{Parameters: 1e9}, fabricGPUs{}); !math.IsInf(a.RingSeconds, 1) {
		t.Errorf("no bandwidth: %+v", *a)
	}
	// One GPU: nothing to reduce.
	r.Endpoints = 1
	if a = allReduce(r, &Workload{Parameters: 1e9}, fabricGPUs{}); a.RingSeconds != 0 || a.HierarchicalSeconds != 0 {
		t.Errorf("one GPU: %+v", *a)
	}
}

// A node with 4 compute HCAs for 8 GPUs gives each GPU half a port (issue 10: it got the times
// of a DGX with 8). Same 512 GPUs as TestAllReduceNonBlocking512, on 64 nodes of 4 HCAs: 256
// endpoints, each GPU 200 Gb/s.
//
//	ring:         2 * 511/512 * 140e9 / 25e9                = 11.178125 s
//	hierarchical: 0.54444 s (NVLink) + 2 * 63/64 * 140e9 / (8 * 25e9) = 1.378125 s
func TestAllReduceSharedHCAs(t *testing.T) {
	b := newSpecBuilder()
	spec := &b.spec
	for l := 0; l < 8; l++ {
		b.sw(fmt.Sprintf("leaf%d", l), "leaf", "")
	}
	for s := 0; s < 4; s++ {
		b.sw(fmt.Sprintf("spine%d", s), "spine", "")
	}
	for n := 0; n < 64; n++ {
		node := fmt.Sprintf("hgx%02d", n)
		spec.Nodes = append(spec.Nodes, fabric.Node{Name: node, Model: "HGX-H100", ComputeHCAs: 4})
		for i := 0; i < 4; i++ {
			h := fabric.HCAName(node, fmt.Sprintf("mlx5_%d", i))
			spec.HCAs = append(spec.HCAs, fabric.HCA{Name: h, Node: node, Device: fmt.Sprintf("mlx5_%d", i), Rail: -1})
			b.cable(h, fmt.Sprintf("leaf%d", (n*4+i)/32))
		}
	}
	for l := 0; l < 8; l++ {
		for k := 0; k < 32; k++ {
			b.cable(fmt.Sprintf("leaf%d", l), fmt.Sprintf("spine%d", k%4))
		}
	}
	g := mustBuild(t, spec)
	w := &Workload{Parameters: 70e9, NodeGPUs: NodeGPUs(spec, catalog.Default())}
	if n := FabricGPUs(g, w.NodeGPUs); n != 512 {
		t.Errorf("FabricGPUs = %d on 256 endpoints of 4-HCA HGX nodes, want 512", n)
	}
	r := Analyze(g, w)
	a := r.AllReduce
	if r.BisectionRatio != 1 || a.BottleneckGbps != 200 || !near(a.RingSeconds, 11.178125) || !near(a.HierarchicalSeconds, 0.7*7/9+1.378125) {
		t.Errorf("ratio %g, %+v; want 200 Gb/s per GPU, ring 11.178125 s, hierarchical 1.92257 s", r.BisectionRatio, *a)
	}
	// The DGX fabric of the same GPUs is twice as fast on the network.
	dgx := Analyze(mustBuild(t, fatTree(treeParams{pods: 1, podLeaves: 16, podSpines: 8, hostsPerLeaf: 32, leafUp: 32})), &Workload{Parameters: 70e9})
	if !(a.RingSeconds > 1.9*dgx.AllReduce.RingSeconds) || !(a.HierarchicalSeconds > dgx.AllReduce.HierarchicalSeconds) {
		t.Errorf("4 HCAs per 8 GPUs %+v not slower than a DGX %+v", *a, *dgx.AllReduce)
	}
}

// workload.gpus beyond the fabric's GPUs is refused, naming the count the fabric has.
func TestCheckWorkloadGPUs(t *testing.T) {
	spec := fatTree(treeParams{pods: 1, podLeaves: 2, podSpines: 2, hostsPerLeaf: 32, leafUp: 32}) // 64 HCAs: 8 DGX, 64 GPUs
	g := mustBuild(t, spec)
	w := &Workload{Parameters: 1e9, GPUs: 65, NodeGPUs: NodeGPUs(spec, catalog.Default())}
	err := CheckWorkload(g, w)
	var we *WorkloadError
	if !errors.As(err, &we) || we.Attribute != "gpus" || !strings.Contains(we.Reason, "the fabric has 64 (8 nodes") || !strings.Contains(we.Reason, "at most 64") {
		t.Fatalf("CheckWorkload(65 GPUs on 64) = %v", err)
	}
	w.GPUs = 64
	if err := CheckWorkload(g, w); err != nil {
		t.Errorf("64 GPUs on 64: %v", err)
	}
}
