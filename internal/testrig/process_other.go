//go:build !linux

package testrig

import "syscall"

// peerAttr puts a peer in its own process group; without Linux's parent-death signal, a peer
// outlives a parent that is killed, and PeerPIDsEnv's files are how it is found.
func peerAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

// StartTime is "" where /proc is not Linux's: a pid file then cannot be told from a reused PID.
func StartTime(int) string { return "" }
