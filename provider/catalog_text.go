package provider

import (
	"sync"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalogdoc"
)

// Descriptions that name a model, a port count or a speed take it from the built-in catalog
// through internal/catalogdoc, which writes every such fragment; the methods below are its
// fragments under the names the schemas call them by.

var builtinCatalog = sync.OnceValue(catalog.Default)

// catalogText is the description fragments of one catalog.
type catalogText struct{ cat *catalog.Catalog }

// docText is the fragments of the built-in catalog, which the schema descriptions show.
func docText() catalogText { return catalogText{builtinCatalog()} }

func (c catalogText) switchModels() string    { return catalogdoc.Of(c.cat).SwitchModels() }
func (c catalogText) nodeModels() string      { return catalogdoc.Of(c.cat).NodeModels() }
func (c catalogText) hcaModels() string       { return catalogdoc.Of(c.cat).HCAModels() }
func (c catalogText) defaults() string        { return catalogdoc.Of(c.cat).Defaults() }
func (c catalogText) computeHCAs() string     { return catalogdoc.Of(c.cat).ComputeHCAs() }
func (c catalogText) hcaExample() string      { return catalogdoc.Of(c.cat).HCAExample() }
func (c catalogText) computeRails() string    { return catalogdoc.Of(c.cat).ComputeRails() }
func (c catalogText) switchPorts() string     { return catalogdoc.Of(c.cat).SwitchPorts() }
func (c catalogText) switchPortRange() string { return catalogdoc.Of(c.cat).SwitchPortRange() }
func (c catalogText) hcaPorts() string        { return catalogdoc.Of(c.cat).HCAPorts() }
func (c catalogText) linkRate() string        { return catalogdoc.Of(c.cat).LinkRate() }
func (c catalogText) bundle() string          { return catalogdoc.Of(c.cat).Bundle() }
func (c catalogText) simSpeed() string        { return catalogdoc.Of(c.cat).SimSpeed() }
