package bmc

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	bmclib "github.com/bmc-toolbox/bmclib/v2"
	ipmiprovider "github.com/bmc-toolbox/bmclib/v2/providers/ipmitool"
	"github.com/go-logr/logr"
)

// ipmiLANChannel is the LAN channel whose user access EnsureUser sets; 1 on nearly every BMC.
const ipmiLANChannel = "1"

// ipmiBackend drives a BMC through bmclib's ipmitool provider (power, boot device) and through
// ipmitool directly for what that provider lacks in v2.3.4: reading the boot device back
// ("chassis bootparam get 5"), inventory ("mc info", "fru print"), and account management
// (the provider can only list users, and misparses the list when a slot has no name). The
// password reaches ipmitool as bmclib passes it, in the IPMITOOL_PASSWORD environment variable
// with -E, never on a command line another local user could read.
type ipmiBackend struct {
	cfg  *config
	cl   *bmclib.Client
	tool *ipmiTool
	log  logr.Logger
}

func openIPMI(ctx context.Context, c *config, log logr.Logger, _ *redactor) (backend, error) {
	path, err := exec.LookPath("ipmitool")
	if err != nil {
		return nil, &Error{Kind: ErrFailed, Detail: "ipmitool is not installed on this machine (Debian package ipmitool)"}
	}
	cl := bmclib.NewClient(c.host, c.Username, c.Password,
		bmclib.WithLogger(log),
		bmclib.WithIpmitoolPort(strconv.Itoa(c.ipmiPort)),
		bmclib.WithIpmitoolCipherSuite(c.IPMICipherSuite),
		bmclib.WithIpmitoolPath(path),
	)
	cl.Registry.Drivers = cl.Registry.For(ipmiprovider.ProviderName)
	if len(cl.Registry.Drivers) == 0 {
		return nil, &Error{Kind: ErrFailed, Detail: "bmclib has no ipmitool provider"}
	}
	tool := &ipmiTool{path: path, host: c.host, port: strconv.Itoa(c.ipmiPort), user: c.Username, pass: c.Password, cipher: c.IPMICipherSuite}
	if err := cl.Open(ctx); err != nil {
		// Without -v, ipmitool says "Unable to establish IPMI v2 / RMCP+ session" for a wrong
		// password and for a BMC that does not answer alike. A quick failure means the BMC
		// answered: ask again verbosely to learn why.
		if ctx.Err() == nil {
			if out, perr := tool.run(ctx, "-v", "chassis", "power", "status"); perr != nil {
				return nil, fmt.Errorf("%w; ipmitool -v says: %s", err, strings.ReplaceAll(strings.TrimSpace(out), "\n", "; "))
			}
		}
		return nil, err
	}
	return &ipmiBackend{cfg: c, cl: cl, tool: tool, log: log}, nil
}

func (b *ipmiBackend) classify(err error) (error, string, bool) { return classifyIPMI(err) } //nolint:staticcheck // ST1008: see classifyIPMI

func (b *ipmiBackend) close(ctx context.Context) error { return b.cl.Close(ctx) }

// ipmiTool runs ipmitool against one BMC.
type ipmiTool struct {
	path, host, port, user, pass, cipher string
}

// run returns ipmitool's combined output. Options before the command (like -v) may lead args.
func (t *ipmiTool) run(ctx context.Context, args ...string) (string, error) {
	base := []string{"-I", "lanplus", "-H", t.host, "-p", t.port, "-U", t.user, "-E", "-C", t.cipher}
	cmd := exec.CommandContext(ctx, t.path, append(base, args...)...)
	cmd.Env = []string{"IPMITOOL_PASSWORD=" + t.pass}
	cmd.WaitDelay = time.Second
	out, err := cmd.CombinedOutput()
	if err != nil {
		if ctx.Err() != nil {
			return string(out), ctx.Err()
		}
		name := strings.Join(args, " ")
		return string(out), fmt.Errorf("ipmitool %s: %v: %s", name, err, strings.TrimSpace(string(out)))
	}
	return string(out), nil
}

func (b *ipmiBackend) powerState(ctx context.Context) (string, error) {
	raw, err := b.cl.GetPowerState(ctx)
	if err != nil {
		return "", err
	}
	return normalisePower(raw)
}

func (b *ipmiBackend) read(ctx context.Context) (State, error) {
	var st State
	var err error
	if st.PowerState, err = b.powerState(ctx); err != nil {
		return st, err
	}
	out, err := b.tool.run(ctx, "chassis", "bootparam", "get", "5")
	if err != nil {
		return st, err
	}
	st.BootDevice, st.BootPersistent, st.BootEFI = parseBootParam(out)

	out, err = b.tool.run(ctx, "mc", "info")
	if err != nil {
		return st, err
	}
	st.BMCFirmware = ipmiField(out, "Firmware Revision")
	// FRU and system firmware version are optional in IPMI (ipmi_sim has neither): absent
	// answers leave the fields empty rather than fail the read.
	if ctx.Err() == nil {
		if fru, ferr := b.tool.run(ctx, "fru", "print", "0"); ferr == nil {
			st.Vendor = firstNonEmpty(ipmiField(fru, "Product Manufacturer"), ipmiField(fru, "Board Mfg"))
			st.Model = firstNonEmpty(ipmiField(fru, "Product Name"), ipmiField(fru, "Board Product"))
			st.Serial = firstNonEmpty(ipmiField(fru, "Product Serial"), ipmiField(fru, "Board Serial"))
		}
	}
	if ctx.Err() == nil {
		if fw, ferr := b.tool.run(ctx, "mc", "getsysinfo", "system_fw_version"); ferr == nil {
			st.BIOSFirmware = parseSysInfo(fw)
		}
	}
	if ctx.Err() != nil {
		return st, ctx.Err()
	}
	slots, err := b.users(ctx)
	if err != nil {
		return st, err
	}
	st.Users = map[string]string{}
	for _, u := range slots {
		if u.name != "" && u.ipmiMsg && u.role != "None" {
			st.Users[u.name] = u.role
		}
	}
	return st, nil
}

// parseSysInfo reads "ipmitool mc getsysinfo <param>" (Get System Info Parameters, IPMI v2.0
// rev. 1.1 section 22.14a). A BMC without the parameter answers with a completion code that
// ipmitool 1.8.19 prints as "getsysinfo command failed: Invalid command" (or "... Parameter not
// supported") while exiting 0, so exit status alone cannot tell a value from a refusal. Any line
// of that form, or no text at all, means "unknown" and yields "".
func parseSysInfo(out string) string {
	var lines []string
	for _, line := range strings.Split(out, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		l := strings.ToLower(line)
		if strings.Contains(l, "command failed") || strings.HasPrefix(l, "invalid ") ||
			strings.Contains(l, "not supported") || strings.HasPrefix(l, "error") ||
			strings.HasPrefix(l, "unable to") || strings.Contains(l, "unknown parameter") {
			return ""
		}
		lines = append(lines, line)
	}
	// Printable text only: a BMC may pad the string with NULs or send garbage in a bad block.
	v := strings.Join(lines, " ")
	if strings.IndexFunc(v, func(r rune) bool { return r < 0x20 || r == 0x7f || r == utf8.RuneError }) >= 0 {
		return ""
	}
	return v
}

// parseBootParam reads "ipmitool chassis bootparam get 5". The device selector is reported even
// when the BMC marks the flags invalid: ipmi_sim keeps the selector but never the valid bit,
// nor the persistent and EFI flags.
func parseBootParam(out string) (device string, persistent, efi bool) {
	device = "none"
	for _, line := range strings.Split(out, "\n") {
		line = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), "- "))
		switch {
		case strings.Contains(line, "Options apply to all future boots"):
			persistent = true
		case strings.Contains(line, "BIOS EFI boot"):
			efi = true
		case strings.HasPrefix(line, "Boot Device Selector"):
			sel := strings.TrimSpace(line[strings.Index(line, ":")+1:])
			switch {
			case strings.Contains(sel, "No override"):
				device = "none"
			case strings.Contains(sel, "PXE"):
				device = "pxe"
			case strings.Contains(sel, "remotely connected Hard-Drive"), strings.Contains(sel, "primary remote media"):
				device = "remote_drive"
			case strings.Contains(sel, "Hard-Drive"):
				device = "disk"
			case strings.Contains(sel, "CD/DVD"):
				device = "cdrom"
			case strings.Contains(sel, "BIOS Setup"):
				device = "bios"
			case strings.Contains(sel, "Diagnostic"):
				device = "diag"
			case strings.Contains(sel, "Floppy"):
				device = "floppy"
			default:
				device = strings.ToLower(sel)
			}
		}
	}
	return device, persistent, efi
}

// ipmiField returns the value of a "Name : value" line of ipmitool output.
func ipmiField(out, name string) string {
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == name {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}

func (b *ipmiBackend) setPower(ctx context.Context, state string) error {
	ok, err := b.cl.SetPowerState(ctx, state)
	if err != nil {
		return err
	}
	if !ok {
		return &Error{Kind: ErrRejected, Detail: "bmclib reports that the power action failed"}
	}
	return waitPower(ctx, state, b.powerState)
}

// ipmiBootDevices are the devices "ipmitool chassis bootdev" knows.
var ipmiBootDevices = []string{"none", "pxe", "disk", "cdrom", "bios", "diag", "floppy"}

func (b *ipmiBackend) setBootDevice(ctx context.Context, device string, persistent, efi bool) error {
	if !containsString(ipmiBootDevices, device) {
		return &Error{Kind: ErrNotSupported, Detail: fmt.Sprintf("IPMI has no boot device %q (it has %s)", device, strings.Join(ipmiBootDevices, ", "))}
	}
	ok, err := b.cl.SetBootDevice(ctx, device, persistent, efi)
	if err != nil {
		return err
	}
	if !ok {
		return &Error{Kind: ErrRejected, Detail: "bmclib reports that setting the boot device failed"}
	}
	out, err := b.tool.run(ctx, "chassis", "bootparam", "get", "5")
	if err != nil {
		return err
	}
	// Only the device is checked: the persistent and EFI flags live in the boot flags' valid
	// bit semantics, which BMCs (and ipmi_sim) treat differently; Read reports what they keep.
	if got, _, _ := parseBootParam(out); got != device {
		return &Error{Kind: ErrRejected, Detail: fmt.Sprintf("asked for boot %s, the BMC reports %s", device, got)}
	}
	return nil
}

type ipmiUser struct {
	id      int
	name    string
	ipmiMsg bool
	role    string
}

var ipmiRoles = map[string]string{
	"ADMINISTRATOR": "Administrator", "OPERATOR": "Operator", "USER": "ReadOnly",
	"CALLBACK": "ReadOnly", "NO ACCESS": "None",
}

var ipmiPrivileges = map[string]string{"Administrator": "4", "Operator": "3", "ReadOnly": "2", "None": "15"}

// users parses "ipmitool user list <channel>": ID, Name (may be empty), Callin, Link Auth,
// IPMI Msg, Channel Priv Limit (may be two words, e.g. "NO ACCESS").
func (b *ipmiBackend) users(ctx context.Context) ([]ipmiUser, error) {
	out, err := b.tool.run(ctx, "user", "list", ipmiLANChannel)
	if err != nil {
		return nil, err
	}
	return parseUserList(out)
}

// parseUserList reads the table of "ipmitool user list": a row per slot, the name column blank
// for an empty slot.
func parseUserList(out string) ([]ipmiUser, error) {
	var users []ipmiUser
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) < 5 {
			continue
		}
		id, err := strconv.Atoi(f[0])
		if err != nil || id < 1 || id > 63 {
			continue // the header, or not a user ID (6 bits, 1-63: IPMI v2.0 section 22.26)
		}
		u := ipmiUser{id: id}
		rest := f[1:]
		if rest[0] != "true" && rest[0] != "false" {
			u.name, rest = rest[0], rest[1:]
		}
		if len(rest) < 4 {
			continue
		}
		u.ipmiMsg = rest[2] == "true"
		priv := strings.Join(rest[3:], " ")
		u.role = ipmiRoles[priv]
		if u.role == "" {
			u.role = "None"
		}
		users = append(users, u)
	}
	if len(users) == 0 {
		return nil, fmt.Errorf("ipmitool user list: no users in the output: %s", strings.TrimSpace(out))
	}
	return users, nil
}

// ensureUser sets an account through an ipmitool command file ("ipmitool exec"), so that the
// new password is never an argument of a process (where ps would show it). The file lives in a
// private temporary directory, mode 0600, and is removed at once.
func (b *ipmiBackend) ensureUser(ctx context.Context, name, role, password string) error {
	if len(password) > 20 {
		return &Error{Kind: ErrInvalid, Detail: "IPMI passwords are at most 20 bytes"}
	}
	if strings.ContainsAny(password, " \t\r\n\"'\\#") {
		return &Error{Kind: ErrInvalid, Detail: "IPMI passwords set through ipmitool cannot hold spaces, quotes, backslashes or #"}
	}
	if len(name) > 16 {
		return &Error{Kind: ErrInvalid, Detail: "IPMI user names are at most 16 bytes"}
	}
	users, err := b.users(ctx)
	if err != nil {
		return err
	}
	id := 0
	for _, u := range users {
		if u.name == name {
			id = u.id
			break
		}
	}
	newSlot := id == 0
	if newSlot {
		// Slot 1 is the anonymous user on IPMI BMCs; it cannot be renamed.
		for _, u := range users {
			if u.id >= 2 && u.name == "" {
				id = u.id
				break
			}
		}
	}
	if id == 0 {
		return &Error{Kind: ErrRejected, Detail: "no free IPMI user slot"}
	}
	priv := ipmiPrivileges[role]
	ids := strconv.Itoa(id)
	var cmds []string
	if newSlot {
		cmds = append(cmds, "user set name "+ids+" "+name)
	}
	cmds = append(cmds,
		"user set password "+ids+" "+password+" 20",
		"user priv "+ids+" "+priv+" "+ipmiLANChannel,
		"channel setaccess "+ipmiLANChannel+" "+ids+" callin=on ipmi=on link=on privilege="+priv,
		"user enable "+ids,
	)
	dir, err := os.MkdirTemp("", "bmc-ipmi-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	file := filepath.Join(dir, "cmds")
	if err := os.WriteFile(file, []byte(strings.Join(cmds, "\n")+"\n"), 0o600); err != nil {
		return err
	}
	out, err := b.tool.run(ctx, "exec", file)
	if err != nil {
		return err
	}
	for _, line := range strings.Split(out, "\n") {
		l := strings.ToLower(line)
		if strings.Contains(l, "error") || strings.Contains(l, "fail") || strings.Contains(l, "invalid") {
			return fmt.Errorf("ipmitool exec: %s", strings.TrimSpace(line))
		}
	}
	users, err = b.users(ctx)
	if err != nil {
		return err
	}
	for _, u := range users {
		if u.id == id {
			if u.name != name || u.role != role {
				return &Error{Kind: ErrRejected, Detail: fmt.Sprintf("IPMI slot %d reads %q with role %s after setting %q with role %s", id, u.name, u.role, name, role)}
			}
			return nil
		}
	}
	return errors.New("ipmitool user list: the slot vanished")
}

func (b *ipmiBackend) setBIOS(context.Context, map[string]string) error {
	return &Error{Kind: ErrNotSupported, Detail: "IPMI has no BIOS settings; use Redfish"}
}
