package opensm

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
)

func TestPartitionsRoundTrip(t *testing.T) {
	cfg := baseConfig()
	cfg.Options["qos"] = "TRUE"
	var many []Member
	for i := 0; i < 300; i++ { // more than one 4096-byte line would hold
		many = append(many, Member{GUID: GUID(0x0002c90300100001 + 0x10*i), Membership: Full})
	}
	cfg.Partitions = append(cfg.Partitions,
		Partition{Name: "storage", PKey: 0x0002, SL: 1, Members: []Member{{Keyword: "ALL_CAS", Membership: Limited}, {Keyword: "SELF", Membership: Full}}},
		Partition{Name: "big.tenant-1", PKey: 0x7ffe, IPoIB: true, MTU: 2048, RateGbps: 200, Members: many},
		Partition{Name: "empty", PKey: 0x0100},
	)
	for _, def := range []string{Full, Limited} {
		cfg.DefaultMembership = def
		f, err := Render(cfg)
		if err != nil {
			t.Fatal(err)
		}
		text := f[FilePartitions]
		for _, line := range strings.Split(text, "\n") {
			if len(line) >= 4096 {
				t.Fatalf("a line of %d bytes: OpenSM reads 4096-byte lines", len(line))
			}
		}
		got, err := ParsePartitions(text)
		if err != nil {
			t.Fatalf("ParsePartitions of rendered text: %v\n%s", err, text)
		}
		want := append([]Partition{cfg.defaultPartition()}, cfg.Partitions...)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("round trip (default %s):\ngot  %+v\nwant %+v\ntext:\n%s", def, got, want, text)
		}
	}
}

func TestRenderPartitionEnums(t *testing.T) {
	cfg := baseConfig()
	cfg.Partitions[0].MTU, cfg.Partitions[0].RateGbps = 2048, 100
	f, err := Render(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(f[FilePartitions], "compute=0x0001,ipoib,mtu=4,rate=16 :") {
		t.Errorf("mtu 2048 -> 4, rate 100G -> 16:\n%s", f[FilePartitions])
	}
}

// TestPartitionRatesRoundTrip writes every rate a partition may declare and reads it back: the
// code written is the one OpenSM 3.3.23's include/iba/ib_types.h gives the rate (copied here by
// hand, not from fabric.PathRates), and a rate no flavour knows is refused on the partition's rate.
func TestPartitionRatesRoundTrip(t *testing.T) {
	ibTypes := map[float64]int{ // IB_PATH_RECORD_RATE_*_GBS, 3.3.23
		2.5: 2, 10: 3, 30: 4, 5: 5, 20: 6, 40: 7, 60: 8, 80: 9, 120: 10, 14: 11, 56: 12, 112: 13,
		168: 14, 25: 15, 100: 16, 200: 17, 300: 18, 28: 19, 50: 20, 400: 21, 600: 22,
	}
	rates := []float64{2.5}
	for _, r := range fabric.PartitionRates {
		rates = append(rates, float64(r))
	}
	if len(rates) != len(ibTypes) {
		t.Errorf("a partition may declare %d rates (with 2.5), ib_types.h has %d", len(rates), len(ibTypes))
	}
	for _, flavor := range []Flavor{FlavorOpenSM, FlavorNVIDIA} {
		for _, g := range rates {
			cfg := baseConfig()
			cfg.Flavor = flavor
			cfg.Partitions[0].RateGbps = g
			f, err := Render(cfg)
			if err != nil {
				t.Fatalf("%s, rate %g: %v", flavor, g, err)
			}
			if want := fmt.Sprintf("compute=0x0001,ipoib,mtu=5,rate=%d :", ibTypes[g]); !strings.Contains(f[FilePartitions], want) {
				t.Errorf("%s, rate %g Gb/s: want %q in\n%s", flavor, g, want, f[FilePartitions])
			}
			back, err := ParsePartitions(f[FilePartitions])
			if err != nil || len(back) != 2 || back[1].RateGbps != g {
				t.Errorf("%s, rate %g Gb/s reads back as %+v, %v", flavor, g, back, err)
			}
		}
		cfg := baseConfig()
		cfg.Flavor = flavor
		cfg.Partitions[0].RateGbps = 800
		_, err := Render(cfg)
		var errs Errors
		if !errors.As(err, &errs) || len(errs) != 1 || errs[0].Field != "partitions[0].rate" {
			t.Errorf("%s, rate 800: %v; want one error on the partition's rate", flavor, err)
		}
	}
}

// TestParsePartitionsManPage reads the man page's example as OpenSM does: prefixes ("limi"),
// omitted membership (limited), mgid lines, comments, a definition over several lines.
func TestParsePartitionsManPage(t *testing.T) {
	text := `Default=0x7fff,ipoib : ALL=full ;
NewPartition=0x123 , ipoib : 0x123456=full, 0x3456789034=limi, 0x2134af2306 ;
YetAnotherOne = 0x300 : SELF=full ;
Other=0x7fff,ipoib:
        mgid=ff12:401b::0707,sl=1 # random IPv4 group
        mgid=ff12::1,sl=1,Q_Key=0xDEADBEEF,rate=3,mtu=2
        ALL=full;
`
	got, err := ParsePartitions(text)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 4 {
		t.Fatalf("%d partitions: %+v", len(got), got)
	}
	np := got[1]
	if np.Name != "NewPartition" || np.PKey != 0x123 || !np.IPoIB || len(np.Members) != 3 ||
		np.Members[0].Membership != Full || np.Members[1].Membership != Limited || np.Members[2].Membership != Limited ||
		np.Members[2].GUID != 0x2134af2306 {
		t.Errorf("NewPartition: %+v", np)
	}
	if got[2].Name != "YetAnotherOne" || got[2].PKey != 0x300 || got[2].Members[0].Keyword != "SELF" {
		t.Errorf("YetAnotherOne: %+v", got[2])
	}
	o := got[3]
	if len(o.MGroups) != 2 || o.MGroups[0] != "mgid=ff12:401b::0707,sl=1" || len(o.Members) != 1 || o.Members[0].Keyword != "ALL" {
		t.Errorf("mgid partition: %+v", o)
	}
}

func TestParsePartitionsErrors(t *testing.T) {
	cases := map[string]string{
		"Default=0x7fff : ALL=full ;\nx=0x1 : 0x12=fool ;": "unrecognized membership",
		"x=0x1,ipoib,bogus=3 : ALL=full ;":                 "unrecognized partition flag",
		"x=0x1 : 0002c903=full ;":                          "0x-prefixed",
		"x=0x1 : 0xzz=full ;":                              "bad PortGUID",
		"x=0x1 : ALL=full":                                 "not closed",
		"just words ;":                                     "no partition definition",
		"12 : ALL=full ;":                                  "leading number as the P_Key",
		"x : ALL=full ;":                                   "no P_Key",
		"x=0x1,mtu=9 : ALL=full ;":                         "not an IBTA MTU code",
		"x=0x1,rate=99 : ALL=full ;":                       "not an IBTA rate code",
		"x=0x1,defmember=full : 0x1 ;":                     "not managed",
		"x=0x1 : 0x1=both ;":                               "allow_both_pkeys",
		"x=0x1,sl=16 : ALL ;":                              "0-15",
		"x=0x1, : ALL ;":                                   "empty flag",
		"x=0x10000 : ALL ;":                                "bad P_Key",
		"x=0x1 :\r\n\t0x1=full,\r\n\tALL ;\r\n":            "carriage return",
		"Default=0x7fff : ALL=full ;\ny=0x2 : ALL ;\nz=0x3 : ALL=fu ;": "", // prefixes are fine
	}
	for text, want := range cases {
		_, err := ParsePartitions(text)
		if want == "" {
			if err != nil {
				t.Errorf("ParsePartitions(%q) = %v, want nil", text, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParsePartitions(%q) = %v, want an error containing %q", text, err, want)
		}
	}
	// Errors name the line.
	_, err := ParsePartitions("Default=0x7fff : ALL=full ;\n\n# c\nx=0x1 : 0xzz ;\n")
	if err == nil || !strings.Contains(err.Error(), "partitions.conf:4") {
		t.Errorf("error should name line 4: %v", err)
	}
}

func TestKeywordPrefixes(t *testing.T) {
	for name, want := range map[string]string{"A": "ALL", "ALL": "ALL", "ALL_": "ALL_CAS", "ALL_S": "ALL_SWITCHES", "ALL_R": "ALL_ROUTERS", "S": "SELF", "SELF": "SELF", "0x1": "", "ALLX": ""} {
		if got := keywordByPrefix(name); got != want {
			t.Errorf("keywordByPrefix(%q) = %q, want %q", name, got, want)
		}
	}
}

// FuzzParsePartitions: whatever ParsePartitions reads (cleanly or not: it returns the
// partitions as far as they could be read), rendering them and reading the text back gives the
// same partitions and the same text again, and a clean parse stays clean. The seed corpus in
// testdata/fuzz/FuzzParsePartitions keeps the inputs that once broke this, such as
// "A=01:mgid \nA;" whose mgid entry came back as "mgid,".
func FuzzParsePartitions(f *testing.F) {
	f.Add("Default=0x7fff,ipoib : ALL=full ;\ncompute=0x0001,ipoib,mtu=5,rate=21 :\n\t0x0002c90300100001=full,\n\tSELF=full ;\n")
	f.Add("x=0x1:mgid=ff12::1,sl=1\nALL;")
	f.Add(";;::==,,##")
	f.Add("A=01:mgid \nA;")
	f.Fuzz(func(t *testing.T, s string) {
		parts, err := ParsePartitions(s)
		text := renderAll(parts)
		again, err2 := ParsePartitions(text)
		if err == nil && err2 != nil {
			t.Fatalf("%q parses cleanly, its rendering does not:\n%s\n%v", s, text, err2)
		}
		if !samePartitions(again, parts) {
			t.Fatalf("round trip of %q changed the partitions:\nrendered:\n%s\nparsed back %+v\nwant %+v", s, text, again, parts)
		}
		if text2 := renderAll(again); text2 != text {
			t.Fatalf("rendering is not stable for %q:\n%s\nthen\n%s", s, text, text2)
		}
	})
}

func renderAll(parts []Partition) string {
	var b strings.Builder
	for _, p := range parts {
		writePartition(&b, p)
	}
	return b.String()
}

// samePartitions is reflect.DeepEqual with nil and empty lists taken as the same.
func samePartitions(a, b []Partition) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := a[i], b[i]
		if len(x.Members) == 0 && len(y.Members) == 0 {
			x.Members, y.Members = nil, nil
		}
		if len(x.MGroups) == 0 && len(y.MGroups) == 0 {
			x.MGroups, y.MGroups = nil, nil
		}
		if !reflect.DeepEqual(x, y) {
			return false
		}
	}
	return true
}
