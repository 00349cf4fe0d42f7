package provider

import (
	"sync"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalogdoc"
)

// Descriptions that name a model, a port count or a speed take it from the built-in catalog
// through internal/catalogdoc, which writes every such fragment.

var builtinCatalog = sync.OnceValue(catalog.Default)

// docText is the fragments of the built-in catalog, which the schema descriptions show.
func docText() catalogdoc.Text { return catalogdoc.Of(builtinCatalog()) }
