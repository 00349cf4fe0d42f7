// Command mlxconfig-double stands in for NVIDIA's mlxconfig (and mstflint's
// mstconfig), flint (mstflint: query of a card or an image, burn; firmware.go)
// and mlxfwreset (mstfwreset) on machines without a ConnectX card. It prints what the real tools print, byte for byte (the
// layout of mlxcfg_ui.cpp: "%-20s" values with their trailing blanks, the
// blank lines after "----------" and "Device:", the "*" and "RO" marks, the
// "Apply new Configuration? (y/n) [n] : " prompt), and fails the way they fail,
// with their messages and exit codes (3 for mlxconfig errors, 2 when the user
// declines the prompt, 1 for flint).
//
// Build it once and install it under the names of the tools; what it does
// depends on the name it is called by:
//
//	go build -o $DIR/mlxconfig ./internal/hca/testdata/mlxconfig-double
//	for n in mstconfig flint mstflint mlxfwreset mstfwreset; do ln -s mlxconfig $DIR/$n; done
//	PATH=$DIR:$PATH MLXCONFIG_DOUBLE_STATE=state.json mlxconfig -d /dev/mst/mt4129_pciconf0 query
//
// Environment:
//
//	MLXCONFIG_DOUBLE_STATE  JSON file holding the devices and their parameters
//	                        (see state below). Every set, reset and firmware
//	                        reset writes it back, under a lock, so a test can
//	                        read it and change it "out of band" between calls.
//	                        Unset or missing: no devices, as on a machine
//	                        without cards ("-E- Failed to open the device").
//	MLXCONFIG_DOUBLE_LOG    if set, each invocation appends its command line
//	                        to this file, one line per call.
//
// The state keys devices by mst device name, with aliases for the PCI
// functions of the same card, because NVConfig lives on the card: a set
// through 05:00.0 shows on 05:00.1 too. Parameter values are kept as printed
// ("IB(1)", "16", "Array[0..7]"); names and value types come from the hca
// package's parameter database, as the real tool takes them from its own.
//
// Not simulated: array elements (NAME[i]), JSON output (-j), raw TLV commands,
// show_confs, and the exact refusal of a read-only parameter (the real
// message is unknown; the double refuses with "-E- The parameter NAME is read
// only"). These exit 99 with a message on stderr, or are marked in the code.
package main

import (
	"bufio"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/hca"
)

// help.txt is the help text of the real mstconfig (mstflint 4.21), which the
// tool prints after a usage error; the double prints it with its own name.
//
//go:embed help.txt
var helpText string

// Exit codes of mlxconfig (mlxCfgStatus): MLX_CFG_ERROR is 3, MLX_CFG_ABORTED 2.
const (
	exitOK      = 0
	exitAborted = 2
	exitError   = 3
	exitDouble  = 99 // something the double does not simulate
)

type state struct {
	Devices []*device `json:"devices"`
}

type device struct {
	Device      string   `json:"device"`            // the mst device, e.g. /dev/mst/mt4129_pciconf0
	Aliases     []string `json:"aliases,omitempty"` // other names of the same card: PCI functions
	DeviceType  string   `json:"device_type"`
	Name        string   `json:"name"`
	Description string   `json:"description"`
	// NoDefaultCurrent models firmware that cannot report the Default and
	// Current values: -e then shows Next Boot only, with a note.
	NoDefaultCurrent bool      `json:"no_default_current,omitempty"`
	Params           []*param  `json:"params"`
	Firmware         *firmware `json:"firmware,omitempty"`
	// ResetLevels are the mlxfwreset levels the card reports as supported
	// in its current state (the MFRL register); nil is [3, 4], what a
	// ConnectX-7 with pending NVConfig changes reports (level 3 is then the
	// default, as in samples/mlxfwreset.txt). [] is a card that supports
	// none: only a reboot loads the changes.
	ResetLevels []int `json:"reset_levels"`
	// BurnError, when set, makes a burn of this card fail while writing the image, with this
	// text of the firmware's component manager (FwCompsMgr::getLastErrMsg, e.g. "Error while
	// erasing the flash"): a fault mode, see burn in firmware.go.
	BurnError string `json:"burn_error,omitempty"`
}

func (d *device) resetLevels() []int {
	if d.ResetLevels == nil {
		return []int{3, 4}
	}
	return d.ResetLevels
}

type param struct {
	Name     string `json:"name"`
	Default  string `json:"default,omitempty"` // empty: same as current
	Current  string `json:"current,omitempty"` // empty: same as next
	Next     string `json:"next"`
	ReadOnly bool   `json:"ro,omitempty"`
	// Max is a bound that depends on the device's capabilities (NUM_OF_VFS
	// up to max_vfs_per_pf), checked when the set is applied.
	Max *uint64 `json:"max,omitempty"`
}

func (p *param) current() string {
	if p.Current != "" {
		return p.Current
	}
	return p.Next
}

func (p *param) def() string {
	if p.Default != "" {
		return p.Default
	}
	return p.current()
}

// firmware is what flint query prints, field by field.
type firmware struct {
	ImageType          string   `json:"image_type"`
	FWVersion          string   `json:"fw_version"`
	FWReleaseDate      string   `json:"fw_release_date"`
	ProductVersion     string   `json:"product_version"`
	RomInfo            []string `json:"rom_info"`
	Description        string   `json:"description"` // e.g. "UID                GuidsNumber"
	BaseGUID           string   `json:"base_guid"`   // printed as is, e.g. "e09d730300126474        16"
	BaseMAC            string   `json:"base_mac"`
	ImageVSD           string   `json:"image_vsd"`
	DeviceVSD          string   `json:"device_vsd"`
	PSID               string   `json:"psid"`
	SecurityAttributes string   `json:"security_attributes"`
	// RunningVersion is the version the card still runs after a burn, until a firmware reset
	// or a reboot loads the new image: flint then prints "FW Version(Running):" under
	// "FW Version:" (the version on the flash). Empty: the card runs what the flash holds.
	RunningVersion string `json:"running_version,omitempty"`
}

func (s *state) find(name string) *device {
	strip := func(n string) string { return strings.TrimPrefix(n, "0000:") }
	for _, d := range s.Devices {
		for _, n := range append([]string{d.Device}, d.Aliases...) {
			if n == name || strip(n) == strip(name) {
				return d
			}
		}
	}
	return nil
}

func (d *device) param(name string) *param {
	for _, p := range d.Params {
		if p.Name == name {
			return p
		}
	}
	return nil
}

// store is the state file under an exclusive lock, held for the whole
// invocation so that concurrent calls see each other's writes whole.
type store struct {
	path string
	lock *os.File
	st   state
}

func openStore() (*store, error) {
	s := &store{path: os.Getenv("MLXCONFIG_DOUBLE_STATE")}
	if s.path == "" {
		return s, nil
	}
	lf, err := os.OpenFile(s.path+".lock", os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(lf.Fd()), syscall.LOCK_EX); err != nil {
		lf.Close()
		return nil, err
	}
	s.lock = lf
	b, err := os.ReadFile(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(b, &s.st); err != nil {
		return nil, fmt.Errorf("%s: %v", s.path, err)
	}
	return s, nil
}

func (s *store) save() error {
	if s.path == "" {
		return nil
	}
	b, err := json.MarshalIndent(&s.st, "", "  ")
	if err != nil {
		return err
	}
	tmp := s.path + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, s.path)
}

func (s *store) close() {
	if s.lock != nil {
		s.lock.Close()
	}
}

func main() {
	os.Exit(run(os.Args, os.Stdin, os.Stdout, os.Stderr))
}

func run(argv []string, stdin io.Reader, stdout, stderr io.Writer) int {
	prog := filepath.Base(argv[0])
	if lp := os.Getenv("MLXCONFIG_DOUBLE_LOG"); lp != "" {
		if f, err := os.OpenFile(lp, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
			fmt.Fprintln(f, strings.Join(append([]string{prog}, argv[1:]...), " "))
			f.Close()
		}
	}
	st, err := openStore()
	if err != nil {
		fmt.Fprintf(stderr, "mlxconfig-double: state: %v\n", err)
		return exitDouble
	}
	defer st.close()
	// Output is buffered and written once, as the real tools' stdout is
	// when it is not a terminal; the prompt is flushed before reading.
	w := bufio.NewWriter(stdout)
	defer w.Flush()
	t := &tool{prog: prog, st: st, in: bufio.NewReader(stdin), out: w, errw: stderr}
	switch {
	case strings.Contains(prog, "fwreset"):
		return t.fwreset(argv[1:])
	case strings.Contains(prog, "flint"):
		return t.flint(argv[1:])
	default:
		return t.mlxconfig(argv[1:])
	}
}

type tool struct {
	prog string
	st   *store
	in   *bufio.Reader
	out  *bufio.Writer
	errw io.Writer
}

func (t *tool) printf(format string, a ...any) { fmt.Fprintf(t.out, format, a...) }

// usageError is err(true, ...) followed by printUsage, which prints the help.
func (t *tool) usageError(format string, a ...any) int {
	t.printf("-E- "+format+"\n", a...)
	t.out.WriteString(strings.ReplaceAll(helpText, "mstconfig", t.prog))
	return exitError
}

var bdfRe = regexp.MustCompile(`^([0-9a-fA-F]{4}:)?[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]$`)

// openFailed is what mlxconfig prints when the device cannot be opened.
// mstflint's mstconfig also complains on stderr about a name that is not a
// PCI address (it has no mst driver, so /dev/mst paths are among them).
func (t *tool) openFailed(dev string) int {
	if strings.HasPrefix(t.prog, "mst") && !bdfRe.MatchString(dev) {
		fmt.Fprintf(t.errw, "Unable to parse device name %s\n", dev)
	}
	t.printf("-E- Failed to open the device\n")
	return exitError
}

func (t *tool) undoable(what string) int {
	t.out.Flush()
	fmt.Fprintf(t.errw, "mlxconfig-double: %s is not simulated\n", what)
	return exitDouble
}

// mlxconfig parses arguments as MlxCfg::parseArgs: options, then the
// command, then its arguments.
func (t *tool) mlxconfig(args []string) int {
	var dev, cmd string
	yes, verbose := false, false
	i := 0
loop:
	for ; i < len(args); i++ {
		switch a := args[i]; a {
		case "-v", "--version":
			t.printf("%s, mlxconfig-double (test double of mstflint 4.21.0 / MFT 4.30)\n", t.prog)
			return exitOK
		case "-h", "--help":
			t.out.WriteString(strings.ReplaceAll(helpText, "mstconfig", t.prog))
			return exitOK
		case "-d", "--dev":
			if i++; i == len(args) {
				return t.usageError("missing device name")
			}
			dev = args[i]
		case "-y", "--yes", "-yy", "--yyes":
			yes = true
		case "-e", "--enable_verbosity":
			verbose = true
		case "set", "s":
			cmd = "set"
			break loop
		case "query", "q":
			cmd = "query"
			break loop
		case "reset", "r":
			cmd = "reset"
			break loop
		case "-j", "--json_format", "-f", "--file", "-b", "--db", "set_raw", "get_raw", "backup",
			"show_confs", "i", "clear_semaphore", "gen_tlvs_file", "g", "xml2raw", "raw2xml", "xml2bin", "create_conf", "apply":
			return t.undoable("mlxconfig " + a)
		default:
			return t.usageError("invalid argument: %s", a)
		}
	}
	i++
	rest := []string{}
	if i < len(args) {
		rest = args[i:]
	}
	switch {
	case cmd == "":
		return t.usageError("No command found. For more information please read the help message:")
	case cmd == "set" && len(rest) == 0:
		return t.usageError("missing configuration arguments. For more information please run %s -h|--help.", t.prog)
	case cmd == "set" && dev == "":
		return t.usageError("set command expects device to be specified.")
	}
	switch cmd {
	case "query":
		return t.query(dev, verbose, rest)
	case "set":
		return t.set(dev, yes, verbose, rest)
	default:
		return t.reset(dev, yes, rest)
	}
}

func (t *tool) printOpening(index int, name string, d *device) {
	t.printf("\nDevice #%d:\n", index)
	t.printf("----------\n\n")
	t.printf("%-20s%-20s\n", "Device type:", d.DeviceType)
	t.printf("%-20s%-20s\n", "Name:", d.Name)
	t.printf("%-20s%-20s\n", "Description:", d.Description)
	t.printf("%-20s%-20s\n", "Device:", name)
	t.printf("\n")
}

func (t *tool) printHeader(showDefault, showCurrent, showNew bool) {
	switch {
	case showDefault && showCurrent:
		t.printf("%-20s%44s%20s%18s", "Configurations:", "Default", "Current", "Next Boot")
	case showDefault:
		t.printf("%-20s%44s%18s", "Configurations:", "Default", "Next Boot")
	case showCurrent:
		t.printf("%-20s%46s%18s", "Configurations:", "Current", "Next Boot")
	default:
		t.printf("%-20s%46s", "Configurations:", "Next Boot")
	}
	if showNew {
		t.printf("       %s", "New")
	}
	t.printf("\n")
}

// printRow prints one parameter: mark, RO, the name padded to 44, then each
// value "%-20s", with a blank between values whenever the previous one
// filled its 20 columns (which "%-20s" always does).
func (t *tool) printRow(modified, ro bool, name string, vals ...string) {
	mark, r := " ", "  "
	if modified {
		mark = "*"
	}
	if ro {
		r = "RO"
	}
	t.printf("%s%s     %-44s", mark, r, name)
	width := 0
	for _, v := range vals {
		if width >= 20 {
			t.printf(" ")
		}
		n, _ := fmt.Fprintf(t.out, "%-20s", v)
		width = n
	}
	t.printf("\n")
}

func (t *tool) printNotes(anyModified, anyRO, verbose bool, d *device) {
	if anyModified {
		t.printf("The '*' shows parameters with next value different from default/current value.\n")
	}
	if anyRO {
		t.printf("\nThe 'RO' shows parameters which are for read only and cannot be changed\n")
	}
	if verbose && d.NoDefaultCurrent {
		t.printf("Device Firmware does not support reading default and current configurations\n")
	}
}

// resolve checks the names as the tool does: first that its database knows
// each ("Unknown Parameter: X"), then that the device reports it ("The Device
// doesn't support X parameter").
func resolve(d *device, names []string) ([]*param, string) {
	for _, n := range names {
		if d.param(n) != nil {
			continue
		}
		if _, err := hca.Lookup(n); err != nil {
			return nil, fmt.Sprintf("Unknown Parameter: %s", n)
		}
	}
	var out []*param
	for _, n := range names {
		p := d.param(n)
		if p == nil {
			return nil, fmt.Sprintf("The Device doesn't support %s parameter", n)
		}
		out = append(out, p)
	}
	return out, ""
}

func (t *tool) devices(dev string) ([]*device, []string, int) {
	if dev == "" {
		if len(t.st.st.Devices) == 0 {
			t.printf("-E- Failed to get devices.\n")
			return nil, nil, exitError
		}
		var names []string
		for _, d := range t.st.st.Devices {
			names = append(names, d.Device)
		}
		return t.st.st.Devices, names, exitOK
	}
	d := t.st.st.find(dev)
	if d == nil {
		return nil, nil, t.openFailed(dev)
	}
	return []*device{d}, []string{dev}, exitOK
}

func hasIndex(names []string) bool {
	for _, n := range names {
		if strings.Contains(n, "[") {
			return true
		}
	}
	return false
}

func (t *tool) query(dev string, verbose bool, names []string) int {
	if hasIndex(names) {
		return t.undoable("querying array elements")
	}
	devs, devNames, rc := t.devices(dev)
	if rc != exitOK {
		return rc
	}
	fail := false
	for i, d := range devs {
		showDC := verbose && !d.NoDefaultCurrent
		t.printOpening(i+1, devNames[i], d)
		t.printHeader(showDC, showDC, false)
		params := d.Params
		if len(names) > 0 {
			var msg string
			if params, msg = resolve(d, names); msg != "" {
				t.printf("-E- %s\n", msg)
				fail = true
				continue
			}
		}
		anyMod, anyRO := false, false
		for _, p := range params {
			vals := []string{p.Next}
			mod := false
			if showDC {
				vals = []string{p.def(), p.current(), p.Next}
				mod = p.Next != p.def() || p.Next != p.current()
			}
			t.printRow(mod, p.ReadOnly, p.Name, vals...)
			anyMod, anyRO = anyMod || mod, anyRO || p.ReadOnly
		}
		t.printNotes(anyMod, anyRO, verbose, d)
		if len(params) == 0 {
			t.printf("-E- Device doesn't support any configuration changes.\n")
			fail = true
		}
	}
	if fail {
		return exitError
	}
	return exitOK
}

type setReq struct {
	name string
	arg  string
	spec hca.Spec
	num  uint64
	str  string // strVal: the canonical enum name, or the number as the user wrote it
	p    *param
}

// printed is how mlxconfig prints a value (MlxCfg::printValue): the bare
// number when the text is empty or is that number in decimal, else
// "text(number)".
func printed(str string, num uint64) string {
	s := strconv.FormatUint(num, 10)
	if n, err := strconv.ParseUint(str, 10, 32); str == "" || str == s || (err == nil && n == num) {
		return s
	}
	return str + "(" + s + ")"
}

// strtoul is C strtoul with base (0: 0x hex, leading 0 octal, else decimal),
// which mlxconfig's strToNum wraps.
func strtoul(s string, base int) (uint64, bool, bool) {
	if s == "" {
		return 0, true, false
	}
	if base == 0 {
		base = 10
		switch {
		case len(s) > 2 && (s[:2] == "0x" || s[:2] == "0X"):
			base, s = 16, s[2:]
		case len(s) > 1 && s[0] == '0':
			base, s = 8, s[1:]
		}
	} else if base == 16 {
		s = strings.TrimPrefix(strings.TrimPrefix(s, "0x"), "0X")
	}
	if strings.ContainsRune(s, '_') {
		return 0, false, false
	}
	n, err := strconv.ParseUint(s, base, 64)
	if err != nil {
		var ne *strconv.NumError
		if errors.As(err, &ne) && ne.Err == strconv.ErrRange {
			return 0, false, true
		}
		return 0, false, false
	}
	if n > 0xffffffff {
		return 0, false, true
	}
	return n, true, false
}

// parseValue follows the ParamValue classes: enums and bools by number or
// by name (case-insensitive), unsigned numbers within their bit width.
func parseValue(r *setReq) string {
	s := r.spec
	switch s.Type {
	case hca.TypeEnum, hca.TypeBool:
		n, ok, rangeErr := strtoul(r.arg, 0)
		if rangeErr {
			return "value is out of range"
		}
		for _, ev := range s.Enum {
			if (ok && ev.Value == n) || (!ok && strings.EqualFold(ev.Name, r.arg)) {
				r.num, r.str = ev.Value, ev.Name
				return ""
			}
		}
		return "Unknown value " + r.arg
	case hca.TypeUnsigned, hca.TypeInteger, hca.TypeBinary:
		base := 0
		if s.Type == hca.TypeBinary {
			base = 16
			if len(strings.TrimPrefix(strings.TrimPrefix(r.arg, "0x"), "0X")) > 8 {
				return fmt.Sprintf("Value %s exceeds max allowed value(4 bytes)", r.arg)
			}
		}
		n, ok, rangeErr := strtoul(r.arg, base)
		switch {
		case rangeErr:
			return "value is out of range"
		case !ok:
			return "Cannot parse the value"
		case s.Bits == 32 && n == 0xffffffff:
			return fmt.Sprintf("The value %s is reserved and cannot be used", r.arg)
		case s.Bits < 32 && n > (uint64(1)<<s.Bits)-1:
			return fmt.Sprintf("The value %s is not valid,  as its size is %d bits", r.arg, s.Bits)
		}
		r.num, r.str = n, r.arg
		return ""
	}
	r.str = r.arg
	return ""
}

// splitArg splits NAME=VALUE the way strtok(arg, "=") does, and returns what
// the tool's error message would show of the argument: strtok writes a NUL
// over the "=" that ends the first token, so only that much is printed.
func splitArg(arg string) (tag, val string, shown string, ok bool) {
	var toks []string
	firstEnd := -1
	for i := 0; i < len(arg); {
		for i < len(arg) && arg[i] == '=' {
			i++
		}
		if i == len(arg) {
			break
		}
		j := i
		for j < len(arg) && arg[j] != '=' {
			j++
		}
		toks = append(toks, arg[i:j])
		if firstEnd < 0 {
			firstEnd = j
		}
		i = j
	}
	shown = arg
	if firstEnd >= 0 && firstEnd < len(arg) {
		shown = arg[:firstEnd]
	}
	if len(toks) != 2 {
		return "", "", shown, false
	}
	return toks[0], toks[1], shown, true
}

func (t *tool) set(dev string, yes, verbose bool, args []string) int {
	var reqs []*setReq
	seen := map[string]bool{}
	for _, a := range args {
		tag, val, shown, ok := splitArg(a)
		if !ok {
			return t.usageError("Invalid Configuration argument %s", shown)
		}
		if seen[tag] {
			return t.usageError("Duplicate parameter, %s.", tag)
		}
		seen[tag] = true
		reqs = append(reqs, &setReq{name: tag, arg: val})
	}
	for _, r := range reqs {
		if strings.Contains(r.name, "[") {
			return t.undoable("setting array elements")
		}
	}
	d := t.st.st.find(dev)
	if d == nil {
		return t.openFailed(dev)
	}
	showDC := verbose && !d.NoDefaultCurrent
	t.printOpening(1, dev, d)
	t.printHeader(showDC, showDC, true)
	// updateParamViewValue: the name must be in the database and the value
	// must parse, parameter by parameter in the order given.
	for _, r := range reqs {
		spec, err := hca.Lookup(r.name)
		if err != nil {
			t.printf("-E- Unknown Parameter: %s\n", r.name)
			return exitError
		}
		r.spec = spec
		if msg := parseValue(r); msg != "" {
			t.printf("-E- %s\n", msg)
			return exitError
		}
	}
	// Then the device is queried for them.
	names := make([]string, len(reqs))
	for i, r := range reqs {
		names[i] = r.name
	}
	params, msg := resolve(d, names)
	if msg != "" {
		t.printf("-E- %s\n", msg)
		return exitError
	}
	anyMod, anyRO := false, false
	for i, r := range reqs {
		r.p = params[i]
		p := r.p
		vals := []string{p.Next, printed(r.str, r.num)}
		mod := false
		if showDC {
			vals = append([]string{p.def(), p.current()}, vals...)
			mod = p.Next != p.def() || p.Next != p.current()
		}
		if r.spec.Type != hca.TypeEnum && r.spec.Type != hca.TypeBool && r.spec.Type != hca.TypeUnsigned &&
			r.spec.Type != hca.TypeInteger && r.spec.Type != hca.TypeBinary {
			vals[len(vals)-1] = r.str
		}
		t.printRow(mod, p.ReadOnly, p.Name, vals...)
		anyMod, anyRO = anyMod || mod, anyRO || p.ReadOnly
	}
	t.printNotes(anyMod, anyRO, verbose, d)
	if !t.ask("Apply new Configuration?", yes) {
		t.printf("-E- Aborted by user.\n")
		return exitAborted
	}
	t.printf("Applying... ")
	for _, r := range reqs {
		if r.p.ReadOnly {
			// Unverified wording: no public source shows this refusal.
			t.printf("Failed!\n-E- The parameter %s is read only\n", r.name)
			return exitError
		}
		bound := r.p.Max
		if r.spec.Max != nil && (bound == nil || *r.spec.Max < *bound) {
			bound = r.spec.Max
		}
		if bound != nil && r.num > *bound {
			t.printf("Failed!\n-E- Parameter %s' value is larger than maximum allowed %d\n", r.name, *bound)
			return exitError
		}
		if r.spec.Min != nil && r.num < *r.spec.Min {
			t.printf("Failed!\n-E- Parameter %s' value is smaller than minimum allowed %d\n", r.name, *r.spec.Min)
			return exitError
		}
	}
	for _, r := range reqs {
		// The JSON keeps current and default explicit once a value moves,
		// so that a test reading the file sees all three.
		cur, def := r.p.current(), r.p.def()
		r.p.Current, r.p.Default = cur, def
		switch r.spec.Type {
		case hca.TypeEnum, hca.TypeBool:
			r.p.Next = printed(r.str, r.num)
		case hca.TypeBinary:
			r.p.Next = "0x" + strconv.FormatUint(r.num, 16)
		case hca.TypeUnsigned, hca.TypeInteger:
			r.p.Next = strconv.FormatUint(r.num, 10)
		default:
			r.p.Next = r.str
		}
	}
	if err := t.st.save(); err != nil {
		t.printf("Failed!\n-E- %v\n", err)
		return exitError
	}
	t.printf("Done!\n")
	t.printf("-I- Please reboot machine to load new configurations.\n")
	return exitOK
}

// ask is MlxCfg::askUser: "\n " question " (y/n) [n] : ", then "y" echoed
// with -y, else one line read from stdin.
func (t *tool) ask(question string, yes bool) bool {
	t.printf("\n %s (y/n) [n] : ", question)
	if yes {
		t.printf("y\n")
		return true
	}
	t.out.Flush()
	line, _ := t.in.ReadString('\n')
	line = strings.TrimRight(line, "\r\n")
	return strings.EqualFold(line, "y") || strings.EqualFold(line, "yes")
}

// reset is "mlxconfig -d DEV reset": every Next Boot value back to default.
func (t *tool) reset(dev string, yes bool, names []string) int {
	if len(names) > 0 {
		return t.undoable("resetting single TLVs")
	}
	if dev == "" {
		return t.undoable("resetting every device")
	}
	if !t.ask(fmt.Sprintf("Reset configuration for device %s?", dev), yes) {
		t.printf("-E- Aborted by user.\n")
		return exitAborted
	}
	t.printf("Applying... ")
	d := t.st.st.find(dev)
	if d == nil {
		t.printf("Failed!\n-E- Failed to open the device\n")
		return exitError
	}
	for _, p := range d.Params {
		if !p.ReadOnly {
			cur, def := p.current(), p.def()
			p.Current, p.Default, p.Next = cur, def, def
		}
	}
	if err := t.st.save(); err != nil {
		t.printf("Failed!\n-E- %v\n", err)
		return exitError
	}
	t.printf("Done!\n")
	t.printf("-I- Please reboot machine to load new configurations.\n")
	return exitOK
}

// flintOpenFailed is what mstflint printed here for devices it cannot open.
func (t *tool) flintOpenFailed(dev string) int {
	why := "No such file or directory"
	if !bdfRe.MatchString(dev) {
		fmt.Fprintf(t.errw, "Unable to parse device name %s\nUnable to parse device name %s\n", dev, dev)
		why = "Invalid argument"
	}
	t.printf("-E- Cannot open Device: %s. %s. MFE_CR_ERROR\n", dev, why)
	return 1
}

// flint handles "flint -d DEV q[uery]", "flint -i IMAGE q[uery]" and
// "flint -d DEV -i IMAGE [-y] b[urn]" (firmware.go).
func (t *tool) flint(args []string) int {
	var dev, img, cmd string
	yes := false
	for i := 0; i < len(args); i++ {
		switch a := args[i]; a {
		case "-d", "-device", "--device":
			if i++; i < len(args) {
				dev = args[i]
			}
		case "-i", "-image", "--image":
			if i++; i < len(args) {
				img = args[i]
			}
		case "-y", "-yes", "--yes":
			yes = true
		case "q", "query":
			cmd = "query"
		case "b", "burn":
			cmd = "burn"
		default:
			return t.undoable("flint " + a)
		}
	}
	switch {
	case cmd == "query" && dev != "" && img == "":
		d := t.st.st.find(dev)
		if d == nil {
			return t.flintOpenFailed(dev)
		}
		if d.Firmware == nil {
			return t.undoable("flint query of a device without firmware in the state")
		}
		t.printFirmware(d.Firmware)
		return exitOK
	case cmd == "query" && img != "" && dev == "":
		fw, rc := t.openImage(img)
		if fw == nil {
			return rc
		}
		t.printFirmware(fw)
		return exitOK
	case cmd == "burn" && img != "" && dev != "":
		return t.burn(dev, img, yes)
	}
	return t.undoable(fmt.Sprintf("flint %s with device %q and image %q", cmd, dev, img))
}

// printFirmware prints a query of a card or of an image file: labels padded to column 23
// (flint/subcommands.cpp QuerySubCommand, "%-23s"), in the FS3/FS4 order of wave4-facts 5.2.
func (t *tool) printFirmware(fw *firmware) {
	line := func(k, v string) {
		if v != "" {
			t.printf("%-23s%s\n", k+":", v)
		}
	}
	line("Image type", fw.ImageType)
	line("FW Version", fw.FWVersion)
	if fw.RunningVersion != "" && fw.RunningVersion != fw.FWVersion {
		line("FW Version(Running)", fw.RunningVersion)
	}
	line("FW Release Date", fw.FWReleaseDate)
	line("Product Version", fw.ProductVersion)
	for i, r := range fw.RomInfo {
		if i == 0 {
			line("Rom Info", r)
		} else {
			t.printf("%-23s%s\n", "", r)
		}
	}
	line("Description", fw.Description)
	line("Base GUID", fw.BaseGUID)
	line("Base MAC", fw.BaseMAC)
	line("Image VSD", fw.ImageVSD)
	line("Device VSD", fw.DeviceVSD)
	line("PSID", fw.PSID)
	line("Security Attributes", fw.SecurityAttributes)
}

var resetLevels = map[string]string{
	"0": `Driver, PCI link, network link will remain up ("live-Patch")`,
	"3": "Driver restart and PCI reset",
	"4": "Warm Reboot",
	"5": "Cold Reboot",
}

// queryLevels are the reset levels "mlxfwreset query" lists, in order, as
// mstflint's cmd_reg_mfrl.py (reset_levels_db) describes them; validDefault
// says which may be the default (the lowest supported one that may is).
var queryLevels = []struct {
	level        int
	desc         string
	validDefault bool
}{
	{0, `Driver, PCI link, network link will remain up ("live-Patch")`, true},
	{1, `Only ARM side will not remain up ("Immediate reset").`, false},
	{3, "Driver restart and PCI reset", true},
	{4, "Warm Reboot", true},
}

// defaultResetLevel is mlxfwreset's default: the lowest supported level
// that may be a default (CmdRegMfrl.default_reset_level); -1 when none is.
func defaultResetLevel(supported []int) int {
	for _, l := range queryLevels {
		if l.validDefault && slices.Contains(supported, l.level) {
			return l.level
		}
	}
	return -1
}

// fwresetQuery prints "mlxfwreset -d DEV query" for a card without the
// MROQ register (ConnectX-7 firmware of MFT 4.30's time): the reset levels
// (CmdRegMfrl.query_text), the reset types and the reset sync
// (CmdRegMcam.reset_sync_query_text), each line "%d: %-62s-%-14s%s" and each
// section ended by the blank line Python's print adds. The types and sync
// lines are those of a real run (a BlueField-3, github.com/j3soon/
// bluefield-dpu-setup-notes, README.md); the levels come from the state.
func (t *tool) fwresetQuery(d *device) int {
	supported := d.resetLevels()
	def := defaultResetLevel(supported)
	if def < 0 {
		t.printf("-E- There is no supported reset-level.\n")
		return 1
	}
	line := func(n int, desc, sup, dflt string) {
		t.printf("%d: %-62s-%-14s%s\n", n, desc, sup, dflt)
	}
	t.printf("Reset-levels:\n")
	for _, l := range queryLevels {
		sup, dflt := "Not Supported", ""
		if slices.Contains(supported, l.level) {
			sup = "Supported"
		}
		if l.level == def {
			dflt = "(default)"
		}
		line(l.level, l.desc, sup, dflt)
	}
	t.printf("\nReset-types (relevant only for reset-levels 1,3,4):\n")
	for i, typ := range []string{"Full chip reset", "Phy-less reset (keep network port active during reset)",
		"NIC only reset (for SoC devices)", "ARM only reset", "ARM OS shut down"} {
		if i == 0 {
			line(i, typ, "Supported", "(default)")
		} else {
			line(i, typ, "Not Supported", "")
		}
	}
	t.printf("\n")
	t.printf("Reset-sync (relevant only for reset-level 3):\n")
	line(0, "Tool is the owner", "Not supported", "")
	line(1, "Driver is the owner", "Supported", "(default)")
	t.printf("\n")
	return exitOK
}

// fwreset handles "mlxfwreset -d DEV [-l LEVEL] [-y] reset": the Next Boot
// configuration becomes the Current one, as after the real firmware reset.
// The text follows an MFT 4.30 mlxfwreset run on a ConnectX-7.
func (t *tool) fwreset(args []string) int {
	var dev, cmd string
	level, yes := "", false
	for i := 0; i < len(args); i++ {
		switch a := args[i]; a {
		case "-d", "--device":
			if i++; i < len(args) {
				dev = args[i]
			}
		case "-l", "--level":
			if i++; i < len(args) {
				level = args[i]
			}
		case "-y", "--yes":
			yes = true
		case "-t", "--type", "--sync":
			i++
		case "-s", "--skip_driver":
		case "r", "reset":
			cmd = "reset"
		case "q", "query":
			cmd = "query"
		default:
			return t.undoable(t.prog + " " + a)
		}
	}
	if dev == "" || cmd == "" {
		return t.undoable(t.prog + " without -d DEV and a command")
	}
	if _, ok := resetLevels[level]; level != "" && !ok {
		t.out.Flush()
		fmt.Fprintf(t.errw, "%s: error: argument --level/-l: invalid choice: '%s' (choose from 0, 3, 4, 5)\n", t.prog, level)
		return 2
	}
	d := t.st.st.find(dev)
	if d == nil {
		t.printf("-E- Cannot open Device: %s. No such file or directory. MFE_CR_ERROR\n", dev)
		return 1
	}
	if cmd == "query" {
		return t.fwresetQuery(d)
	}
	// The level asked for, or the default; one the card does not support in
	// its current state is refused before the prompt (mstfwreset.py).
	if level == "" {
		def := defaultResetLevel(d.resetLevels())
		if def < 0 {
			t.printf("-E- There is no supported reset-level.\n")
			return 1
		}
		level = strconv.Itoa(def)
	}
	if n, _ := strconv.Atoi(level); !slices.Contains(d.resetLevels(), n) {
		t.printf("-E- Reset-level '%s' is not supported in the current state of this device.\n", level)
		return 1
	}
	desc := resetLevels[level]
	t.printf("\nThe reset level for device, %s is:\n\n%s: %s\n", dev, level, desc)
	t.printf("Continue with reset?[y/N] ")
	if yes {
		t.printf("y\n")
	} else {
		t.out.Flush()
		line, _ := t.in.ReadString('\n')
		if l := strings.TrimSpace(line); !strings.EqualFold(l, "y") && !strings.EqualFold(l, "yes") {
			t.printf("-E- Aborted by user\n")
			return 1
		}
	}
	for _, p := range d.Params {
		p.Current = p.Next
	}
	// A firmware reset also loads a burned image: the running version is the flash's again.
	if d.Firmware != nil {
		d.Firmware.RunningVersion = ""
	}
	if err := t.st.save(); err != nil {
		t.printf("-E- %v\n", err)
		return 1
	}
	for _, s := range []string{"Sending Reset Command To Fw", "Stopping Driver", "Resetting PCI", "Starting Driver", "Restarting MST"} {
		t.printf("-I- %-40s-Done\n", s)
	}
	t.printf("-I- FW was loaded successfully.\n")
	return exitOK
}
