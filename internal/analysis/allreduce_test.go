package analysis

import (
	"math"
	"testing"
)

// Hand-computed (FACTS.md section 7): 70e9 parameters, BF16 gradients, S = 140e9 bytes; 512 GPUs
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
	a := allReduce(r, &Workload{Parameters: 8e9, NVLinkGBps: 900})
	if !near(a.HierarchicalSeconds, 2*7.0/8*16e9/900e9) {
		t.Errorf("single node: %+v", *a)
	}
	// Fewer GPUs than a node holds: g shrinks to n.
	a = allReduce(r, &Workload{Parameters: 1e9, GPUs: 2})
	if !near(a.HierarchicalSeconds, 2*0.5*2e9/450e9) {
		t.Errorf("two GPUs: %+v", *a)
	}
	// No bandwidth proved: the ring never finishes.
	r.BisectionRatio = 0
	if a = allReduce(r, &Workload{Parameters: 1e9}); !math.IsInf(a.RingSeconds, 1) {
		t.Errorf("no bandwidth: %+v", *a)
	}
	// One GPU: nothing to reduce.
	r.Endpoints = 1
	if a = allReduce(r, &Workload{Parameters: 1e9}); a.RingSeconds != 0 || a.HierarchicalSeconds != 0 {
		t.Errorf("one GPU: %+v", *a)
	}
}
