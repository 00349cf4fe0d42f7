package opensm

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/testrig"
)

func TestFlavorEngines(t *testing.T) {
	g := buildGraph(t, fatTreeSpec(4, 2, 16))
	t.Run("ar_updn is NVIDIA SM's", func(t *testing.T) {
		cfg, _ := FromGraph(g, GraphOptions{RoutingEngine: "ar_updn"})
		_, err := Render(cfg)
		fe := fieldErrors(t, err)["routing_engine"]
		if fe == nil || !strings.Contains(fe.Message, `NVIDIA SM (OpenSM 5.x)`) || !strings.Contains(fe.Message, `subnet_manager.flavor = "nvidia"`) {
			t.Fatalf("ar_updn on upstream: %v", err)
		}
		cfg, err = FromGraph(g, GraphOptions{RoutingEngine: "ar_updn", Flavor: FlavorNVIDIA})
		if err != nil {
			t.Fatal(err)
		}
		files, err := Render(cfg)
		if err != nil {
			t.Fatalf("ar_updn on nvidia: %v", err)
		}
		conf := files[FileOpenSMConf]
		if !strings.HasPrefix(conf, "# NVIDIA SM (OpenSM 5.x) option file") || !strings.Contains(conf, "routing_engine ar_updn\n") || !strings.Contains(conf, "root_guid_file ") || strings.Contains(conf, "cn_guid_file") {
			t.Fatalf("nvidia opensm.conf for ar_updn (roots, no CN file):\n%s", conf)
		}
		if FlavorOf(files) != FlavorNVIDIA {
			t.Fatal("FlavorOf does not read the flavour back")
		}
		if err := CheckFiles(files, cfg.Paths); err != nil {
			t.Fatalf("CheckFiles refuses the nvidia set: %v", err)
		}
		// The same files without the flavour's first line are upstream's, which has no ar_updn.
		files[FileOpenSMConf] = strings.SplitN(conf, "\n", 2)[1]
		if err := CheckFiles(files, cfg.Paths); err == nil || !strings.Contains(err.Error(), "ar_updn") {
			t.Fatalf("CheckFiles of upstream files naming ar_updn: %v", err)
		}
	})
	t.Run("ar_ftree reads the root and CN files", func(t *testing.T) {
		cfg, err := FromGraph(g, GraphOptions{RoutingEngine: "ar_ftree,ar_updn", Flavor: FlavorNVIDIA})
		if err != nil {
			t.Fatal(err)
		}
		files, err := Render(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if c := files[FileOpenSMConf]; !strings.Contains(c, "root_guid_file ") || !strings.Contains(c, "cn_guid_file ") {
			t.Fatalf("ar_ftree opensm.conf:\n%s", c)
		}
	})
	t.Run("nue is upstream's", func(t *testing.T) {
		_, _, err := ParseEnginesFor(FlavorNVIDIA, "nue")
		if err == nil || !strings.Contains(err.Error(), "OpenSM 3.3's") || !strings.Contains(err.Error(), `flavor = "opensm"`) {
			t.Fatalf("nue on nvidia: %v", err)
		}
		if _, _, err := ParseEnginesFor(FlavorOpenSM, "nue"); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("unknown flavour", func(t *testing.T) {
		cfg, _ := FromGraph(g, GraphOptions{Flavor: "mellanox"})
		if fe := fieldErrors(t, cfg.Validate().Err())["flavor"]; fe == nil || !strings.Contains(fe.Message, `"nvidia"`) {
			t.Fatalf("flavor mellanox: %v", cfg.Validate())
		}
	})
}

func TestFlavorOptions(t *testing.T) {
	for _, tc := range []struct {
		f          Flavor
		key, value string
		want       string // "" accepts
	}{
		{FlavorNVIDIA, "ar_mode", "1", ""},
		{FlavorNVIDIA, "ar_sl_mask", "0xFFFF", ""},
		{FlavorNVIDIA, "enable_ar_by_device_cap", "TRUE", ""},
		{FlavorNVIDIA, "enable_ar_by_device_cap", "true", "write TRUE or FALSE"},
		{FlavorNVIDIA, "ar_tree_asymmetric_flow", "3", ""},
		{FlavorNVIDIA, "ar_tree_asymmetric_flow", "4", "must be 0-3"},
		{FlavorNVIDIA, "ar_sl_mask", "0x10000", "unsigned 16-bit"},
		{FlavorNVIDIA, "periodic_key_update", "5", "10-71582"},
		{FlavorNVIDIA, "sweep_interval", "10", ""}, // upstream's keys stay
		{FlavorNVIDIA, "ar_moed", "1", `NVIDIA SM (OpenSM 5.x) has no option "ar_moed"`},
		{FlavorOpenSM, "ar_mode", "1", `it is an option of NVIDIA SM (OpenSM 5.x) (subnet_manager.flavor = "nvidia")`},
		{FlavorOpenSM, "shield_mode", "0", `subnet_manager.flavor = "nvidia"`},
		{FlavorOpenSM, "routing_engine", "ar_ftree", `set subnet_manager.flavor = "nvidia"`},
		{FlavorNVIDIA, "routing_engine", "ar_ftree,ar_updn", ""},
	} {
		err := CheckOptionFor(tc.f, tc.key, tc.value)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s %s %s: %v", tc.f, tc.key, tc.value, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s %s %s: got %v, want %q", tc.f, tc.key, tc.value, err, tc.want)
		}
	}
	// Every key NVIDIA adds is one upstream lacks: otherwise the flavour would change nothing.
	for k := range nvidiaOptions {
		if _, up := optionTable[k]; up {
			t.Errorf("%s is in upstream's opt_tbl too", k)
		}
	}
}

// A log of NVIDIA SM routing with an adaptive-routing engine reads like upstream's: the engine's
// name before "tables configured on all switches" (osm_ucast_mgr.c, which NVIDIA's build keeps;
// the AR Manager adds its own cycle line). The lines are the form seen in a public log of NVIDIA
// SM on ibsim, not output of this machine, which has upstream OpenSM only.
func TestParseLogNVIDIAForm(t *testing.T) {
	log := strings.Join([]string{
		"Jun 20 14:38:48 817351 [E63ED6C0] 0x80 -> Entering MASTER state",
		"AR Manager - Configuration cycle (number 1) completed successfully",
		"Jun 20 14:38:48 850162 [E63ED6C0] 0x02 -> osm_ucast_mgr_process: ar_updn tables configured on all switches",
		"Jun 20 14:38:48 886400 [E63ED6C0] 0x02 -> SUBNET UP",
	}, "\n")
	v := ParseLog(log)
	if err := v.Check(Expect{Engine: "ar_updn"}); err != nil || !v.SubnetUp {
		t.Fatalf("verdict %+v: %v", v, err)
	}
	if err := v.Check(Expect{Engine: "ar_ftree"}); err == nil {
		t.Fatal("a run routed by ar_updn must not pass for ar_ftree")
	}
}

// TestSimulatedUpstreamRefusesNVIDIANames shows on ibsim why the flavours are told apart:
// upstream OpenSM 3.3 given NVIDIA's ar_updn and ar_mode ignores the option, skips the engine and
// routes with minhop, exiting 0.
func TestSimulatedUpstreamRefusesNVIDIANames(t *testing.T) {
	testrig.RequirePeers(t)
	_, sim := simFatTree(t)
	conf := filepath.Join(sim.Dir, "nvidia-names.conf")
	logFile := filepath.Join(sim.Dir, "nvidia-names.log")
	text := fmt.Sprintf("routing_engine ar_updn\nar_mode 1\nlog_file %s\nforce_log_flush TRUE\n", logFile)
	if err := os.WriteFile(conf, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := sim.RunOpenSMOnce(t, smHost, conf, time.Minute)
	if err != nil {
		t.Fatalf("opensm: %v", err)
	}
	logText, _ := os.ReadFile(logFile)
	v := ParseLog(r.Stdout + r.Stderr + string(logText))
	// OpenSM prints "Unrecognized token" once per read of the file (at start and at the first sweep).
	onlyARMode := len(v.UnknownOptions) > 0
	for _, k := range v.UnknownOptions {
		onlyARMode = onlyARMode && k == "ar_mode"
	}
	if v.Engine != "minhop" || !onlyARMode {
		t.Fatalf("upstream with NVIDIA names: engine %q, unknown options %v\n%s", v.Engine, v.UnknownOptions, r.Stdout)
	}
	if err := v.Check(Expect{Engine: "ar_updn"}); err == nil {
		t.Fatal("the verdict must refuse the run")
	}
}
