package main

import (
	"fmt"
	"log"
	"os"
	"runtime/pprof"
)

// cpuProfileEnv names a path prefix: when set, each provider process writes a CPU profile of its
// whole life to PREFIX.PID (Terraform starts the provider several times per command). It is how
// the plan-time costs in scripts/bench were found: a benchmark of one function misses what
// Terraform asks of the provider between calls.
const cpuProfileEnv = "GPUCLUSTER_CPUPROFILE"

// startCPUProfile starts the profile when prefix is set and returns what stops it.
func startCPUProfile(prefix string) func() {
	if prefix == "" {
		return func() {}
	}
	f, err := os.Create(fmt.Sprintf("%s.%d", prefix, os.Getpid()))
	if err != nil {
		log.Printf("%s: %v", cpuProfileEnv, err)
		return func() {}
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		log.Printf("%s: %v", cpuProfileEnv, err)
		_ = f.Close()
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		_ = f.Close()
	}
}
