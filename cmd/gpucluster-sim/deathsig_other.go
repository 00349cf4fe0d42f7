//go:build !linux

package main

import "syscall"

// dieWithParent is Linux's prctl(PR_SET_PDEATHSIG); elsewhere the demo outlives a killed make,
// and `make demo-down` stops what it left (its pid files).
func dieWithParent(syscall.Signal) {}
