package testrig

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// Slurmctld is a running Slurm controller (Debian's slurmctld 22.05) on 127.0.0.1 with its own
// ports, state directory, slurm.conf and topology.conf. No munge and no slurmd: the nodes stay
// down, which is all a topology check needs (slurmctld reads and checks topology.conf at start).
type Slurmctld struct {
	Dir  string // slurm.conf, topology.conf, state/, spool/, slurmctld.log
	Port int
	Conf string // path of slurm.conf
	Proc *Process
}

// StartSlurmctld writes slurm.conf for nodes (a Slurm hostlist expression such as
// "gpu[001-127]") with the given topology plugin ("topology/tree") and topologyConf as
// topology.conf next to it (Slurm reads it from slurm.conf's directory), starts slurmctld in the
// foreground and waits until `scontrol ping` reports it up. It is stopped by its PID when the test
// ends.
func StartSlurmctld(t TB, nodes, plugin, topologyConf string) *Slurmctld {
	t.Helper()
	bin := Need(t, "slurmctld", "slurmctld")
	Need(t, "scontrol", "slurm-client")
	dir := t.TempDir()
	for _, d := range []string{"state", "spool"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	port := FreePort(t)
	slurmdPort := FreePort(t)
	conf := fmt.Sprintf(`ClusterName=gpc
SlurmctldHost=localhost
SlurmctldPort=%d
SlurmdPort=%d
AuthType=auth/none
CredType=cred/none
SlurmUser=root
MpiDefault=none
MailProg=/bin/true
StateSaveLocation=%s/state
SlurmdSpoolDir=%s/spool
SlurmctldPidFile=%s/slurmctld.pid
SlurmctldLogFile=%s/slurmctld.log
TopologyPlugin=%s
NodeName=%s NodeAddr=127.0.0.1 CPUs=1 State=UNKNOWN
PartitionName=all Nodes=ALL Default=YES
`, port, slurmdPort, dir, dir, dir, dir, plugin, nodes)
	s := &Slurmctld{Dir: dir, Port: port, Conf: filepath.Join(dir, "slurm.conf")}
	if err := os.WriteFile(s.Conf, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "topology.conf"), []byte(topologyConf), 0o644); err != nil {
		t.Fatal(err)
	}
	s.Proc = Start(t, dir, []string{"SLURM_CONF=" + s.Conf}, bin, "-D", "-f", s.Conf)
	up := WaitFor(30*time.Second, func() bool {
		if s.Proc.Exited() {
			return true
		}
		out, err := s.Scontrol("ping")
		return err == nil && strings.Contains(out, "is UP")
	})
	if !up || s.Proc.Exited() {
		t.Fatalf("slurmctld did not come up on port %d; output:\n%s\nlog:\n%s", port, s.Proc.Output(), s.Log())
	}
	return s
}

// Scontrol runs scontrol against this controller.
func (s *Slurmctld) Scontrol(args ...string) (string, error) {
	cmd := exec.Command("scontrol", args...)
	cmd.Env = append(os.Environ(), "SLURM_CONF="+s.Conf)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// Log returns slurmctld.log so far.
func (s *Slurmctld) Log() string {
	b, _ := os.ReadFile(filepath.Join(s.Dir, "slurmctld.log"))
	return string(b)
}
