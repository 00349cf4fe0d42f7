package plan

import (
	"github.com/gpucluster/terraform-provider-gpucluster/internal/analysis"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/diagram"
)

// Diagram draws the fabric f: folded by its design's groups, and with highlight, marked where
// the analysis finds the fabric short of limit (its max_oversubscription; 0 for none). Only the
// graph analysis is run, not the route model or the policy: a picture needs neither.
func Diagram(f *Fabric, title string, foldAbove int, highlight bool, limit float64) (*diagram.Diagram, error) {
	opts := diagram.Options{Title: title, FoldAbove: foldAbove, NodeGroups: f.Spec.Groups}
	if highlight {
		opts.Highlights = diagram.FromAnalysis(analysis.Analyze(f.Graph, nil), limit)
	}
	return diagram.Build(f.Graph, opts)
}
