// Package tfwire is the provider's wire layer: what it does to Terraform's protocol 6 messages
// before and after terraform-plugin-framework serves them. Nothing here is domain logic; the
// provider says which of its types and attributes are concerned (Config) and reads what a
// request stashed (Stashed, StashOutputs, WithRawOutputs). Everything else in provider/ is
// framework glue that may change freely; this package is tied to the framework's internals and
// must be checked again when they change.
//
// Checked against terraform-plugin-framework v1.19.0 and terraform-plugin-go v0.31.0 (go.mod).
// On a framework upgrade, re-run this package's tests and benchmarks and the provider's
// BenchmarkTopologyReadServer and BenchmarkDiscoveredFabricAsBuilt, and re-read the framework
// functions named below: if they no longer cost what they did, the matching part can go.
//
// Each part exists because a profile showed the framework's cost:
//
//   - The bypass (server.go). The framework is quadratic in the number of values of a plan and
//     state: in internal/fwserver, MarkComputedNilsAsUnknown (server_planresourcechange.go) and
//     NullifyWriteOnlyAttributes (write_only_nullification.go, run by Create, Read, Update,
//     PlanResourceChange and UpgradeResourceState) reassign the ctx they capture with
//     logging.FrameworkWithAttributePath for every value a tftypes.Transform visits, so the
//     context chain grows by one per value and every trace log call walks it. A
//     gpucluster_fabric fed with a 2,048-endpoint topology took 108 s to plan and a
//     16,384-endpoint one never finished (profile: 69 of 88 CPU seconds in context.value under
//     FrameworkTrace). The framework may not be forked or patched, so Wrap keeps the big inputs
//     (Config.Inputs: the fabric's inventory maps, up to hundreds of thousands of elements, its
//     design, its absent cables and an `as_built` floor) away from it: it decodes the request
//     values, replaces the inputs with null, stashes the originals in the request context, lets
//     the framework serve the small remainder, and puts the inputs back into the response. The
//     provider reads the inputs from the stash (Stashed) instead of its model.
//     What the framework no longer does for the inputs: run schema validation, defaults and plan
//     modifiers inside them, and mark computed nested values unknown; the provider declares none
//     of these on them (its TestInputsCarryNoFrameworkBehaviour) and checks them itself.
//   - The outputs (stash.go, Config.Outputs). gpucluster_topology's item maps, handed to the
//     framework, cost 57 s of the provider's 71 s for a 65,536-endpoint tree's 2 million values
//     (ReifyNullCollectionBlocks, SchemaSemanticEquality and their GC; BenchmarkTopologyReadServer,
//     CPU profile; 18 s and 2.1 GB instead of 71 s and 11.7 GB once they bypassed it). A data
//     source leaves them out of the state it gives the framework and Wrap splices them into the
//     response's bytes.
//   - The encoder (encode.go). tftypes builds an attribute path for every value it writes;
//     for a 16,384-endpoint topology that was 1.45 s of 3.3 s (BenchmarkTopologyReadServer). The
//     discovered fabric's floor is written straight from its structs with it (object.go: the
//     provider declares each shape's fields as data, Object writes them): an 8-SU floor's
//     read went from 1.66M to 123k allocations and 101 to 26 MB (BenchmarkDiscoveredFabricAsBuilt).
//   - The reader (msgpack.go). Splicing values into the framework's state bytes (replaceAttrs)
//     and nulling a data source's `as_built` floor for validation (nullAttr: a floor of 2,048
//     HCAs cost 0.12 s a request to decode) step over values by their headers, never decoding.
//   - The number check (numbers.go). The framework reports a number that fits no Int64 or
//     Float64 attribute as "Value %!s(*big.Float=36.5) is not an integer" or as a provider bug;
//     the check refuses it in the user's terms first, reading the MessagePack as it goes
//     (4,096 cables: 6.6 ms instead of 76-398 ms with a decode; BenchmarkNumberCheck).
//   - The dynamic values (dynamic.go): reading a dynamic argument's values as the type a field
//     wants, with Terraform's own conversions.
//
// The MessagePack is Terraform's (https://github.com/msgpack/msgpack/blob/master/spec.md, values
// as go-cty's msgpack package and tftypes write them).
package tfwire
