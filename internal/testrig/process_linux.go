package testrig

import (
	"os"
	"strconv"
	"strings"
	"syscall"
)

// peerAttr puts a peer in its own process group (Stop ends the group: a shell and what it runs)
// and has the kernel kill it when the process that started it dies (prctl PR_SET_PDEATHSIG,
// proc(5) and prctl(2)): a test binary that times out, or gpucluster-sim killed, takes its peers
// with it instead of leaving them running (issue 32, point 8). The signal survives exec (the
// `sh -c "exec ibsim"` of the simulator); it is tied to the thread that forked, which the Go
// runtime keeps for the life of the process.
func peerAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// StartTime is when a process started, in clock ticks since boot (field 22 of /proc/<pid>/stat,
// proc(5)); "" when it cannot be read. A PID and its start time name one process for the life of
// the machine: a PID alone may be reused after a crash by a process of someone else's.
func StartTime(pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return ""
	}
	// The command name (field 2) is in parentheses and may hold spaces: count from after it.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return ""
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 20 {
		return ""
	}
	return f[19] // field 22 overall: fields 3.. start at f[0]
}
