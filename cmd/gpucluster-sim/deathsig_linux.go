package main

import (
	"os"
	"syscall"
)

// dieWithParent asks the kernel for sig when the parent process dies (prctl(2),
// PR_SET_PDEATHSIG). A parent that died before the call is seen by the parent PID changing.
func dieWithParent(sig syscall.Signal) {
	parent := os.Getppid()
	if _, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, syscall.PR_SET_PDEATHSIG, uintptr(sig), 0); errno != 0 {
		return
	}
	if os.Getppid() != parent {
		_ = syscall.Kill(os.Getpid(), sig)
	}
}
