// Command terraform-provider-gpucluster serves the gpucluster Terraform provider over protocol 6.
package main

import (
	"flag"
	"log"
	"os"
	"runtime/debug"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6/tf6server"

	"github.com/gpucluster/terraform-provider-gpucluster/provider"
)

// version is set by the release build (-ldflags "-X main.version=...").
var version = "dev"

func main() {
	var debug bool
	flag.BoolVar(&debug, "debug", false, "run the provider with support for debuggers like delve")
	flag.Parse()
	quietSDKLogs(os.LookupEnv, os.Setenv)
	tuneGC(os.LookupEnv)
	stopProfile := startCPUProfile(os.Getenv(cpuProfileEnv))

	// tf6server.Serve with provider.Wrap rather than providerserver.Serve: the wrapper keeps
	// gpucluster_fabric's inventory lists away from the framework, which is quadratic in them
	// (see provider/tfwire). The options are the ones providerserver.Serve would pass.
	var opts []tf6server.ServeOpt
	if debug {
		opts = append(opts, tf6server.WithManagedDebug())
	}
	err := tf6server.Serve(provider.Address, func() tfprotov6.ProviderServer {
		return provider.Wrap(providerserver.NewProtocol6(provider.New(version)())())
	}, opts...)
	// Serve returns once Terraform has stopped the provider: end the SSH connections it kept.
	_ = provider.CloseConnections()
	if err != nil {
		stopProfile()
		log.Fatal(err.Error())
	}
	stopProfile()
}

// quietSDKLogs sets the level of the SDK's loggers (terraform-plugin-go and the framework) to the
// level Terraform will show, when the user has not set one. Left unset, they log at TRACE and
// Terraform drops the lines it does not show, after the provider has formatted each one as JSON:
// a third of the provider's CPU time on a plan of 1,000 small resources, with nobody reading it.
// Terraform shows provider logs at TF_LOG_PROVIDER, else TF_LOG, else not at all, and starts the
// provider with its own environment, so the provider can read the same variables.
func quietSDKLogs(lookup func(string) (string, bool), set func(string, string) error) {
	if v, ok := lookup("TF_LOG_SDK"); ok && v != "" {
		return
	}
	level := "OFF"
	for _, name := range []string{"TF_LOG_PROVIDER", "TF_LOG"} {
		if v, ok := lookup(name); ok && v != "" {
			level = strings.ToUpper(v)
			break
		}
	}
	if level == "JSON" {
		level = "TRACE"
	}
	_ = set("TF_LOG_SDK", level)
}

// tuneGC trades a little memory for much less collection, unless the user set GOGC or
// GOMEMLIMIT. A plan sends the provider thousands of small requests whose garbage dies at once;
// at Go's default (GOGC=100) the collector took a quarter of the provider's CPU on a plan of
// 1,000 HCAs. GOGC=300 collects a third as often; the soft limit keeps the largest fabrics (whose
// live heap is hundreds of MB) from growing their heap threefold: near the limit the collector
// runs as often as it must. The limit is 512 MiB, not 320: a 64-SU floor read, fitted and grown
// to 96 SU (scripts/bench) keeps about 300 MB live, and at 320 MiB the collector ran almost
// without pause, 0.5 s of a 4 s plan (GPUCLUSTER_CPUPROFILE); at 512 MiB the plan peaks at about
// 500 MB and the same design without the floor is unchanged.
func tuneGC(lookup func(string) (string, bool)) {
	if _, set := lookup("GOGC"); !set {
		debug.SetGCPercent(gcPercent)
	}
	if _, set := lookup("GOMEMLIMIT"); !set {
		debug.SetMemoryLimit(gcSoftLimit)
	}
}

const (
	gcPercent   = 300
	gcSoftLimit = 512 << 20
)
