package hca

import (
	"errors"
	"path/filepath"
	"testing"
)

// TestQueryCards reads two cards of a node and an image in one command, each field as the
// separate queries read it (QueryFirmware, QueryImage: the independent reading), and a card
// the node does not have fails naming it with the tool's text.
func TestQueryCards(t *testing.T) {
	e := newApplyEnv(t)
	st := gpuNodeState()
	second := *st.Devices[0]
	fw := *sample1Firmware
	fw.PSID, fw.FWVersion = "MT_0000000834", "28.39.1002"
	second.Device, second.Aliases, second.Firmware = "/dev/mst/mt4129_pciconf1", []string{"0000:86:00.0"}, &fw
	st.Devices = append(st.Devices, &second)
	writeState(t, e.state, st)
	img := writeImage(t, t.TempDir(), "fw.bin", newerImage("MT_0000001244"))

	devs := []string{dev, "0000:86:00.0"}
	cr := &countingRunner{r: e.r}
	cards, gi, err := QueryCards(e.ctx, cr, ToolMlxconfig, devs, img)
	if err != nil {
		t.Fatal(err)
	}
	if n := cr.n.Load(); n != 1 {
		t.Errorf("%d commands, want 1", n)
	}
	for i, d := range devs {
		want, err := QueryFirmware(e.ctx, e.r, ToolMlxconfig, d)
		if err != nil {
			t.Fatal(err)
		}
		if cards[i].FWVersion != want.FWVersion || cards[i].PSID != want.PSID {
			t.Errorf("%s: %s %s, want %s %s", d, cards[i].FWVersion, cards[i].PSID, want.FWVersion, want.PSID)
		}
	}
	if cards[1].PSID != "MT_0000000834" || cards[1].FWVersion != "28.39.1002" {
		t.Errorf("second card %+v", cards[1])
	}
	wantImg, err := QueryImage(e.ctx, e.r, ToolMlxconfig, img)
	if err != nil {
		t.Fatal(err)
	}
	if gi.FWVersion != wantImg.FWVersion || gi.PSID != wantImg.PSID || gi.FWVersion != "28.43.1014" {
		t.Errorf("image %+v, want %+v", gi, wantImg)
	}
	// Without an image: the cards only.
	if cards, gi, err = QueryCards(e.ctx, e.r, ToolMstconfig, devs[:1], ""); err != nil || gi != nil || len(cards) != 1 {
		t.Errorf("no image: %v %v %v", cards, gi, err)
	}
	// A card the node does not have.
	_, _, err = QueryCards(e.ctx, e.r, ToolMlxconfig, []string{dev, "/dev/mst/mt4129_pciconf7"}, filepath.Join(t.TempDir(), "x.bin"))
	var te *ToolError
	if !errors.As(err, &te) || te.Device != "/dev/mst/mt4129_pciconf7" {
		t.Errorf("missing card: %v", err)
	}
}
