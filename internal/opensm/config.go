package opensm

import (
	"fmt"
	"path"
	"sort"
	"strings"
)

// File names of the set the provider writes to an SM host. They are stable: internal/remote
// writes them under Paths.ConfigDir and the opensm.conf refers to them by these names.
const (
	FileOpenSMConf  = "opensm.conf"
	FilePartitions  = "partitions.conf"
	FileRootGUIDs   = "root_guids.conf"
	FileCNGUIDs     = "cn_guids.conf"
	FileNodeNameMap = "node-name-map"
	// FileTorus2QoS (torus.go) is the sixth file.
)

// FileNames lists the files of a Files set in the order they are best written: the files
// opensm.conf refers to first, opensm.conf last, so a reader never sees a reference to a file
// that is not there yet.
var FileNames = []string{FilePartitions, FileRootGUIDs, FileCNGUIDs, FileNodeNameMap, FileTorus2QoS, FileOpenSMConf}

// FileAttributes names each file's attribute in the computed `opensm` object of
// gpucluster_fabric (a digest per file, the design guide's fixed shape).
var FileAttributes = map[string]string{
	FileOpenSMConf:  "opensm_conf",
	FilePartitions:  "partitions_conf",
	FileRootGUIDs:   "root_guids",
	FileCNGUIDs:     "cn_guids",
	FileNodeNameMap: "node_name_map",
	FileTorus2QoS:   "torus_2qos_conf",
}

// Files is a rendered file set: file name (one of FileNames) to exact content.
type Files map[string]string

// DefaultConfigDir is where Debian's and the upstream opensm packages look for their files.
const DefaultConfigDir = "/etc/opensm"

// Paths says where the files live on the SM host.
type Paths struct {
	ConfigDir string // absolute directory; "" means DefaultConfigDir
}

// Dir returns the configuration directory.
func (p Paths) Dir() string {
	if p.ConfigDir == "" {
		return DefaultConfigDir
	}
	return p.ConfigDir
}

// Path returns the absolute path of one of FileNames.
func (p Paths) Path(name string) string { return path.Join(p.Dir(), name) }

// NodeName maps a GUID to the name OpenSM prints for it (node_name_map_name).
type NodeName struct {
	GUID GUID
	Name string
}

// Config is everything the OpenSM files say. The provider fills it with FromGraph; tests and
// other callers may fill it directly.
type Config struct {
	// RoutingEngine is routing_engine: one engine or a comma list tried in order, optionally
	// with no_fallback. "" leaves OpenSM's default (minhop) and writes no line.
	RoutingEngine string
	LMC           int               // 0-7
	Options       map[string]string // further opensm.conf options, validated against opt_tbl
	// Roots are the root (top-tier) switch GUIDs for ftree, updn and dnup (root_guid_file).
	// ComputeNodes are the HCA port GUIDs of compute nodes for ftree (cn_guid_file). Port
	// GUIDs, never node GUIDs: with node GUIDs ftree cannot find the CNs and falls back.
	//
	// Both lists are always written to their files; opensm.conf names a file only when an
	// engine in RoutingEngine reads it. So a change of engine never empties a file that the
	// running OpenSM still reads: until the restart, the old engine re-reads the file on every
	// heavy sweep, and ftree with an empty CN file falls back to minhop (seen on ibsim:
	// "ERR AB27: Compute node guids file has no valid guids").
	Roots        []GUID
	ComputeNodes []GUID
	NodeNames    []NodeName
	Partitions   []Partition
	// DefaultMembership is the membership of every port in the Default partition (0x7fff):
	// Full (the default, as OpenSM does without a partition file) or Limited, which isolates
	// ports that share no other partition. The SM's own port is always a full member.
	DefaultMembership string
	Paths             Paths
	// Flavor is the subnet manager build the hosts run ("" is FlavorOpenSM): the engines and
	// options are checked against its own table.
	Flavor Flavor
	// Torus is the torus description of a generated torus (TorusFromGraph), written to
	// FileTorus2QoS and named by torus_config; nil writes the file as a comment only.
	Torus *TorusSeed
}

// engines returns the engine names of the config (nil when none is set or the list is bad).
func (c *Config) engines() []string {
	if c.RoutingEngine == "" {
		return nil
	}
	e, _, err := ParseEnginesFor(c.Flavor, c.RoutingEngine)
	if err != nil {
		return nil
	}
	return e
}

func hasEngine(list []string, names ...string) bool {
	for _, e := range list {
		for _, n := range names {
			if e == n {
				return true
			}
		}
	}
	return false
}

// Validate reports everything in the Config that OpenSM would reject, ignore or fall back from.
func (c *Config) Validate() Errors {
	var errs Errors
	engines := c.engines()
	switch c.Flavor {
	case "", FlavorOpenSM, FlavorNVIDIA:
	default:
		errs.add(settingLoc("flavor"), "", fmt.Sprintf("flavor %q must be %q (upstream OpenSM 3.3) or %q (NVIDIA SM, OpenSM 5.x, shipped with UFM and MLNX_OFED)", c.Flavor, FlavorOpenSM, FlavorNVIDIA))
	}
	if c.RoutingEngine != "" {
		if _, _, err := ParseEnginesFor(c.Flavor, c.RoutingEngine); err != nil {
			errs.add(settingLoc("routing_engine"), "routing_engine", err.Error())
		}
	}
	if c.LMC < 0 || c.LMC > 7 {
		errs.add(settingLoc("lmc"), "lmc", fmt.Sprintf("lmc %d is out of range 0-7 (each port gets 2^lmc LIDs)", c.LMC))
	} else if c.LMC > 0 {
		for _, e := range []string{"ftree", "lash"} {
			if hasEngine(engines, e) {
				errs.add(settingLoc("lmc"), "lmc", fmt.Sprintf("lmc %d with routing engine %s: %s does not support LMC > 0 and OpenSM silently routes with the fallback engine instead (opensm(8)); use lmc 0, or dfsssp/updn/minhop for multiple LIDs", c.LMC, e, e))
			}
		}
	}
	keys := make([]string, 0, len(c.Options))
	for k := range c.Options {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		f := settingLoc("options", k)
		if attr, managed := managedOptions[k]; managed {
			errs.add(f, k, fmt.Sprintf("%s is written by the provider from %s; set that instead", k, attr))
			continue
		}
		if err := CheckOptionFor(c.Flavor, k, c.Options[k]); err != nil {
			errs.add(f, k, err.Error())
		}
	}
	qos := strings.TrimSpace(c.Options["qos"]) == "TRUE"
	for _, e := range []string{"lash", "dfsssp", "torus-2QoS"} {
		if hasEngine(engines, e) && !qos {
			errs.add(settingLoc("routing_engine"), "qos", fmt.Sprintf("routing engine %s keeps routes deadlock-free with virtual lanes, which needs QoS: set the option qos = TRUE (opensm(8): lash, dfsssp and torus-2QoS want -Q)", e))
		}
	}
	torusConf := strings.TrimSpace(c.Options["torus_config"])
	switch {
	case c.Torus != nil && torusConf != "":
		errs.add(settingLoc("options", "torus_config"), "torus_config", fmt.Sprintf("the provider writes the torus description of the generated torus to %s and names it in torus_config; remove options.torus_config (or give your own description without the design's)", c.Paths.Path(FileTorus2QoS)))
	case c.Torus == nil && torusConf == c.Paths.Path(FileTorus2QoS):
		errs.add(settingLoc("options", "torus_config"), "torus_config", fmt.Sprintf("%s is the provider's own file, which holds a torus description only for a torus generated from a design; keep your description under another name and point torus_config at it", torusConf))
	}
	if hasEngine(engines, "torus-2QoS") && torusConf == "" && c.Torus == nil {
		errs.add(settingLoc("options", "torus_config"), "torus_config", "routing engine torus-2QoS needs its torus description (torus-2QoS.conf(5): torus or mesh sizes and the xp/yp/zp seed links); without it OpenSM logs ERR 4E11 and falls back to minhop. Set options.torus_config to the path of that file on the SM host")
	}
	checkGUIDList(&errs, "roots", c.Roots)
	checkGUIDList(&errs, "compute_nodes", c.ComputeNodes)
	seen := map[GUID]int{}
	for i, n := range c.NodeNames {
		f := settingLoc("node_names").At(i)
		if n.GUID == 0 {
			errs.add(f, "node_name_map_name", "node name entry without a GUID")
		}
		if n.Name == "" || strings.ContainsAny(n.Name, "\"\n\r#") {
			errs.add(f, "node_name_map_name", fmt.Sprintf("node name %q must be non-empty and hold no '\"', '#' or line break", n.Name))
		}
		if j, dup := seen[n.GUID]; dup && n.GUID != 0 {
			errs.add(f, "node_name_map_name", fmt.Sprintf("GUID %s is already named by node_names[%d]", n.GUID, j))
		} else {
			seen[n.GUID] = i
		}
	}
	switch c.DefaultMembership {
	case "", Full, Limited:
	default:
		errs.add(settingLoc("default_membership"), "", fmt.Sprintf("default membership %q must be %q or %q", c.DefaultMembership, Full, Limited))
	}
	errs = append(errs, validatePartitions(c.Partitions, qos)...)
	if d := c.Paths.ConfigDir; d != "" && (!strings.HasPrefix(d, "/") || strings.ContainsAny(d, " \t\n#\"")) {
		errs.add(settingLoc("config_dir"), "", fmt.Sprintf("config directory %q must be an absolute path without blanks, quotes or '#'", d))
	}
	return errs
}

func checkGUIDList(errs *Errors, field string, list []GUID) {
	seen := map[GUID]int{}
	for i, g := range list {
		f := settingLoc(field).At(i)
		if g == 0 {
			errs.add(f, "", "zero GUID")
			continue
		}
		if j, dup := seen[g]; dup {
			errs.add(f, "", fmt.Sprintf("GUID %s is listed twice (also %s[%d])", g, field, j))
		} else {
			seen[g] = i
		}
	}
}

// defaultPartition is the Default partition the provider always writes. With Limited, the SM
// port stays a full member (OpenSM's own rule for a file without Default: opensm(8), PARTITION
// CONFIGURATION).
func (c *Config) defaultPartition() Partition {
	p := Partition{Name: "Default", PKey: DefaultPKey, IPoIB: true}
	if c.DefaultMembership == Limited {
		p.Members = []Member{{Keyword: "ALL", Membership: Limited}, {Keyword: "SELF", Membership: Full}}
	} else {
		p.Members = []Member{{Keyword: "ALL", Membership: Full}}
	}
	return p
}

const generatedBy = "# Written by terraform-provider-gpucluster: edits are overwritten on the next apply.\n"

// Render validates the Config and writes its files. The output depends only on the Config.
//
// The formats are those OpenSM 3.3.23 reads (linux-rdma/opensm; opensm(8)): opensm.conf as
// osm_subnet.c's opt_tbl parses it (-F), partitions.conf as osm_prtn_config.c does (opensm(8),
// PARTITION CONFIGURATION; doc/partition-config.txt), with 15-bit P_Keys and full or limited
// membership (InfiniBand Architecture Specification vol. 1, 10.9.1) and the IBTA MTU and rate
// codes of fabric.MTUCode and fabric.PathRates; the root and compute-node GUID files of ftree and
// updn (-a, -u), the node name map as infiniband-diags reads it, and the torus description
// (torus-2QoS.conf(5)). NVIDIA SM's additions are those its documents name (flavor.go).
func Render(c Config) (Files, error) {
	if errs := c.Validate(); len(errs) > 0 {
		return nil, errs
	}
	files := Files{}
	var b strings.Builder
	fmt.Fprintf(&b, "# %s option file, read with `opensm -F <file>` (opensm(8)).\n", c.Flavor.Title())
	b.WriteString(generatedBy)
	if c.RoutingEngine != "" {
		fmt.Fprintf(&b, "routing_engine %s\n", c.RoutingEngine)
	}
	fmt.Fprintf(&b, "lmc %d\n", c.LMC)
	engines := c.engines()
	if len(c.Roots) > 0 && hasEngine(engines, rootEngines...) {
		fmt.Fprintf(&b, "root_guid_file %s\n", c.Paths.Path(FileRootGUIDs))
	}
	if len(c.ComputeNodes) > 0 && hasEngine(engines, cnEngines...) {
		fmt.Fprintf(&b, "cn_guid_file %s\n", c.Paths.Path(FileCNGUIDs))
	}
	fmt.Fprintf(&b, "partition_config_file %s\n", c.Paths.Path(FilePartitions))
	fmt.Fprintf(&b, "node_name_map_name %s\n", c.Paths.Path(FileNodeNameMap))
	if c.Torus != nil {
		fmt.Fprintf(&b, "torus_config %s\n", c.Paths.Path(FileTorus2QoS))
	}
	keys := make([]string, 0, len(c.Options))
	for k := range c.Options {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(&b, "%s %s\n", k, strings.TrimSpace(c.Options[k]))
	}
	files[FileOpenSMConf] = b.String()
	files[FileRootGUIDs] = guidFile("Root switch GUIDs for ftree/updn (root_guid_file), one per line.", c.Roots)
	files[FileCNGUIDs] = guidFile("Compute-node HCA port GUIDs for ftree (cn_guid_file), one per line.", c.ComputeNodes)
	files[FilePartitions] = renderPartitions(c.defaultPartition(), c.Partitions)
	var nm strings.Builder
	nm.WriteString("# OpenSM node name map (node_name_map_name): GUID \"name\".\n")
	nm.WriteString(generatedBy)
	for _, n := range c.NodeNames {
		fmt.Fprintf(&nm, "%s \"%s\"\n", n.GUID, n.Name)
	}
	files[FileNodeNameMap] = nm.String()
	files[FileTorus2QoS] = noTorusText
	if c.Torus != nil {
		files[FileTorus2QoS] = c.Torus.Text()
	}
	return files, nil
}

// guidFile writes a GUID list. OpenSM reads it with parse_node_map, which skips '#' lines and
// wants each GUID followed by white space, so every line ends with a newline.
func guidFile(what string, guids []GUID) string {
	var b strings.Builder
	b.WriteString("# " + what + "\n")
	b.WriteString(generatedBy)
	for _, g := range guids {
		b.WriteString(g.String() + "\n")
	}
	return b.String()
}
