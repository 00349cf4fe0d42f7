package provider

import (
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/plan"
	"github.com/gpucluster/terraform-provider-gpucluster/provider/tfwire"
)

// Wrap returns the protocol 6 server main.go serves: the framework's server behind the wire
// layer (tfwire, whose package doc says why it exists), told which of this provider's
// types carry inputs and outputs too big for the framework.
func Wrap(inner tfprotov6.ProviderServer) tfprotov6.ProviderServer {
	return tfwire.Wrap(inner, tfwire.Config{
		Provider:    New("schema"),
		Resources:   bypassResources,
		DataSources: bypassDataSources,
		Outputs:     bypassOutputs,
		Inputs:      strippedInputNames,
		Floor:       plan.AttrAsBuilt,
	})
}

// bypassTypes names the resources and data sources whose inputs Wrap strips. A type that reads
// a fabric (fabric_inputs.go) is listed here; a name without a schema is ignored.
var (
	bypassResources   = map[string]bool{"gpucluster_fabric": true}
	bypassDataSources = map[string]bool{
		"gpucluster_bom": true, "gpucluster_cable_validation": true, "gpucluster_discovered_fabric": true, "gpucluster_opensm_files": true,
		"gpucluster_scheduler_topology": true, "gpucluster_diagram": true, "gpucluster_port_counters": true,
		"gpucluster_topology": true, // its as_built floor
	}
)

// strippedInputNames are the inputs Wrap strips from the types it serves: the fabric's, and an
// `as_built` floor (gpucluster_bom, gpucluster_topology, gpucluster_fabric), a record of the
// whole floor that the data sources do not echo into their state (the discovered fabric's state
// holds it).
var strippedInputNames = append(append([]string(nil), fabricInputNames...), "as_built")

// bypassOutputs names the data sources whose big computed outputs Wrap puts into the response
// itself. gpucluster_topology builds its item maps as tftypes values already; handed to the
// framework, a 65,536-endpoint tree's 2 million values cost 57 s of the provider's 71 s in
// ReifyNullCollectionBlocks, SchemaSemanticEquality and the GC they cause
// (BenchmarkTopologyReadServer, CPU profile). The data source leaves those outputs empty in the
// state it gives the framework and stashes them (tfwire.StashOutputs); Wrap puts them back.
//
// gpucluster_discovered_fabric's as_built (every device and cable of the floor) goes the same
// way; its fabric inputs are stripped as well (ReadDataSource does both).
var bypassOutputs = map[string]bool{"gpucluster_topology": true, "gpucluster_discovered_fabric": true}
