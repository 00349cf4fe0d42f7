package opensm

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/remote"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/testrig"
)

func TestCheckFiles(t *testing.T) {
	p := Paths{ConfigDir: "/etc/opensm"}
	cfg := baseConfig()
	cfg.Paths = p
	good, err := Render(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckFiles(good, p); err != nil {
		t.Fatalf("rendered files refused: %v", err)
	}
	with := func(name, text string) Files {
		f := Files{}
		for k, v := range good {
			f[k] = v
		}
		if text == "<delete>" {
			delete(f, name)
		} else {
			f[name] = text
		}
		return f
	}
	cases := []struct {
		files Files
		paths Paths
		want  string
	}{
		{with(FilePartitions, "Default=0x7fff,ipoib : ALL=full ;\ncompute=0x8001 : 0x1=full\n"), p, "not closed with ';'"},
		{with(FilePartitions, "compute=0x0001 : 0x0002c90300100001=fool ;\n"), p, "partitions.conf would be rejected or misread"},
		{with(FileOpenSMConf, good[FileOpenSMConf]+"sweep_intervall 10\n"), p, `no option "sweep_intervall"`},
		{with(FileOpenSMConf, good[FileOpenSMConf]+"force_log_flush true\n"), p, "write TRUE or FALSE"},
		{with(FileRootGUIDs, "# roots\nleaf01\n"), p, "root_guids.conf:2"},
		{with(FileCNGUIDs, "<delete>"), p, "missing cn_guids.conf"},
		{with("opensm.conf.bak", "x"), p, "unexpected file opensm.conf.bak"},
		{good, Paths{ConfigDir: "/srv/opensm"}, "but the files are written to /srv/opensm"},
	}
	for _, c := range cases {
		err := CheckFiles(c.files, c.paths)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("CheckFiles: got %v, want an error containing %q", err, c.want)
		}
	}
}

func TestServiceCommands(t *testing.T) {
	unit := Service{Unit: "opensm@0x0002c90300100001.service"}
	if got := unit.reloadSteps(); len(got) != 1 || got[0] != "systemctl kill --signal=HUP --kill-whom=main opensm@0x0002c90300100001.service" {
		t.Errorf("unit reload = %q", got)
	}
	if got := (Service{}).restartSteps(); len(got) != 1 || got[0] != "systemctl restart opensm" {
		t.Errorf("default restart = %q", got)
	}
	if got := (Service{}).statusCommand(); got != "systemctl is-active --quiet opensm" {
		t.Errorf("default status = %q", got)
	}
	cmds := Service{Start: "start-sm", Stop: "stop-sm"}
	if got := cmds.reloadSteps(); len(got) != 2 || got[0] != "stop-sm" || got[1] != "start-sm" {
		t.Errorf("without a reload command a SIGHUP is a restart; got %q", got)
	}
	if cmds.statusCommand() != "" {
		t.Errorf("no status command should mean none")
	}
	for _, bad := range []Service{{Unit: "opensm", Start: "x", Stop: "y"}, {Start: "x"}, {Reload: "kill -HUP 1"}} {
		if bad.Validate() == nil {
			t.Errorf("Service %+v should be refused", bad)
		}
	}
}

func TestExplain(t *testing.T) {
	log := readTestdata(t, "opensm-torus-noconfig.log")
	lines := explain(log)
	joined := strings.Join(lines, "\n")
	for _, want := range []string{"ERR 4E11", "torus-2QoS: cannot build fwd tables", "minhop tables configured"} {
		if !strings.Contains(joined, want) {
			t.Errorf("explain lacks %q:\n%s", want, joined)
		}
	}
	if len(lines) > 30 {
		t.Errorf("explain returned %d lines", len(lines))
	}
	if got := explain("a\nb\n"); len(got) != 2 {
		t.Errorf("without a matching line explain should return the tail, got %q", got)
	}
}

// smSite is an SM "host" for the push tests: a real sshd on a loopback address, a configuration
// directory and an OpenSM service attached to the simulator at one HCA.
type smSite struct {
	sshd   *testrig.SSHD
	client *remote.Client
	dir    string // config_dir
	log    string
	svc    *testrig.OpenSMService
}

func newSite(t *testing.T, sim *testrig.IBSim, addr string, share *testrig.SSHD, simHost, cacheDir string) *smSite {
	t.Helper()
	s := &smSite{sshd: testrig.StartSSHD(t, testrig.SSHDOptions{Host: addr, Share: share})}
	s.dir = filepath.Join(s.sshd.Dir, "etc-opensm")
	s.log = filepath.Join(s.sshd.Dir, "opensm.log")
	if err := os.MkdirAll(s.dir, 0o755); err != nil {
		t.Fatal(err)
	}
	c, err := remote.Dial(t.Context(), remote.Config{
		Host: s.sshd.Host, Port: s.sshd.Port, User: s.sshd.User,
		PrivateKeyPEM: s.sshd.PrivateKeyPEM, KnownHostsFile: s.sshd.KnownHostsFile, Timeout: 10 * time.Second,
	})
	if err != nil {
		t.Fatalf("dial %s: %v", s.sshd, err)
	}
	t.Cleanup(func() { _ = c.Close() })
	s.client = c
	s.svc = sim.OpenSMService(t, simHost, filepath.Join(s.dir, FileOpenSMConf), cacheDir)
	return s
}

// render renders the fabric for this site's directory and log.
func (s *smSite) render(t *testing.T, g *fabric.Graph, o GraphOptions, edit func(*Config)) Files {
	t.Helper()
	o.Paths = Paths{ConfigDir: s.dir}
	opts := map[string]string{"log_file": s.log, "force_log_flush": "TRUE"}
	for k, v := range o.Options {
		opts[k] = v
	}
	o.Options = opts
	cfg, err := FromGraph(g, o)
	if err != nil {
		t.Fatalf("FromGraph: %v", err)
	}
	if edit != nil {
		edit(&cfg)
	}
	files, err := Render(cfg)
	if err != nil {
		t.Fatalf("Render: %v", err)
	}
	return files
}

func (s *smSite) target(files Files, expect Expect) Target {
	return Target{
		Name: s.sshd.Addr(), Host: s.client, Files: files, Paths: Paths{ConfigDir: s.dir},
		Service: Service{Start: s.svc.Start, Stop: s.svc.Stop, Reload: s.svc.Reload, Status: s.svc.Status},
		LogFile: s.log, Expect: expect, VerifyTimeout: 30 * time.Second, PollInterval: 100 * time.Millisecond,
	}
}

// onDisk reads the file set as it is in the site's directory (the "host" is this machine).
func (s *smSite) onDisk(t *testing.T) Files {
	t.Helper()
	out := Files{}
	for _, n := range FileNames {
		b, err := os.ReadFile(filepath.Join(s.dir, n))
		if err == nil {
			out[n] = string(b)
		} else if !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}
	return out
}

func (s *smSite) logText(t *testing.T) string {
	t.Helper()
	b, _ := os.ReadFile(s.log)
	return string(b)
}

func addCompute(h int) func(*Config) {
	return func(c *Config) {
		c.Partitions[0].Members = append(c.Partitions[0].Members, Member{GUID: hcaGUID(h), Membership: Full})
	}
}

// TestPushSimulated drives the whole push flow over a real SSH connection against OpenSM on the
// simulated 2-tier fat tree: first push (restart, ftree with both spines as roots), a no-op, a
// partition change applied by SIGHUP, an engine change applied by restart, an engine that falls
// back (rolled back), a partitions file OpenSM would reject (never written), and Unpush.
func TestPushSimulated(t *testing.T) {
	testrig.RequirePeers(t)
	began := time.Now()
	g, sim := simFatTree(t)
	site := newSite(t, sim, "127.0.0.1", nil, smHost, sim.Dir)
	ctx := t.Context()
	ftree := Expect{Engine: "ftree", Roots: 2}
	t.Logf("rig ready in %s", time.Since(began).Round(time.Millisecond))

	base := site.render(t, g, GraphOptions{}, nil)
	var pid int
	t.Run("first push starts OpenSM and verifies ftree", func(t *testing.T) {
		// A fresh host: not even the configuration directory exists.
		if err := os.Remove(site.dir); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		r, err := Push(ctx, site.target(base, ftree))
		if err != nil {
			t.Fatalf("Push: %v\nOpenSM stdout:\n%s", err, site.svc.Output())
		}
		t.Logf("first push: %s", time.Since(start).Round(time.Millisecond))
		if r.Action != ActionRestart || !r.Written || r.Standby || r.Verdict.Engine != "ftree" || r.Verdict.Roots != 2 {
			t.Fatalf("result %+v", r)
		}
		if got := site.onDisk(t); !sameFiles(got, base) {
			t.Fatalf("files on the host differ from the pushed set")
		}
		if pid = site.svc.PID(); pid == 0 {
			t.Fatal("OpenSM is not running after the push")
		}
		m, err := os.ReadFile(filepath.Join(site.dir, OriginalManifest))
		if err != nil || !strings.Contains(string(m), "running no") || !strings.Contains(string(m), "file opensm.conf absent") {
			t.Fatalf("snapshot manifest: %v\n%s", err, m)
		}
		if !strings.Contains(site.svc.Output(), "Reading Cached Option File: "+filepath.Join(site.dir, FileOpenSMConf)) {
			t.Errorf("OpenSM did not read the pushed option file:\n%s", site.svc.Output())
		}
	})

	t.Run("same files again change nothing", func(t *testing.T) {
		r, err := Push(ctx, site.target(base, ftree))
		if err != nil || r.Written || r.Action != ActionNone {
			t.Fatalf("second push: %+v, %v", r, err)
		}
		if site.svc.PID() != pid {
			t.Fatal("OpenSM was restarted by a no-op push")
		}
	})

	withHCA50 := site.render(t, g, GraphOptions{}, addCompute(50))
	t.Run("partition change by SIGHUP", func(t *testing.T) {
		lid := sim.LIDs(t)[hcaGUID(50).String()]
		if p := pkeysOf(t, sim, lid); strings.Contains(p, "0x8001") {
			t.Fatalf("HCA 50 is in compute before the push:\n%s", p)
		}
		tg := site.target(withHCA50, ftree)
		var steps []string
		tg.Progress = func(step string) { steps = append(steps, step) }
		r, err := Push(ctx, tg)
		if err != nil {
			t.Fatal(err)
		}
		if r.Action != ActionSIGHUP || r.Verdict.Engine != "ftree" || r.Verdict.Roots != 2 {
			t.Fatalf("result %+v", r)
		}
		// One line per step, in order, for a person following the apply.
		want := []string{"differ from the rendered ones: sighup", "wrote ", "signalling OpenSM (SIGHUP)", "verified: ftree tables configured on all switches, 2 root switches"}
		if len(steps) != len(want) {
			t.Fatalf("progress:\n%s", strings.Join(steps, "\n"))
		}
		for i, w := range want {
			if !strings.Contains(steps[i], w) {
				t.Errorf("progress step %d is %q, want it to say %q", i, steps[i], w)
			}
		}
		if site.svc.PID() != pid {
			t.Fatal("a partition change restarted OpenSM instead of signalling it")
		}
		if p := pkeysOf(t, sim, lid); !strings.Contains(p, "0x8001") {
			t.Fatalf("after the SIGHUP HCA 50 lacks 0x8001:\n%s", p)
		}
	})

	updn := site.render(t, g, GraphOptions{RoutingEngine: "updn"}, addCompute(50))
	t.Run("engine change by restart", func(t *testing.T) {
		r, err := Push(ctx, site.target(updn, Expect{Engine: "updn"}))
		if err != nil {
			t.Fatal(err)
		}
		if r.Action != ActionRestart || r.Verdict.Engine != "updn" {
			t.Fatalf("result %+v", r)
		}
		if np := site.svc.PID(); np == 0 || np == pid {
			t.Fatalf("OpenSM was not restarted for the new engine (pid %d, before %d)", np, pid)
		}
		pid = site.svc.PID()
	})

	t.Run("fallback is rolled back", func(t *testing.T) {
		// torus-2QoS on a fat tree, with a torus description that does not exist: OpenSM logs
		// ERR 4E11, falls back to minhop and exits 0 from nothing.
		torus := site.render(t, g, GraphOptions{RoutingEngine: "torus-2QoS", Options: map[string]string{"qos": "TRUE", "torus_config": "/nonexistent/torus-2QoS.conf"}}, addCompute(50))
		offset := len(site.logText(t))
		tg := site.target(torus, Expect{Engine: "torus-2QoS"})
		var steps []string
		tg.Progress = func(step string) { steps = append(steps, step) }
		r, err := Push(ctx, tg)
		var perr *PushError
		if !errors.As(err, &perr) {
			t.Fatalf("Push of a falling-back engine: %v (result %+v)", err, r)
		}
		if n := len(steps); n < 2 || !strings.Contains(steps[n-2], "verify failed") || !strings.Contains(steps[n-1], "rolled back") {
			t.Errorf("progress does not end with the failed verification and the rollback:\n%s", strings.Join(steps, "\n"))
		}
		if perr.Stage != "verify" || !perr.RolledBack || perr.RollbackErr != nil {
			t.Fatalf("PushError %+v", perr)
		}
		msg := err.Error()
		for _, want := range []string{"tables configured by minhop after torus-2QoS failed (fallback), not torus-2QoS", "ERR 4E11", "previous files were restored"} {
			if !strings.Contains(msg, want) {
				t.Errorf("error lacks %q:\n%s", want, msg)
			}
		}
		if got := site.onDisk(t); !sameFiles(got, updn) {
			t.Fatalf("the host does not hold the previous (updn) files after the rollback:\n%s", got[FileOpenSMConf])
		}
		if site.svc.PID() == 0 {
			t.Fatal("OpenSM is not running after the rollback")
		}
		// The rollback restarted OpenSM with the updn files, and it routes with updn again.
		if !testrig.WaitFor(20*time.Second, func() bool {
			return ParseLog(lastRun(site.logText(t)[offset:])).Engine == "updn"
		}) {
			t.Fatalf("after the rollback OpenSM does not route with updn:\n%s", site.logText(t)[offset:])
		}
		pid = site.svc.PID()
	})

	t.Run("a partitions file OpenSM would reject never reaches the host", func(t *testing.T) {
		bad := Files{}
		for k, v := range updn {
			bad[k] = v
		}
		bad[FilePartitions] = updn[FilePartitions] + "broken=0x0005 : 0x0002c90300100001=full\n" // no ';'
		_, err := Push(ctx, site.target(bad, Expect{Engine: "updn"}))
		var perr *PushError
		if !errors.As(err, &perr) || perr.Stage != "check" || !strings.Contains(err.Error(), "not closed with ';'") {
			t.Fatalf("Push: %v", err)
		}
		if got := site.onDisk(t); !sameFiles(got, updn) {
			t.Fatal("the host's files changed")
		}
		if site.svc.PID() != pid {
			t.Fatal("OpenSM was touched")
		}
	})

	t.Run("unpush restores the host as it was", func(t *testing.T) {
		if _, err := Unpush(ctx, site.target(nil, Expect{})); err != nil {
			t.Fatal(err)
		}
		if got := site.onDisk(t); len(got) != 0 {
			t.Fatalf("files the provider created are still there: %v", keys(got))
		}
		if site.svc.PID() != 0 {
			t.Fatal("OpenSM was not running before the first push, but still runs")
		}
		if _, err := os.Stat(filepath.Join(site.dir, OriginalManifest)); !os.IsNotExist(err) {
			t.Fatalf("snapshot manifest still there: %v", err)
		}
		if _, err := Unpush(ctx, site.target(nil, Expect{})); !errors.Is(err, ErrNoOriginal) {
			t.Fatalf("second Unpush: %v, want ErrNoOriginal", err)
		}
	})
}

// TestUnpushRestoresOriginalFiles: a host that had its own OpenSM files and a running OpenSM gets
// them back, and OpenSM is restarted with them.
func TestUnpushRestoresOriginalFiles(t *testing.T) {
	testrig.RequirePeers(t)
	g, sim := simFatTree(t)
	site := newSite(t, sim, "127.0.0.1", nil, smHost, sim.Dir)
	ctx := t.Context()
	// The host's own configuration: minhop, written by hand, OpenSM running with it.
	own := site.render(t, g, GraphOptions{RoutingEngine: "minhop"}, nil)
	own[FileOpenSMConf] = "# hand-written\n" + own[FileOpenSMConf]
	for n, text := range own {
		if err := os.WriteFile(filepath.Join(site.dir, n), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if out, err := runLocal(site.svc.Start); err != nil {
		t.Fatalf("start: %v %s", err, out)
	}
	if _, err := Push(ctx, site.target(site.render(t, g, GraphOptions{}, nil), Expect{Engine: "ftree", Roots: 2})); err != nil {
		t.Fatal(err)
	}
	offset := len(site.logText(t))
	r, err := Unpush(ctx, site.target(nil, Expect{}))
	if err != nil {
		t.Fatal(err)
	}
	if r.Action != ActionRestart {
		t.Errorf("Unpush action %v, want restart (routing engine back to minhop)", r.Action)
	}
	if got := site.onDisk(t); !sameFiles(got, own) {
		t.Fatal("the original files are not back")
	}
	if site.svc.PID() == 0 {
		t.Fatal("OpenSM was running before the first push and should run again")
	}
	if !testrig.WaitFor(20*time.Second, func() bool { return ParseLog(site.logText(t)[offset:]).Engine == "minhop" }) {
		t.Fatalf("OpenSM does not route with the original engine:\n%s", site.logText(t)[offset:])
	}
}

// TestPushAllPrimaryAndStandbys pushes to a primary and standbys (sshd "hosts" on 127.0.0.1-3,
// each OpenSM attached at its own HCA): the first failure stops the push, that host is rolled
// back and the next is not touched; once fixed, the standby verifies as a standby, and a partition
// change reaches both (routing verified on the master only).
//
// Only one standby runs at a time: with OpenSM 3.3.23 on ibsim 0.10 the master stops sweeping
// for good (no heavy sweep on traps or SIGHUP) once a second standby SM joins the simulated
// fabric, with or without the provider (seen with opensm started by hand).
func TestPushAllPrimaryAndStandbys(t *testing.T) {
	testrig.RequirePeers(t)
	g, sim := simFatTree(t)
	primary := newSite(t, sim, "127.0.0.1", nil, smHost, sim.Dir)
	standby := newSite(t, sim, "127.0.0.2", primary.sshd, "gpu002 mlx5_0", filepath.Join(sim.Dir, "sb1"))
	third := newSite(t, sim, "127.0.0.3", primary.sshd, "gpu003 mlx5_0", filepath.Join(sim.Dir, "sb2"))
	ctx := t.Context()
	ftree := Expect{Engine: "ftree", Roots: 2}
	targets := func(edit func(*Config), sites ...*smSite) []Target {
		var out []Target
		for _, s := range sites {
			out = append(out, s.target(s.render(t, g, GraphOptions{}, edit), ftree))
		}
		return out
	}

	ts := targets(nil, primary, standby, third)
	ts[1].Service.Start = "echo 'opensm: cannot open /dev/infiniband/umad0' >&2; exit 1"
	results, err := pushAll(ctx, ts)
	var perr *PushError
	if !errors.As(err, &perr) || perr.Host != standby.sshd.Addr() || perr.Stage != "restart" || !perr.RolledBack {
		t.Fatalf("PushAll: %v", err)
	}
	var aerr *AllError
	if !errors.As(err, &aerr) || aerr.Index != 1 || aerr.Open || !slices.Equal(aerr.Done, []string{ts[0].Name}) || !slices.Equal(aerr.Left, []string{ts[2].Name}) {
		t.Fatalf("AllError %+v", aerr)
	}
	for _, want := range []string{"cannot open /dev/infiniband/umad0", "already pushed and verified: " + primary.sshd.Addr(), "not touched: " + third.sshd.Addr()} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
	if len(results) != 2 || results[0].Verdict.Engine != "ftree" {
		t.Fatalf("results %+v", results)
	}
	if len(standby.onDisk(t)) != 0 || standby.svc.PID() != 0 {
		t.Fatal("the failed standby was not rolled back to no files and no OpenSM")
	}
	if _, err := os.Stat(filepath.Join(standby.dir, OriginalManifest)); !os.IsNotExist(err) {
		t.Fatal("the rollback of a first push left the snapshot behind")
	}
	if entries, _ := os.ReadDir(third.dir); len(entries) != 0 || third.svc.PID() != 0 {
		t.Fatal("the host after the failed one was touched")
	}
	if primary.svc.PID() == 0 || !sameFiles(primary.onDisk(t), ts[0].Files) {
		t.Fatal("the primary lost its verified push")
	}

	results, err = pushAll(ctx, targets(nil, primary, standby))
	if err != nil {
		t.Fatal(err)
	}
	if results[0].Written || results[0].Standby || !results[1].Standby || results[1].Action != ActionRestart {
		t.Fatalf("results %+v", results)
	}
	primary.settleAfterStandbyJoined(t)
	masterPID, standbyPID := primary.svc.PID(), standby.svc.PID()

	results, err = pushAll(ctx, targets(addCompute(50), primary, standby))
	if err != nil {
		t.Fatalf("%v\nprimary log:\n%s\nstandby log:\n%s", err, primary.logText(t), standby.logText(t))
	}
	for i, r := range results {
		if r.Action != ActionSIGHUP || r.Standby != (i > 0) {
			t.Errorf("host %d: %+v", i, r)
		}
	}
	if results[0].Verdict.Engine != "ftree" || primary.svc.PID() != masterPID || standby.svc.PID() != standbyPID {
		t.Fatalf("after the partition change: %+v (pids %d %d, before %d %d)", results[0], primary.svc.PID(), standby.svc.PID(), masterPID, standbyPID)
	}
	lid := sim.LIDs(t)[hcaGUID(50).String()]
	if p := pkeysOf(t, sim, lid); !strings.Contains(p, "0x8001") {
		t.Fatalf("HCA 50 lacks 0x8001:\n%s", p)
	}
}

// settleAfterStandbyJoined waits for the sweep a master runs when a standby SM joins (the
// standby's port raises IsSM: trap 144). On ibsim 0.10 that sweep is sometimes lost for good when
// it overlaps the standby's own first discovery: the master then never sweeps again, on SIGHUP
// either (seen twice in full runs of the suite on a loaded machine, never alone: the master's
// log ends at the trap). The fixture then restarts the master's OpenSM, as an operator would, and
// says so. Nothing the test asserts about the push changes: the next push still has to reach
// both hosts by SIGHUP and verify routing on the master.
func (s *smSite) settleAfterStandbyJoined(t *testing.T) {
	t.Helper()
	swept := func() bool {
		log := s.logText(t)
		i := strings.LastIndex(log, "num:144")
		return i < 0 || strings.Contains(log[i:], "SUBNET UP")
	}
	if testrig.WaitFor(10*time.Second, swept) {
		return
	}
	t.Logf("ibsim lost the master's sweep after the standby joined; restarting the master's OpenSM")
	offset := len(s.logText(t))
	for _, c := range []string{s.svc.Stop, s.svc.Start} {
		if out, err := exec.Command("sh", "-c", c).CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", c, err, out)
		}
	}
	since := func() string { // OpenSM may start its log afresh
		if log := s.logText(t); len(log) >= offset {
			return log[offset:]
		} else {
			return log
		}
	}
	if !testrig.WaitFor(30*time.Second, func() bool { return strings.Contains(since(), "SUBNET UP") }) {
		t.Fatalf("the restarted master did not bring the subnet up:\n%s", since())
	}
}

// pushAll runs PushAll over targets already connected.
func pushAll(ctx context.Context, ts []Target) ([]Result, error) {
	names := make([]string, len(ts))
	for i, t := range ts {
		names[i] = t.Name
	}
	return PushAll(ctx, names, func(_ context.Context, i int) (Target, func(), error) { return ts[i], func() {}, nil })
}

// TestPushAllStopsAtUnreachableHost: a host that cannot be reached stops the push before any
// host after it is opened, and is reported as such.
func TestPushAllStopsAtUnreachableHost(t *testing.T) {
	var opened []int
	unreachable := errors.New("dial tcp 10.0.0.2:22: connect: no route to host")
	_, err := PushAll(context.Background(), []string{"sm1", "sm2", "sm3"}, func(_ context.Context, i int) (Target, func(), error) {
		opened = append(opened, i)
		return Target{}, nil, unreachable
	})
	var aerr *AllError
	if !errors.As(err, &aerr) || !errors.Is(err, unreachable) || aerr.Index != 0 || aerr.Host != "sm1" || !aerr.Open || len(aerr.Done) != 0 || !slices.Equal(aerr.Left, []string{"sm2", "sm3"}) {
		t.Fatalf("PushAll: %v (%+v)", err, aerr)
	}
	if !slices.Equal(opened, []int{0}) {
		t.Errorf("opened hosts %v, want only the first", opened)
	}
	if want := unreachable.Error() + "; not touched: sm2, sm3"; err.Error() != want {
		t.Errorf("error %q, want %q", err, want)
	}
}

// lastRun is the log from the last OpenSM start on ("OpenSM 3.3" banner).
func lastRun(log string) string {
	if i := strings.LastIndex(log, "-> OpenSM 3.3"); i >= 0 {
		return log[i:]
	}
	return log
}

func keys(f Files) []string {
	var out []string
	for k := range f {
		out = append(out, k)
	}
	return out
}

func runLocal(cmd string) (string, error) {
	out, err := exec.Command("sh", "-c", cmd).CombinedOutput()
	return string(out), err
}
