package hca

import (
	"context"
	"fmt"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/remote"
)

// Burning a firmware image, as flint (MFT) or mstflint does it: "flint -i IMAGE q" reads the
// image's version and PSID, "flint -d DEV q" the card's, and "flint -d DEV -i IMAGE -y b"
// writes the image. The burn refuses an image whose PSID is not the card's (mstflint
// flint/subcommands.cpp BurnSubCommand::checkPSID, unless --allow_psid_change, which this
// package never passes: a PSID names the board and its parameter set, and NVIDIA's "Assigning
// PSID" page says changing it is not recommended), and so does UpdateFirmware, before anything
// is written: CheckPSID says why in flint's own words, so a plan can refuse what the burn
// would. A burned image runs after a firmware reset or a reboot; until then the card's query
// shows the old version as "FW Version(Running)" (wave4-facts 5.2).

// PSIDMismatchError is an image whose PSID is not the card's. Its text is flint's
// (FLINT_PSID_ERROR in mstflint flint/err_msgs.h).
type PSIDMismatchError struct {
	Device, Image       string
	CardPSID, ImagePSID string
}

func (e *PSIDMismatchError) Error() string {
	return fmt.Sprintf("PSID mismatch. The PSID on flash (%s) differs from the PSID in the given image (%s).", e.CardPSID, e.ImagePSID)
}

// CheckPSID compares the PSID of a card with an image's, as flint's checkPSID does: both must be
// known, and they must be equal (strncmp over the 16-byte field).
func CheckPSID(device, image, cardPSID, imagePSID string) error {
	if cardPSID != "" && imagePSID != "" && cardPSID != imagePSID {
		return &PSIDMismatchError{Device: device, Image: image, CardPSID: cardPSID, ImagePSID: imagePSID}
	}
	return nil
}

// QueryImage runs "flint -i IMAGE query" (mstflint for mstconfig) on the node that holds the
// image. A missing or invalid image fails with the tool's text ("Cannot open Image: ...",
// "Failed to query image: ... No valid image found").
func QueryImage(ctx context.Context, r Runner, tool, image string) (*FirmwareInfo, error) {
	ts, cmd, res, err := runTool(ctx, r, tool, func(ts toolset) string { return imageCommand(ts, image) })
	if err != nil {
		if ts.name == "" {
			return nil, err
		}
		return nil, fmt.Errorf("%s on image %s: %s: %w", ts.flint, image, cmd, err)
	}
	return imageResult(ts, image, cmd, res.Stdout, res.Stderr, res.Exit)
}

func imageCommand(ts toolset, image string) string { return command(ts.flint, "-i", image, "query") }

func imageResult(ts toolset, image, cmd, stdout, stderr string, exit int) (*FirmwareInfo, error) {
	fi, err := firmwareResult(ts, "image "+image, cmd, stdout, stderr, exit)
	if te, ok := err.(*ToolError); ok {
		te.Device = image
	}
	return fi, err
}

// QueryCardAndImage runs "flint -d DEVICE q" and "flint -i IMAGE q" in one command on the node
// (remote.RunBatch): what a plan needs to show the version an update brings and to refuse a PSID
// mismatch, and what UpdateFirmware checks before it burns. cmds are the commands run. With
// ToolAuto the node's tool is found in the same command: card.Tool and img.Tool say which.
func QueryCardAndImage(ctx context.Context, r Runner, tool, device, image string) (card, img *FirmwareInfo, cmds []string, err error) {
	ts, cmds, out, err := runTools(ctx, r, tool, func(ts toolset) []string {
		return []string{firmwareCommand(ts, device), imageCommand(ts, image)}
	})
	if ts.name == "" {
		return nil, nil, nil, err
	}
	fcmd, icmd := cmds[0], cmds[1]
	if len(out) < 2 {
		if len(out) == 1 {
			if _, ferr := firmwareResult(ts, device, fcmd, out[0].Stdout, out[0].Stderr, out[0].Exit); ferr != nil {
				return nil, nil, cmds, ferr
			}
		}
		return nil, nil, cmds, fmt.Errorf("%s on device %s: %s; %s: %w", ts.flint, device, fcmd, icmd, err)
	}
	if card, err = firmwareResult(ts, device, fcmd, out[0].Stdout, out[0].Stderr, out[0].Exit); err != nil {
		return nil, nil, cmds, err
	}
	if img, err = imageResult(ts, image, icmd, out[1].Stdout, out[1].Stderr, out[1].Exit); err != nil {
		return card, nil, cmds, err
	}
	return card, img, cmds, nil
}

// FirmwareUpdate is what UpdateFirmware found and did.
type FirmwareUpdate struct {
	Before, Image, After *FirmwareInfo // the card before, the image, the card after (After == Before without a burn)
	Burned               bool
	// ResetPending: the card runs another version than its flash now holds, so the image takes
	// effect at the next firmware reset (gpucluster_hca_reset, mlxfwreset) or reboot.
	ResetPending bool
	Output       string   // what the burn printed
	Commands     []string // every command run, in order
	// Tool is the family that ran: the tool given, or with ToolAuto the one the node has ("" when
	// none ran).
	Tool string
}

// UpdateFirmware brings device to image: it queries the card and the image in one command on
// the node (remote.RunBatch), refuses a PSID mismatch (*PSIDMismatchError) before any burn,
// does nothing when the flash already holds the image's version (a re-apply is not an error,
// unlike a vendor tool's "same version installed"), else burns with "-y" and queries the card
// again to read the new version back: a burn that exits 0 but leaves another version on the
// flash is an error. With ToolAuto the node's tool is found in the first command and burns.
func UpdateFirmware(ctx context.Context, r Runner, tool, device, image string) (*FirmwareUpdate, error) {
	if tool != ToolAuto {
		if _, err := toolsFor(tool); err != nil {
			return nil, err
		}
	}
	res := &FirmwareUpdate{}
	var err error
	res.Before, res.Image, res.Commands, err = QueryCardAndImage(ctx, r, tool, device, image)
	if err != nil {
		return res, err
	}
	ts, err := toolsFor(res.Before.Tool)
	if err != nil {
		return res, err
	}
	res.Tool = ts.name
	fcmd := firmwareCommand(ts, device)
	if err := CheckPSID(device, image, res.Before.PSID, res.Image.PSID); err != nil {
		return res, err
	}
	res.After, res.ResetPending = res.Before, res.Before.ResetPending()
	if res.Before.FWVersion == res.Image.FWVersion {
		return res, nil
	}
	bcmd := command(ts.flint, "-d", device, "-i", image, "-y", "burn")
	res.Commands = append(res.Commands, bcmd, fcmd)
	out, err := remote.RunBatch(ctx, r, bcmd, fcmd)
	if len(out) == 0 {
		return res, fmt.Errorf("%s on device %s: %s: %w", ts.flint, device, bcmd, err)
	}
	res.Output = out[0].Stdout + out[0].Stderr
	if errs := errorLines(out[0].Stdout + "\n" + out[0].Stderr); out[0].Exit != 0 || len(errs) > 0 {
		return res, newToolError(ts.flint, device, bcmd, nil, out[0].Exit, out[0].Stdout, out[0].Stderr, errs)
	}
	res.Burned = true
	if len(out) < 2 {
		return res, fmt.Errorf("%s on device %s: burned, but could not read it back: %s: %w", ts.flint, device, fcmd, err)
	}
	if res.After, err = firmwareResult(ts, device, fcmd, out[1].Stdout, out[1].Stderr, out[1].Exit); err != nil {
		return res, err
	}
	if res.After.FWVersion != res.Image.FWVersion {
		return res, fmt.Errorf("%s on device %s: the burn of %s (version %s) exited 0 but the flash reads back version %s",
			ts.flint, device, image, res.Image.FWVersion, res.After.FWVersion)
	}
	// The card runs the old image until a reset: flint says so ("FW Version(Running)"), and the
	// burn's own "-I- To load new FW run mlxfwreset or reboot machine." says the same.
	res.ResetPending = true
	return res, nil
}

// QueryCards reads the firmware of several cards of one node and an image on it in one command
// on the node (remote.RunBatch: "flint -d DEV q" per card, then "flint -i IMAGE q"): what a
// rollout's plan needs per node, since each command is an SSH session and a start of the node's
// login shell (see the package comment). cards follow devices; image is skipped when "". A
// card or image the tool cannot read fails with the tool's text, naming it. With ToolAuto the
// node's tool is found in the same command: each FirmwareInfo's Tool says which.
func QueryCards(ctx context.Context, r Runner, tool string, devices []string, image string) (cards []*FirmwareInfo, img *FirmwareInfo, err error) {
	ts, cmds, out, rerr := runTools(ctx, r, tool, func(ts toolset) []string {
		var cmds []string
		for _, d := range devices {
			cmds = append(cmds, firmwareCommand(ts, d))
		}
		if image != "" {
			cmds = append(cmds, imageCommand(ts, image))
		}
		return cmds
	})
	if ts.name == "" {
		return nil, nil, rerr
	}
	for i, d := range devices {
		if i >= len(out) {
			return cards, nil, fmt.Errorf("%s on device %s: %s: %w", ts.flint, d, cmds[i], rerr)
		}
		fi, err := firmwareResult(ts, d, cmds[i], out[i].Stdout, out[i].Stderr, out[i].Exit)
		if err != nil {
			return cards, nil, err
		}
		cards = append(cards, fi)
	}
	if image == "" {
		return cards, nil, nil
	}
	k := len(devices)
	if k >= len(out) {
		return cards, nil, fmt.Errorf("%s on image %s: %s: %w", ts.flint, image, cmds[k], rerr)
	}
	img, err = imageResult(ts, image, cmds[k], out[k].Stdout, out[k].Stderr, out[k].Exit)
	return cards, img, err
}
