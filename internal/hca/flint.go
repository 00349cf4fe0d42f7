package hca

import (
	"fmt"
	"strings"
)

// FirmwareInfo is what "flint -d DEV query" (or mstflint) prints.
type FirmwareInfo struct {
	ImageType string
	FWVersion string // the image on the flash
	// RunningVersion is "FW Version(Running)", which flint prints only when the card runs
	// another version than the flash holds: after a burn, until a firmware reset or a reboot.
	RunningVersion     string
	FWReleaseDate      string
	ProductVersion     string
	RomInfo            []string // one entry per expansion ROM (the line and its continuations)
	Description        string
	BaseGUID           string
	BaseMAC            string
	ImageVSD           string
	DeviceVSD          string
	PSID               string
	SecurityAttributes string
	// Tool is the family whose flint printed it (ToolMlxconfig, ToolMstconfig or the path
	// given): with ToolAuto, the one the node has. ParseFlintQuery leaves it "".
	Tool string
	// Fields holds every "Key: value" line as printed, continuation lines
	// joined with "\n", for keys not given their own field.
	Fields map[string]string
}

// ParseFlintQuery parses flint's query output. Each line is a key padded to
// column 23 and a value; a line that starts with blanks continues the value
// of the key above it (Rom Info lists one ROM per line). Base GUID and Base
// MAC carry a second column, the number of addresses, which is dropped.
func ParseFlintQuery(out string) (*FirmwareInfo, error) {
	fi := &FirmwareInfo{Fields: map[string]string{}}
	var last string
	for _, line := range strings.Split(strings.ReplaceAll(out, "\r\n", "\n"), "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		if strings.HasPrefix(line, "-E-") {
			return nil, fmt.Errorf("flint: %s", strings.TrimSpace(strings.TrimPrefix(line, "-E-")))
		}
		if (line[0] == ' ' || line[0] == '\t') && last != "" {
			fi.Fields[last] += "\n" + strings.TrimSpace(line)
			continue
		}
		key, val, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		last = strings.TrimSpace(key)
		fi.Fields[last] = strings.TrimSpace(val)
	}
	if fi.Fields["FW Version"] == "" {
		return nil, fmt.Errorf("flint: no FW Version in query output")
	}
	firstWord := func(s string) string {
		if f := strings.Fields(s); len(f) > 0 {
			return f[0]
		}
		return ""
	}
	fi.ImageType = fi.Fields["Image type"]
	fi.FWVersion = fi.Fields["FW Version"]
	fi.RunningVersion = fi.Fields["FW Version(Running)"]
	fi.FWReleaseDate = fi.Fields["FW Release Date"]
	fi.ProductVersion = fi.Fields["Product Version"]
	if r := fi.Fields["Rom Info"]; r != "" {
		fi.RomInfo = strings.Split(r, "\n")
	}
	fi.Description = fi.Fields["Description"]
	fi.BaseGUID = firstWord(fi.Fields["Base GUID"])
	fi.BaseMAC = firstWord(fi.Fields["Base MAC"])
	fi.ImageVSD = fi.Fields["Image VSD"]
	fi.DeviceVSD = fi.Fields["Device VSD"]
	fi.PSID = fi.Fields["PSID"]
	fi.SecurityAttributes = fi.Fields["Security Attributes"]
	return fi, nil
}

// ResetPending reports whether the card runs another version than its flash holds: a burned
// image waits for a firmware reset (mlxfwreset) or a reboot.
func (fi *FirmwareInfo) ResetPending() bool {
	return fi.RunningVersion != "" && fi.RunningVersion != fi.FWVersion
}
