package plan

import (
	"errors"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/opensm"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/partition"
)

// OpenSMSettings are the subnet manager's settings that shape the files and the routes: the
// fabric's `subnet_manager` render settings (gpucluster_opensm_files takes the same).
type OpenSMSettings struct {
	Graph   opensm.GraphOptions
	LogFile string // the log the push's verification reads; "" for OpenSM's own
}

// Rendered is the text of every file the fabric pushes and what a good routing run of them looks
// like (the verification after a push).
type Rendered struct {
	Files  opensm.Files
	Expect opensm.Expect
	// Partitions are the fabric's partitions with members resolved to port GUIDs, Default
	// excluded: what the fabric's partition target applies.
	Partitions []partition.Partition
	// Config is the OpenSM configuration the Files render (with Partitions): the OpenSM target
	// renders it again with the partitions it is given (opensm.HostsTarget).
	Config opensm.Config
}

// configured is the OpenSM configuration of a fabric, derived once from its graph: the route
// model reads it, and the files are rendered from it.
type configured struct {
	f        *Fabric
	settings OpenSMSettings
	cfg      opensm.Config
	errs     opensm.Errors // why the files cannot be rendered; cfg is what could be derived
}

// configure derives the configuration with the settings (opensm.FromGraph, once).
func configure(f *Fabric, s OpenSMSettings) *configured {
	c := &configured{f: f, settings: s}
	gopts, ferr := s.Graph.WithLogFile(s.LogFile)
	if ferr != nil {
		// The log file settings contradict each other; the routes do not depend on them.
		c.errs, gopts = opensm.Errors{ferr}, s.Graph
	}
	cfg, err := opensm.FromGraph(f.Graph, gopts)
	c.cfg = cfg
	if err != nil && c.errs == nil {
		if !errors.As(err, &c.errs) {
			c.errs = opensm.Errors{{Message: err.Error()}}
		}
	}
	return c
}

// render writes the files, or says on which attributes they cannot be: as errors when the files
// are pushed (managed), else as one warning (nothing is pushed, the digests stay null).
func (c *configured) render(managed bool) (*Rendered, Problems) {
	errs := c.errs
	var files opensm.Files
	if errs == nil {
		var err error
		if files, err = opensm.Render(c.cfg); err != nil && !errors.As(err, &errs) {
			errs = opensm.Errors{{Message: err.Error()}}
		}
	}
	if errs == nil {
		return &Rendered{Files: files, Expect: opensm.ExpectFor(c.cfg), Partitions: c.cfg.Partitions, Config: c.cfg}, nil
	}
	var ps Problems
	msgs := make([]string, 0, len(errs))
	for _, fe := range errs {
		at := openSMLoc(fe.At, c.f.Spec)
		where := at.String()
		if where == "" {
			where = fe.Field
		}
		line := fe.Message
		if where != "" {
			line = where + ": " + line
		}
		msgs = append(msgs, line)
		if managed {
			// A problem on an attribute has its path said once, by the diagnostic; one on a
			// setting without an attribute says it in the text.
			detail := line
			if at.String() != "" {
				detail = fe.Message
			}
			ps.add(Error, at, summaryInvalidOpenSM, detail)
		}
	}
	if !managed {
		ps = append(ps, notRendered(msgs))
	}
	return nil, ps
}

// Render renders the OpenSM files of a built fabric with the settings, as Run does; problems
// are errors on the attributes at fault (gpucluster_opensm_files: the files are the output).
func Render(f *Fabric, s OpenSMSettings) (*Rendered, Problems) {
	return configure(f, s).render(true)
}
