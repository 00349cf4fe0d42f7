package ufm

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/partition"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/testrig"
)

func newClient(t *testing.T, u *testrig.UFM, token bool) *Client {
	t.Helper()
	cfg := Config{URL: u.URL, Username: u.Username, Password: u.Password, CAPEM: u.CAPEM, Timeout: 5 * time.Second}
	if token {
		cfg.Username, cfg.Password, cfg.Token = "", "", u.Token
	}
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

const (
	gA = partition.GUID(0x0002c90300a00001)
	gB = partition.GUID(0x0002c90300a00002)
	gC = partition.GUID(0x0002c90300a00003)
)

func mem(g partition.GUID, m string) partition.Member {
	return partition.Member{GUID: g, Membership: m}
}

// want is what the service must hold, written out by hand from the declaration (UFM's own
// words: 16 hex digits, membership words, IB MTU codes, rate in Gb/s).
func pk(name string, ipoib bool, mtu int, rate float64, sl int, guids ...testrig.UFMGUID) testrig.UFMPKey {
	return testrig.UFMPKey{Name: name, IPoIB: ipoib, MTULimit: mtu, RateLimit: rate, ServiceLevel: sl, GUIDs: guids}
}

func ug(g, m string, i0 bool) testrig.UFMGUID {
	return testrig.UFMGUID{GUID: g, Membership: m, Index0: i0}
}

var management = pk("management", true, 2, 2.5, 0)

func checkHeld(t *testing.T, u *testrig.UFM, want map[uint16]testrig.UFMPKey) {
	t.Helper()
	got := u.PKeys()
	for k, w := range want {
		if len(w.GUIDs) == 0 {
			w.GUIDs = nil
		}
		g := got[k]
		if len(g.GUIDs) == 0 {
			g.GUIDs = nil
		}
		if !reflect.DeepEqual(g, w) {
			t.Errorf("UFM holds 0x%04x = %+v, want %+v", k, got[k], w)
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("UFM holds unexpected P_Key 0x%04x: %+v", k, got[k])
		}
	}
}

func TestApplyEndsExactlyAsDeclared(t *testing.T) {
	u := testrig.StartUFM(t, testrig.UFMOptions{})
	ctx := context.Background()
	// A PKey someone else made: never touched, since it is neither declared nor owned.
	foreign := pk("other_team", true, 2, 2.5, 0, ug("0002c90300ffff01", "full", false))
	u.SetPKey(0x0300, foreign)
	tg := Target{Client: newClient(t, u, false)}

	v1 := []partition.Partition{
		{Name: "tenant_a", PKey: 0x0101, IPoIB: true, Index0: true, MTU: 4096, RateGbps: 200, SL: 1,
			Members: []partition.Member{mem(gA, partition.Full), mem(gB, partition.Limited)}},
		{Name: "storage", PKey: 0x0102, IPoIB: false, Members: []partition.Member{mem(gC, partition.Full)}},
	}
	got, err := tg.Apply(ctx, v1, nil)
	if err != nil {
		t.Fatal(err)
	}
	checkHeld(t, u, map[uint16]testrig.UFMPKey{
		0x7fff: management, 0x0300: foreign,
		0x0101: pk("tenant_a", true, 4, 200, 1, ug("0002c90300a00001", "full", true), ug("0002c90300a00002", "limited", true)),
		0x0102: pk("storage", false, 2, 2.5, 0, ug("0002c90300a00003", "full", false)),
	})
	if !reflect.DeepEqual(got, v1) {
		t.Errorf("Apply returned\n%+v\nwant what was declared\n%+v", got, v1)
	}

	// Update: B becomes full, A leaves, C joins as limited, QoS changes; storage is dropped
	// from the declaration and was owned, so it goes.
	v2 := []partition.Partition{
		{Name: "tenant_a", PKey: 0x0101, IPoIB: true, Index0: true, MTU: 2048, RateGbps: 100, SL: 2,
			Members: []partition.Member{mem(gB, partition.Full), mem(gC, partition.Limited)}},
	}
	got, err = tg.Apply(ctx, v2, []uint16{0x0101, 0x0102})
	if err != nil {
		t.Fatal(err)
	}
	// MTU 2048 is UFM's default code 2 and reads back as 0 (the default), as declared MTU 0 does.
	checkHeld(t, u, map[uint16]testrig.UFMPKey{
		0x7fff: management, 0x0300: foreign,
		0x0101: pk("tenant_a", true, 2, 100, 2, ug("0002c90300a00002", "full", true), ug("0002c90300a00003", "limited", true)),
	})
	if len(got) != 1 || got[0].PKey != 0x0101 || len(got[0].Members) != 2 {
		t.Errorf("Apply returned %+v, want only tenant_a with two members", got)
	}

	// Idempotent: a second apply of the same declaration sends no change.
	before := len(u.Requests())
	if _, err := tg.Apply(ctx, v2, []uint16{0x0101}); err != nil {
		t.Fatal(err)
	}
	for _, r := range u.Requests()[before:] {
		if !strings.HasPrefix(r, "GET ") {
			t.Errorf("a converged apply sent %s", r)
		}
	}

	// Destroy: only what it owns; 0x7fff and the foreign PKey stay.
	if err := tg.Remove(ctx, []uint16{0x0101}); err != nil {
		t.Fatal(err)
	}
	checkHeld(t, u, map[uint16]testrig.UFMPKey{0x7fff: management, 0x0300: foreign})
	if err := tg.Remove(ctx, []uint16{0x0101}); err != nil {
		t.Errorf("removing an absent P_Key: %v", err)
	}
}

func TestNeverTheManagementPKeyNorTheMembershipBit(t *testing.T) {
	u := testrig.StartUFM(t, testrig.UFMOptions{})
	tg := Target{Client: newClient(t, u, false)}
	ctx := context.Background()
	if err := tg.Remove(ctx, []uint16{0x7fff}); err == nil || !strings.Contains(err.Error(), "management") {
		t.Errorf("Remove(0x7fff) = %v, want a refusal naming the management partition", err)
	}
	for _, bad := range []partition.Partition{
		{Name: "m", PKey: 0x7fff},
		{Name: "bit", PKey: 0x8101},
		{Name: "zero", PKey: 0},
		{Name: "kw", PKey: 0x10, Members: []partition.Member{{Keyword: "ALL", Membership: partition.Full}}},
	} {
		if _, err := tg.Apply(ctx, []partition.Partition{bad}, nil); err == nil {
			t.Errorf("Apply(%+v) succeeded", bad)
		}
	}
	before := u.Requests()
	for _, r := range before {
		if !strings.HasPrefix(r, "GET ") {
			t.Errorf("a refused apply reached UFM: %s", r)
		}
	}
	if _, ok := u.PKeys()[0x7fff]; !ok {
		t.Error("the management PKey is gone")
	}
}

func TestDriftBehindTerraformsBackIsFoundAndRepaired(t *testing.T) {
	u := testrig.StartUFM(t, testrig.UFMOptions{})
	tg := Target{Client: newClient(t, u, true)} // token authentication on /ufmRestV3
	ctx := context.Background()
	decl := []partition.Partition{{Name: "t", PKey: 0x0201, IPoIB: true,
		Members: []partition.Member{mem(gA, partition.Full), mem(gB, partition.Full)}}}
	if _, err := tg.Apply(ctx, decl, nil); err != nil {
		t.Fatal(err)
	}
	u.RemoveGUID(0x0201, "0002C90300A00002") // UFM reports GUIDs in any case
	got, err := tg.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || len(got[0].Members) != 1 || got[0].Members[0].GUID != gA {
		t.Fatalf("Read after a GUID was removed behind our back = %+v, want only %s", got, gA)
	}
	if _, err := tg.Apply(ctx, decl, []uint16{0x0201}); err != nil {
		t.Fatal(err)
	}
	if g := u.PKeys()[0x0201].GUIDs; len(g) != 2 {
		t.Errorf("after repair UFM holds %+v, want both GUIDs back", g)
	}
	u.RemovePKey(0x0201)
	if got, _ := tg.Read(ctx); len(got) != 0 {
		t.Errorf("Read after the PKey was removed = %+v, want nothing", got)
	}
	if _, err := tg.Apply(ctx, decl, []uint16{0x0201}); err != nil {
		t.Fatal(err)
	}
	if g := u.PKeys()[0x0201].GUIDs; len(g) != 2 {
		t.Errorf("after re-creation UFM holds %+v", g)
	}
}

func TestHalfFailedBatchIsRetriedIdempotently(t *testing.T) {
	u := testrig.StartUFM(t, testrig.UFMOptions{})
	tg := Target{Client: newClient(t, u, false)}
	ctx := context.Background()
	decl := []partition.Partition{
		{Name: "a", PKey: 0x0401, IPoIB: true, Members: []partition.Member{mem(gA, partition.Full)}},
		{Name: "b", PKey: 0x0402, IPoIB: true, Members: []partition.Member{mem(gB, partition.Limited)}},
	}
	// The first partition goes through; adding the second one's members fails after its
	// PKey was created.
	u.FailAfter(1, 1, 500, "POST /resources/pkeys")
	got, err := tg.Apply(ctx, decl, nil)
	var se *StatusError
	if !errors.As(err, &se) || se.Status != 500 {
		t.Fatalf("Apply with a 500 = %v, want the 500", err)
	}
	// The state says only what UFM really holds, read back after the failure.
	held := u.PKeys()
	if len(got) != len(held)-1 { // minus the management PKey
		t.Errorf("Apply returned %d partitions, UFM holds %d besides 0x7fff", len(got), len(held)-1)
	}
	for _, p := range got {
		if _, ok := held[p.PKey]; !ok {
			t.Errorf("Apply returned 0x%04x, which UFM does not hold", p.PKey)
		}
	}
	if len(got) != 2 || len(got[0].Members) != 1 || len(got[1].Members) != 0 {
		t.Errorf("after the half-failed batch Apply returned %+v, want a with its member and b empty", got)
	}
	// The retry (the provider's next apply, with the PKeys the state now holds) finishes the
	// batch without doing anything twice.
	before := len(u.Requests())
	if _, err := tg.Apply(ctx, decl, []uint16{0x0401, 0x0402}); err != nil {
		t.Fatal(err)
	}
	var writes []string
	for _, r := range u.Requests()[before:] {
		if !strings.HasPrefix(r, "GET ") {
			writes = append(writes, r)
		}
	}
	if !reflect.DeepEqual(writes, []string{"POST /resources/pkeys"}) {
		t.Errorf("the retry sent %v, want only the failed member add", writes)
	}
	checkHeld(t, u, map[uint16]testrig.UFMPKey{0x7fff: management,
		0x0401: pk("a", true, 2, 2.5, 0, ug("0002c90300a00001", "full", false)),
		0x0402: pk("b", true, 2, 2.5, 0, ug("0002c90300a00002", "limited", false)),
	})
}

func TestAuthFailuresTimeoutsAndCertificates(t *testing.T) {
	u := testrig.StartUFM(t, testrig.UFMOptions{})
	ctx := context.Background()
	bad, err := New(Config{URL: u.URL, Username: u.Username, Password: "wrong-Secret-42", CAPEM: u.CAPEM})
	if err != nil {
		t.Fatal(err)
	}
	_, err = Target{Client: bad}.Read(ctx)
	if err == nil || !strings.Contains(err.Error(), "401") || !strings.Contains(err.Error(), "credentials were refused") {
		t.Errorf("wrong password: %v, want a 401 that says the credentials were refused", err)
	}
	if err != nil && strings.Contains(err.Error(), "wrong-Secret-42") {
		t.Error("the error shows the password")
	}
	badTok, _ := New(Config{URL: u.URL, Token: "not-the-token", CAPEM: u.CAPEM})
	if _, err := badTok.Version(ctx); err == nil || !strings.Contains(err.Error(), "401") {
		t.Errorf("wrong token: %v", err)
	}
	// No CA given: the rig's certificate is not trusted by the system roots, and is refused.
	noCA, _ := New(Config{URL: u.URL, Username: u.Username, Password: u.Password})
	if _, err := noCA.Version(ctx); err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Errorf("untrusted certificate: %v, want a certificate error", err)
	}
	if _, err := New(Config{URL: strings.Replace(u.URL, "https", "http", 1), Username: "a", Password: "b"}); err == nil {
		t.Error("plain http accepted")
	}
	if _, err := New(Config{URL: u.URL, Username: "a", Password: "b", Token: "c"}); err == nil {
		t.Error("both token and password accepted")
	}
	// A UFM that hangs fails within the timeout.
	c, _ := New(Config{URL: u.URL, Username: u.Username, Password: u.Password, CAPEM: u.CAPEM, Timeout: 300 * time.Millisecond})
	u.Hang()
	start := time.Now()
	_, err = c.Version(ctx)
	u.Unhang()
	if err == nil || time.Since(start) > 30*time.Second {
		t.Errorf("hung UFM: err %v after %v, want an error within the timeout", err, time.Since(start))
	}
	if v, err := newClient(t, u, false).Version(ctx); err != nil || v == "" {
		t.Errorf("Version = %q, %v", v, err)
	}
}

func TestMissingPKeyAs404OrEmptyObject(t *testing.T) {
	u := testrig.StartUFM(t, testrig.UFMOptions{})
	c := newClient(t, u, false)
	ctx := context.Background()
	for _, quirk := range []bool{false, true} {
		u.EmptyForMissing(quirk)
		if _, found, err := c.PKey(ctx, 0x0555); err != nil || found {
			t.Errorf("quirk %v: PKey(missing) found=%v err=%v, want not found", quirk, found, err)
		}
	}
	p, found, err := c.PKey(ctx, 0x7fff)
	if err != nil || !found || p.Partition != "management" {
		t.Errorf("PKey(0x7fff) = %+v %v %v", p, found, err)
	}
}
