// Command terraform-provider-gpucluster serves the gpucluster Terraform provider over protocol 6.
package main

import (
	"flag"
	"log"

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

	// tf6server.Serve with provider.Wrap rather than providerserver.Serve: the wrapper keeps
	// gpucluster_fabric's inventory lists away from the framework, which is quadratic in them
	// (see provider/bypass.go). The options are the ones providerserver.Serve would pass.
	var opts []tf6server.ServeOpt
	if debug {
		opts = append(opts, tf6server.WithManagedDebug())
	}
	err := tf6server.Serve(provider.Address, func() tfprotov6.ProviderServer {
		return provider.Wrap(providerserver.NewProtocol6(provider.New(version)())())
	}, opts...)
	if err != nil {
		log.Fatal(err.Error())
	}
}
