package hca

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
)

// The test double of mlxconfig lives in testdata/mlxconfig-double. It is
// built once per test run into a temporary directory, under every tool name
// it answers to, and that directory goes first on PATH of the commands the
// tests run.

var (
	doubleOnce sync.Once
	doubleDir  string
	doubleErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if doubleDir != "" {
		os.RemoveAll(doubleDir)
	}
	os.Exit(code)
}

// buildDouble returns a directory holding mlxconfig, mstconfig, flint,
// mstflint, mlxfwreset and mstfwreset, all the double.
func buildDouble(t *testing.T) string {
	t.Helper()
	doubleOnce.Do(func() {
		goBin, err := exec.LookPath("go")
		if err != nil {
			doubleErr = err
			return
		}
		dir, err := os.MkdirTemp("", "mlxconfig-double-") //nolint:usetesting // built once for every test of the package (sync.Once), so no one test owns it
		if err != nil {
			doubleErr = err
			return
		}
		doubleDir = dir
		cmd := exec.Command(goBin, "build", "-o", filepath.Join(dir, "mlxconfig"), "./testdata/mlxconfig-double")
		if out, err := cmd.CombinedOutput(); err != nil {
			doubleErr = fmt.Errorf("go build the double: %v\n%s", err, out)
			return
		}
		for _, n := range []string{"mstconfig", "flint", "mstflint", "mlxfwreset", "mstfwreset"} {
			if err := os.Symlink("mlxconfig", filepath.Join(dir, n)); err != nil {
				doubleErr = err
				return
			}
		}
	})
	if doubleErr != nil {
		t.Fatal(doubleErr)
	}
	return doubleDir
}

// The state file of the double, as JSON.
type dState struct {
	Devices []*dDevice `json:"devices"`
}

type dDevice struct {
	Device           string     `json:"device"`
	Aliases          []string   `json:"aliases,omitempty"`
	DeviceType       string     `json:"device_type"`
	Name             string     `json:"name"`
	Description      string     `json:"description"`
	NoDefaultCurrent bool       `json:"no_default_current,omitempty"`
	Params           []*dParam  `json:"params"`
	Firmware         *dFirmware `json:"firmware,omitempty"`
	ResetLevels      []int      `json:"reset_levels"` // nil: the double's default; []: none
	BurnError        string     `json:"burn_error,omitempty"`
}

type dParam struct {
	Name     string  `json:"name"`
	Default  string  `json:"default,omitempty"`
	Current  string  `json:"current,omitempty"`
	Next     string  `json:"next"`
	ReadOnly bool    `json:"ro,omitempty"`
	Max      *uint64 `json:"max,omitempty"`
}

type dFirmware struct {
	ImageType          string   `json:"image_type"`
	FWVersion          string   `json:"fw_version"`
	FWReleaseDate      string   `json:"fw_release_date"`
	ProductVersion     string   `json:"product_version"`
	RomInfo            []string `json:"rom_info"`
	Description        string   `json:"description"`
	BaseGUID           string   `json:"base_guid"`
	BaseMAC            string   `json:"base_mac"`
	ImageVSD           string   `json:"image_vsd"`
	DeviceVSD          string   `json:"device_vsd"`
	PSID               string   `json:"psid"`
	SecurityAttributes string   `json:"security_attributes"`
	RunningVersion     string   `json:"running_version,omitempty"`
}

// next makes parameters whose three values are the same.
func next(pairs ...string) []*dParam {
	var out []*dParam
	for i := 0; i+1 < len(pairs); i += 2 {
		out = append(out, &dParam{Name: pairs[i], Next: pairs[i+1]})
	}
	return out
}

const (
	cx7Single = "NVIDIA ConnectX-7 HHHL Adapter Card; 400GbE (default mode) / NDR IB; Single-port QSFP112; Port Split Capable; PCIe 5.0 x16 with x16 PCIe extension option; Crypto Disabled; Secure Boot Enabled"
	cx7OSFP   = "NVIDIA ConnectX-7 HHHL Adapter card; 400GbE / NDR IB (default mode); Single-port OSFP; PCIe 5.0 x16; Crypto Disabled; Secure Boot Enabled;"
)

// sample1Firmware is what flint showed for the Sample 1 card.
var sample1Firmware = &dFirmware{
	ImageType: "FS4", FWVersion: "28.42.1000", FWReleaseDate: "8.8.2024", ProductVersion: "28.42.1000",
	RomInfo:     []string{"type=UEFI version=14.35.15 cpu=AMD64,AARCH64", "type=PXE version=3.7.500 cpu=AMD64"},
	Description: "UID                GuidsNumber", BaseGUID: "e09d730300126474        16", BaseMAC: "e09d73126474            16",
	ImageVSD: "N/A", DeviceVSD: "N/A", PSID: "MT_0000001244", SecurityAttributes: "secure-fw",
}

func writeState(t *testing.T, path string, st *dState) {
	t.Helper()
	b, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func readState(t *testing.T, path string) *dState {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var st dState
	if err := json.Unmarshal(b, &st); err != nil {
		t.Fatal(err)
	}
	return &st
}

// double runs one tool of the double with the given state and stdin.
type doubleRun struct {
	stdout, stderr string
	exit           int
}

func runDouble(t *testing.T, statePath, stdin, prog string, args ...string) doubleRun {
	t.Helper()
	dir := buildDouble(t)
	cmd := exec.Command(filepath.Join(dir, prog), args...)
	cmd.Env = append(os.Environ(), "MLXCONFIG_DOUBLE_STATE="+statePath)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	r := doubleRun{stdout: out.String(), stderr: errb.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		r.exit = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return r
}

// matchExcerpt compares tool output with a published excerpt. A line that
// is only "(...)" or "..." in the excerpt stands for lines the author left
// out; the excerpt's last line is compared without trailing blanks, which
// the published copies lost. Everything else must match byte for byte.
func matchExcerpt(got, want string) error {
	segs := regexp.MustCompile(`(?m)^[ \t]*(\(\.\.\.\)|\.\.\.)\n`).Split(want, -1)
	trimLast := func(s string) string {
		s = strings.TrimSuffix(s, "\n")
		if i := strings.LastIndexByte(s, '\n'); i >= 0 {
			return s[:i+1] + strings.TrimRight(s[i+1:], " ")
		}
		return strings.TrimRight(s, " ")
	}
	pos := 0
	for i, seg := range segs {
		if seg == "" {
			continue
		}
		last := i == len(segs)-1
		if last {
			seg = trimLast(seg)
		}
		var at int
		if i == 0 {
			if !strings.HasPrefix(got, seg) {
				return fmt.Errorf("output does not start with the excerpt:\n%s", diff(got, seg))
			}
		} else if at = strings.Index(got[pos:], seg); at < 0 {
			return fmt.Errorf("excerpt segment %d not found in output:\n--- segment\n%q\n--- output\n%q", i, seg, got[pos:])
		}
		pos += at + len(seg)
		if last && strings.TrimRight(got[pos:], " \n") != "" {
			return fmt.Errorf("output goes on after the excerpt: %q", got[pos:])
		}
	}
	return nil
}

// diff shows the first differing line.
func diff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := range w {
		if i >= len(g) || g[i] != w[i] {
			gl := "<missing>"
			if i < len(g) {
				gl = fmt.Sprintf("%q", g[i])
			}
			return fmt.Sprintf("line %d:\n got  %s\n want %q", i+1, gl, w[i])
		}
	}
	return "(prefix matched)"
}

func sample2State() *dState {
	return &dState{Devices: []*dDevice{{
		Device: "/dev/mst/mt4129_pciconf1", Aliases: []string{"0000:2a:00.0"},
		DeviceType: "ConnectX7", Name: "MCX75310AAS-NEA_Ax", Description: cx7OSFP,
		Params: next(
			"MODULE_SPLIT_M0", "Array[0..15]",
			"MEMIC_BAR_SIZE", "0",
			"MEMIC_SIZE_LIMIT", "_256KB(1)",
			"MEMIC_ATOMIC", "MEMIC_ATOMIC_ENABLE(2)",
			"MEMIC_ATOMIC_ENDIANESS", "DEVICE_DEFAULT(0)",
			"HOST_CHAINING_MODE", "DISABLED(0)",
			"HOST_CHAINING_CACHE_DISABLE", "False(0)",
			"HOST_CHAINING_DESCRIPTORS", "Array[0..7]",
			"HOST_CHAINING_TOTAL_BUFFER_SIZE", "Array[0..7]",
			"FLEX_PARSER_PROFILE_ENABLE", "0",
			"PROG_PARSE_GRAPH", "False(0)",
			"FLEX_IPV4_OVER_VXLAN_PORT", "0",
			"ROCE_NEXT_PROTOCOL", "254",
			"ESWITCH_HAIRPIN_DESCRIPTORS", "Array[0..7]",
			"ESWITCH_HAIRPIN_TOT_BUFFER_SIZE", "Array[0..7]",
			"DPA_AUTHENTICATION", "True(1)",
			"PF_BAR2_SIZE", "0",
		),
	}}}
}

// TestDoubleMatchesSample2 is the strictest check: a state holding exactly
// the parameters of Sample 2 must print exactly its bytes, blank lines,
// "%-20s" padding and all.
func TestDoubleMatchesSample2(t *testing.T) {
	state := filepath.Join(t.TempDir(), "state.json")
	writeState(t, state, sample2State())
	r := runDouble(t, state, "", "mlxconfig", "-d", "/dev/mst/mt4129_pciconf1", "query")
	if r.exit != 0 || r.stderr != "" {
		t.Fatalf("exit %d, stderr %q", r.exit, r.stderr)
	}
	want := sample(t, "sample2-query.txt")
	want = "\n" + strings.TrimSuffix(want, "        ...\n") // the real output starts with a blank line
	if r.stdout != want {
		t.Errorf("output differs from Sample 2:\n%s", diff(r.stdout, want))
	}
	if err := matchExcerpt(r.stdout, "\n"+sample(t, "sample2-query.txt")); err != nil {
		t.Error(err)
	}
}

func sample1State() *dState {
	return &dState{Devices: []*dDevice{{
		Device: "/dev/mst/mt4129_pciconf0", Aliases: []string{"0000:37:00.0"},
		DeviceType: "ConnectX7", Name: "MCX715105AS-WEAT_Ax", Description: cx7Single,
		Firmware: sample1Firmware,
		Params: next(
			"MODULE_SPLIT_M0", "Array[0..15]",
			"MEMIC_BAR_SIZE", "0",
			"MEMIC_SIZE_LIMIT", "_256KB(1)",
			"NUM_OF_VFS", "8",
			"SRIOV_EN", "True(1)",
			"LINK_TYPE_P1", "ETH(2)",
			"ADVANCED_PCI_SETTINGS", "False(0)",
			"SAFE_MODE_THRESHOLD", "10",
			"SAFE_MODE_ENABLE", "True(1)",
		),
	}}}
}

func TestDoubleMatchesSample1(t *testing.T) {
	state := filepath.Join(t.TempDir(), "state.json")
	writeState(t, state, sample1State())
	r := runDouble(t, state, "", "mlxconfig", "-d", "/dev/mst/mt4129_pciconf0", "query")
	if r.exit != 0 {
		t.Fatalf("exit %d: %s", r.exit, r.stdout)
	}
	want := sample(t, "sample1-query.txt")
	want = want[strings.IndexByte(want, '\n')+1:] // drop the echoed command line
	if err := matchExcerpt(r.stdout, want); err != nil {
		t.Error(err)
	}

	// The grep'd query of the same card, through a PCI address.
	r = runDouble(t, state, "", "mlxconfig", "-d", "37:00.0", "query")
	grep := regexp.MustCompile(`Device type:|Name:|Description:|Configurations:|SRIOV_EN|LINK_TYPE|NUM_OF_VFS`)
	var lines []string
	for _, l := range strings.SplitAfter(r.stdout, "\n") {
		if grep.MatchString(l) {
			lines = append(lines, l)
		}
	}
	want = sample(t, "sample1-filtered.txt")
	want = want[strings.IndexByte(want, '\n')+1:]
	if err := matchExcerpt(strings.Join(lines, ""), want); err != nil {
		t.Error(err)
	}
}

// TestDoubleMatchesSample3 replays "mlxconfig -d 05:00.0 set NUM_OF_VFS=127"
// answered y, then the query through the card's other function. The
// published copy lost blank lines and trailing blanks, so both sides drop
// them before comparing.
func TestDoubleMatchesSample3(t *testing.T) {
	state := filepath.Join(t.TempDir(), "state.json")
	desc := "NVIDIA ConnectX-7 HHHL Adapter Card; 200GbE (default mode) / NDR200 IB; Dual-port QSFP112; PCIe 5.0 x16 with x16 PCIe extension option; Crypto Disabled; Secure Boot Enabled"
	writeState(t, state, &dState{Devices: []*dDevice{
		{Device: "/dev/mst/mt4129_pciconf0", Aliases: []string{"05:00.0", "05:00.1"}, DeviceType: "ConnectX7",
			Name: "MCX755106AS-HEA_Ax", Description: desc, Params: next("SRIOV_EN", "True(1)", "NUM_OF_VFS", "16")},
		{Device: "/dev/mst/mt4129_pciconf1", Aliases: []string{"0001:05:00.0", "0001:05:00.1"}, DeviceType: "ConnectX7",
			Name: "MCX755106AS-HEA_Ax", Description: desc, Params: next("SRIOV_EN", "True(1)", "NUM_OF_VFS", "16")},
	}})
	norm := func(s string) string {
		var out []string
		for _, l := range strings.Split(s, "\n") {
			if l = strings.TrimRight(l, " "); l != "" {
				out = append(out, l)
			}
		}
		return strings.Join(out, "\n")
	}
	want := strings.Split(sample(t, "sample3-set.txt"), "\n")
	setWant := norm(strings.Join(want[1:12], "\n"))
	queryWant := norm(want[13])

	set := runDouble(t, state, "", "mlxconfig", "-d", "05:00.0", "-y", "set", "NUM_OF_VFS=127")
	if set.exit != 0 {
		t.Fatalf("set: exit %d\n%s", set.exit, set.stdout)
	}
	if got := norm(set.stdout); got != setWant {
		t.Errorf("set output differs:\n%s", diff(got, setWant))
	}
	// The real layout before the copy lost it: blank line before the prompt,
	// the New column at 73.
	if !strings.Contains(set.stdout, "        NUM_OF_VFS                                  16                   127                 \n\n Apply new Configuration? (y/n) [n] : y\nApplying... Done!\n") {
		t.Errorf("set layout: %q", set.stdout)
	}

	q := runDouble(t, state, "", "mlxconfig", "-d", "05:00.1", "q")
	var got string
	for _, l := range strings.Split(q.stdout, "\n") {
		if strings.Contains(l, "NUM_OF_VFS") {
			got = strings.TrimRight(l, " ")
		}
	}
	if got != queryWant {
		t.Errorf("query through 05:00.1: %q, want %q", got, queryWant)
	}
	// The other card kept its value: state is per card.
	q = runDouble(t, state, "", "mlxconfig", "-d", "0001:05:00.0", "q", "NUM_OF_VFS")
	if !strings.Contains(q.stdout, "NUM_OF_VFS                                  16                  \n") {
		t.Errorf("second card changed too:\n%s", q.stdout)
	}
}

// TestDoubleVerboseLayout checks the -e table against the column offsets
// measured on real output: values at 52, 73 and 94, header labels Default
// at 57, Current at 77, Next Boot at 93; "*" in column 0 and the note.
func TestDoubleVerboseLayout(t *testing.T) {
	state := filepath.Join(t.TempDir(), "state.json")
	st := sample1State()
	st.Devices[0].Params = append(st.Devices[0].Params,
		&dParam{Name: "KEEP_IB_LINK_UP_P1", Default: "False(0)", Current: "True(1)", Next: "True(1)"},
		&dParam{Name: "PF_TOTAL_SF", Default: "0", Current: "0", Next: "0", ReadOnly: true})
	writeState(t, state, st)
	r := runDouble(t, state, "", "mlxconfig", "-d", "/dev/mst/mt4129_pciconf0", "-e", "query")
	if r.exit != 0 {
		t.Fatalf("exit %d", r.exit)
	}
	lines := strings.Split(r.stdout, "\n")
	var header, keep, ro string
	for _, l := range lines {
		switch {
		case strings.HasPrefix(l, "Configurations:"):
			header = l
		case strings.Contains(l, "KEEP_IB_LINK_UP_P1"):
			keep = l
		case strings.Contains(l, "PF_TOTAL_SF"):
			ro = l
		}
	}
	if strings.Index(header, "Default") != 57 || strings.Index(header, "Current") != 77 || strings.Index(header, "Next Boot") != 93 {
		t.Errorf("header %q", header)
	}
	if keep[0] != '*' || keep[8:26] != "KEEP_IB_LINK_UP_P1" || keep[52:60] != "False(0)" || keep[73:80] != "True(1)" || keep[94:101] != "True(1)" {
		t.Errorf("row %q", keep)
	}
	if ro[:8] != " RO     " {
		t.Errorf("RO row %q", ro)
	}
	if !strings.Contains(r.stdout, "\nThe '*' shows parameters with next value different from default/current value.\n\nThe 'RO' shows parameters which are for read only and cannot be changed\n") {
		t.Errorf("notes missing:\n%s", r.stdout)
	}
	cfg, err := ParseQuery(r.stdout)
	if err != nil {
		t.Fatal(err)
	}
	if p := cfg.Params["KEEP_IB_LINK_UP_P1"]; !p.Modified || p.Default.Raw != "False(0)" || p.Current.Raw != "True(1)" {
		t.Errorf("parsed back: %+v", p)
	}
	if p := cfg.Params["PF_TOTAL_SF"]; !p.ReadOnly {
		t.Errorf("parsed back: %+v", p)
	}
}

func TestDoubleFailsLikeTheTool(t *testing.T) {
	state := filepath.Join(t.TempDir(), "state.json")
	writeState(t, state, sample1State())
	dev := "/dev/mst/mt4129_pciconf0"
	opening := "\nDevice #1:\n----------\n\nDevice type:        ConnectX7           \nName:               MCX715105AS-WEAT_Ax \nDescription:        " + cx7Single + "\nDevice:             " + dev + "\n\n"
	cases := []struct {
		name   string
		stdin  string
		prog   string
		args   []string
		exit   int
		stdout string
		stderr string
	}{
		{"bad device", "", "mstconfig", []string{"-d", "0000:3b:00.0", "query"}, 3, "-E- Failed to open the device\n", ""},
		{"bad mst device with mstconfig", "", "mstconfig", []string{"-d", "/dev/mst/mt4129_pciconf9", "query"}, 3,
			"-E- Failed to open the device\n", "Unable to parse device name /dev/mst/mt4129_pciconf9\n"},
		{"no devices at all", "", "mlxconfig", []string{"query"}, 0, "", ""}, // replaced below with an empty state
		{"unknown parameter", "", "mlxconfig", []string{"-d", dev, "-y", "set", "FOO_BAR=1"}, 3,
			opening + "Configurations:                                          Next Boot       New\n-E- Unknown Parameter: FOO_BAR\n", ""},
		{"parameter the device lacks", "", "mlxconfig", []string{"-d", dev, "-y", "set", "LINK_TYPE_P2=IB"}, 3,
			opening + "Configurations:                                          Next Boot       New\n-E- The Device doesn't support LINK_TYPE_P2 parameter\n", ""},
		{"query of a parameter the device lacks", "", "mlxconfig", []string{"-d", dev, "query", "SRIOV_EN", "LINK_TYPE_P2"}, 3,
			opening + "Configurations:                                          Next Boot\n-E- The Device doesn't support LINK_TYPE_P2 parameter\n", ""},
		{"bad enum value", "", "mlxconfig", []string{"-d", dev, "-y", "set", "LINK_TYPE_P1=INFINIBAND"}, 3,
			opening + "Configurations:                                          Next Boot       New\n-E- Unknown value INFINIBAND\n", ""},
		{"number too wide", "", "mlxconfig", []string{"-d", dev, "-y", "set", "NUM_OF_VFS=70000"}, 3,
			opening + "Configurations:                                          Next Boot       New\n-E- The value 70000 is not valid,  as its size is 16 bits\n", ""},
		{"declined prompt", "n\n", "mlxconfig", []string{"-d", dev, "set", "SRIOV_EN=0"}, 2,
			opening + "Configurations:                                          Next Boot       New\n" +
				"        SRIOV_EN                                    True(1)              False(0)            \n\n Apply new Configuration? (y/n) [n] : -E- Aborted by user.\n", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			st := state
			if c.name == "no devices at all" {
				st = filepath.Join(t.TempDir(), "missing.json")
				c.exit, c.stdout = 3, "-E- Failed to get devices.\n"
			}
			r := runDouble(t, st, c.stdin, c.prog, c.args...)
			if r.exit != c.exit || r.stdout != c.stdout || r.stderr != c.stderr {
				t.Errorf("exit %d, want %d\nstdout %q\nwant   %q\nstderr %q, want %q", r.exit, c.exit, r.stdout, c.stdout, r.stderr, c.stderr)
			}
		})
	}
	// Usage errors print the message and the help, as the real tool does.
	r := runDouble(t, state, "", "mstconfig", "-d", dev, "set", "A=1=2")
	if r.exit != 3 || !strings.HasPrefix(r.stdout, "-E- Invalid Configuration argument A\n    NAME:\n        mstconfig\n") {
		t.Errorf("usage error: exit %d\n%s", r.exit, r.stdout)
	}
	// Nothing failed was written.
	if p := readState(t, state).Devices[0].Params[4]; p.Name != "SRIOV_EN" || p.Next != "True(1)" {
		t.Errorf("state changed by failed commands: %+v", p)
	}
}

func TestDoublePromptAndState(t *testing.T) {
	state := filepath.Join(t.TempDir(), "state.json")
	writeState(t, state, sample1State())
	r := runDouble(t, state, "y\n", "mlxconfig", "-d", "/dev/mst/mt4129_pciconf0", "set", "LINK_TYPE_P1=ib", "NUM_OF_VFS=0x10")
	if r.exit != 0 {
		t.Fatalf("exit %d\n%s", r.exit, r.stdout)
	}
	for _, want := range []string{
		"        LINK_TYPE_P1                                ETH(2)               IB(1)               \n",
		"        NUM_OF_VFS                                  8                    0x10(16)            \n",
		"\n Apply new Configuration? (y/n) [n] : Applying... Done!\n-I- Please reboot machine to load new configurations.\n",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("missing %q in\n%s", want, r.stdout)
		}
	}
	st := readState(t, state)
	got := map[string]*dParam{}
	for _, p := range st.Devices[0].Params {
		got[p.Name] = p
	}
	if p := got["LINK_TYPE_P1"]; p.Next != "IB(1)" || p.Current != "ETH(2)" {
		t.Errorf("LINK_TYPE_P1 in state: %+v", p)
	}
	if p := got["NUM_OF_VFS"]; p.Next != "16" || p.Current != "8" {
		t.Errorf("NUM_OF_VFS in state: %+v", p)
	}
	// -e now marks the pending values.
	r = runDouble(t, state, "", "mlxconfig", "-d", "/dev/mst/mt4129_pciconf0", "-e", "q", "LINK_TYPE_P1")
	if !strings.Contains(r.stdout, "*       LINK_TYPE_P1                                ETH(2)               ETH(2)               IB(1)               \n") {
		t.Errorf("-e after set:\n%s", r.stdout)
	}
}

func TestDoubleFlintAndReset(t *testing.T) {
	state := filepath.Join(t.TempDir(), "state.json")
	writeState(t, state, sample1State())
	r := runDouble(t, state, "", "flint", "-d", "/dev/mst/mt4129_pciconf0", "query")
	if want := sample(t, "flint-query.txt"); r.exit != 0 || r.stdout != want {
		t.Errorf("flint query differs:\n%s", diff(r.stdout, want))
	}
	r = runDouble(t, state, "", "mstflint", "-d", "3b:00.0", "q")
	if r.exit != 1 || r.stdout != "-E- Cannot open Device: 3b:00.0. No such file or directory. MFE_CR_ERROR\n" {
		t.Errorf("mstflint bad device: %d %q", r.exit, r.stdout)
	}
	runDouble(t, state, "", "mlxconfig", "-d", "/dev/mst/mt4129_pciconf0", "-y", "set", "SRIOV_EN=0")
	r = runDouble(t, state, "", "mlxfwreset", "-d", "/dev/mst/mt4129_pciconf0", "reset", "-y")
	if want := sample(t, "mlxfwreset.txt"); r.exit != 0 || r.stdout != want {
		t.Errorf("mlxfwreset differs:\n%s", diff(r.stdout, want))
	}
	for _, p := range readState(t, state).Devices[0].Params {
		if p.Name == "SRIOV_EN" && (p.Current != "False(0)" || p.Next != "False(0)") {
			t.Errorf("after reset: %+v", p)
		}
	}
}
