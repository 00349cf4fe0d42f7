package hca

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func sample(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "samples", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestParseSample1(t *testing.T) {
	cfg, err := ParseQuery(sample(t, "sample1-query.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Index != 1 || cfg.DeviceType != "ConnectX7" || cfg.Name != "MCX715105AS-WEAT_Ax" ||
		cfg.Device != "/dev/mst/mt4129_pciconf0" {
		t.Errorf("header = %+v", cfg)
	}
	if want := "NVIDIA ConnectX-7 HHHL Adapter Card; 400GbE (default mode) / NDR IB; Single-port QSFP112; Port Split Capable; PCIe 5.0 x16 with x16 PCIe extension option; Crypto Disabled; Secure Boot Enabled"; cfg.Description != want {
		t.Errorf("Description = %q", cfg.Description)
	}
	if !reflect.DeepEqual(cfg.Columns, []string{"Next Boot"}) {
		t.Errorf("Columns = %q", cfg.Columns)
	}
	// The "(...)" elision is not a parameter.
	wantOrder := []string{"MODULE_SPLIT_M0", "MEMIC_BAR_SIZE", "MEMIC_SIZE_LIMIT", "ADVANCED_PCI_SETTINGS", "SAFE_MODE_THRESHOLD", "SAFE_MODE_ENABLE"}
	if !reflect.DeepEqual(cfg.Order, wantOrder) {
		t.Errorf("Order = %q", cfg.Order)
	}
	checks := map[string]Value{
		"MODULE_SPLIT_M0":       {Raw: "Array[0..15]"},
		"MEMIC_BAR_SIZE":        {Raw: "0", Num: 0, HasNum: true},
		"MEMIC_SIZE_LIMIT":      {Raw: "_256KB(1)", Text: "_256KB", Num: 1, HasNum: true},
		"ADVANCED_PCI_SETTINGS": {Raw: "False(0)", Text: "False", HasNum: true},
		"SAFE_MODE_THRESHOLD":   {Raw: "10", Num: 10, HasNum: true},
		"SAFE_MODE_ENABLE":      {Raw: "True(1)", Text: "True", Num: 1, HasNum: true},
	}
	for n, want := range checks {
		p := cfg.Params[n]
		if p.Next != want {
			t.Errorf("%s Next = %+v, want %+v", n, p.Next, want)
		}
		if p.Modified || p.ReadOnly || p.Current.Known() || p.Default.Known() || p.Pending() {
			t.Errorf("%s = %+v", n, p)
		}
	}
	if !cfg.Params["MODULE_SPLIT_M0"].Next.IsArray() {
		t.Error("Array[0..15] not seen as an array")
	}
}

func TestParseSample1Filtered(t *testing.T) {
	// grep'd output: no "Device #1:" line, no Device: line.
	cfg, err := ParseQuery(sample(t, "sample1-filtered.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.DeviceType != "ConnectX7" || cfg.Name != "MCX715105AS-WEAT_Ax" {
		t.Errorf("header = %+v", cfg)
	}
	if !reflect.DeepEqual(cfg.Order, []string{"NUM_OF_VFS", "SRIOV_EN", "LINK_TYPE_P1"}) {
		t.Errorf("Order = %q", cfg.Order)
	}
	if got := cfg.Params["LINK_TYPE_P1"].Next; got.Text != "ETH" || got.Num != 2 {
		t.Errorf("LINK_TYPE_P1 = %+v", got)
	}
	if got := cfg.Params["NUM_OF_VFS"].Next; got.Num != 8 || !got.HasNum || got.Text != "" {
		t.Errorf("NUM_OF_VFS = %+v", got)
	}
	if !Equal("LINK_TYPE_P1", cfg.Params["LINK_TYPE_P1"].Next.Raw, "eth") {
		t.Error("ETH(2) should equal eth")
	}
}

func TestParseSample2(t *testing.T) {
	cfg, err := ParseQuery(sample(t, "sample2-query.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Name != "MCX75310AAS-NEA_Ax" || cfg.Device != "/dev/mst/mt4129_pciconf1" {
		t.Errorf("header = %+v", cfg)
	}
	if len(cfg.Order) != 17 {
		t.Errorf("%d parameters, want 17: %q", len(cfg.Order), cfg.Order)
	}
	if got := cfg.Params["MEMIC_ATOMIC"].Next; got.Text != "MEMIC_ATOMIC_ENABLE" || got.Num != 2 {
		t.Errorf("MEMIC_ATOMIC = %+v", got)
	}
	if got := cfg.Params["ROCE_NEXT_PROTOCOL"].Next; got.Num != 254 {
		t.Errorf("ROCE_NEXT_PROTOCOL = %+v", got)
	}
	// Every value the real card printed is valid for the database.
	for _, n := range cfg.Order {
		v := cfg.Params[n].Next
		if v.IsArray() {
			continue
		}
		if got, err := Normalize(n, v.Raw); err != nil || got != v.Raw {
			t.Errorf("Normalize(%s, %s) = %q, %v", n, v.Raw, got, err)
		}
	}
}

func TestParseSample3Set(t *testing.T) {
	cfg, err := ParseQuery(sample(t, "sample3-set.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Device != "05:00.0" || cfg.Name != "MCX755106AS-HEA_Ax" {
		t.Errorf("header = %+v", cfg)
	}
	if !reflect.DeepEqual(cfg.Columns, []string{"Next Boot", "New"}) {
		t.Errorf("Columns = %q", cfg.Columns)
	}
	// The set table and the grep'd query after it both show NUM_OF_VFS;
	// the later line wins, as it is the later state.
	p := cfg.Params["NUM_OF_VFS"]
	if p.Next.Num != 127 {
		t.Errorf("NUM_OF_VFS = %+v", p)
	}
	if len(cfg.Info) != 1 || cfg.Info[0] != "Please reboot machine to load new configurations." {
		t.Errorf("Info = %q", cfg.Info)
	}
	if len(cfg.Order) != 1 {
		t.Errorf("prose parsed as parameters: %q", cfg.Order)
	}
	// The set table alone.
	set, err := ParseQuery(sample(t, "sample3-set.txt")[:600])
	if err != nil {
		t.Fatal(err)
	}
	if p := set.Params["NUM_OF_VFS"]; p.Next.Num != 16 || p.New.Num != 127 {
		t.Errorf("set table NUM_OF_VFS = %+v", p)
	}
}

func TestParseEnableVerbosityOldLayout(t *testing.T) {
	cfg, err := ParseQuery(sample(t, "sample-e-query.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(cfg.Columns, []string{"Default", "Current", "Next Boot"}) {
		t.Errorf("Columns = %q", cfg.Columns)
	}
	k := cfg.Params["KEEP_IB_LINK_UP_P2"]
	if !k.Modified || k.Default.Raw != "False(0)" || k.Current.Raw != "True(1)" || k.Next.Raw != "True(1)" || k.Pending() {
		t.Errorf("KEEP_IB_LINK_UP_P2 = %+v", k)
	}
	m := cfg.Params["MEMIC_SIZE_LIMIT"]
	if !m.Modified || m.Current.Raw != "_256KB(1)" || m.Next.Raw != "DISABLED(0)" || !m.Pending() {
		t.Errorf("MEMIC_SIZE_LIMIT = %+v", m)
	}
	if p := cfg.Params["KEEP_LINK_UP_ON_BOOT_P2"]; p.Modified || p.Pending() {
		t.Errorf("KEEP_LINK_UP_ON_BOOT_P2 = %+v", p)
	}
	if p := cfg.Params["ESWITCH_HAIRPIN_DESCRIPTORS"]; !p.Next.IsArray() || p.Pending() {
		t.Errorf("ESWITCH_HAIRPIN_DESCRIPTORS = %+v", p)
	}
	if len(cfg.Order) != 4 {
		t.Errorf("Order = %q", cfg.Order)
	}
}

func TestParseErrorsAndReadOnly(t *testing.T) {
	out := "-E- Failed to open the device\n"
	cfg, err := ParseQuery(out)
	if err != nil || len(cfg.Errors) != 1 || cfg.Errors[0] != "Failed to open the device" {
		t.Errorf("ParseQuery(%q) = %+v, %v", out, cfg, err)
	}
	row := "*RO     PF_TOTAL_SF                                 0                    0                    4                   \n"
	cfg, err = ParseQuery("Configurations:                                              Default             Current           Next Boot\n" + row)
	if err != nil {
		t.Fatal(err)
	}
	p := cfg.Params["PF_TOTAL_SF"]
	if !p.ReadOnly || !p.Modified || p.Next.Num != 4 || p.Current.Num != 0 {
		t.Errorf("RO row = %+v", p)
	}
	if _, err := ParseQuery(""); err == nil {
		t.Error("empty output parsed")
	}
}

func TestParseFlintQuery(t *testing.T) {
	fi, err := ParseFlintQuery(sample(t, "flint-query.txt"))
	if err != nil {
		t.Fatal(err)
	}
	want := FirmwareInfo{
		ImageType: "FS4", FWVersion: "28.42.1000", FWReleaseDate: "8.8.2024", ProductVersion: "28.42.1000",
		RomInfo:     []string{"type=UEFI version=14.35.15 cpu=AMD64,AARCH64", "type=PXE version=3.7.500 cpu=AMD64"},
		Description: "UID                GuidsNumber", BaseGUID: "e09d730300126474", BaseMAC: "e09d73126474",
		ImageVSD: "N/A", DeviceVSD: "N/A", PSID: "MT_0000001244", SecurityAttributes: "secure-fw",
	}
	fi.Fields = nil
	if !reflect.DeepEqual(*fi, want) {
		t.Errorf("got  %+v\nwant %+v", *fi, want)
	}
	if _, err := ParseFlintQuery("-E- Cannot open Device: 3b:00.0. No such file or directory. MFE_CR_ERROR\n"); err == nil {
		t.Error("flint error not reported")
	}
}
