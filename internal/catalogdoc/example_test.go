package catalogdoc_test

import (
	"fmt"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalogdoc"
)

// A description that names models or port counts writes them from the catalog, so a model
// added to the catalog appears in the documentation without a hand edit.
func ExampleText_Defaults() {
	doc := catalogdoc.Of(catalog.Default())
	fmt.Println("by default " + doc.Defaults())
	fmt.Println("switch models: " + doc.SwitchModels())
	// Output:
	// by default DGX-H100 nodes, ConnectX-7-OSFP HCAs and QM9700 switches
	// switch models: `QM9700`, `QM9790`
}
