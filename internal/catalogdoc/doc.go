// Package catalogdoc writes the fragments of the provider's documentation that state catalog
// facts: the models a catalog lists, and the port counts, rates, rail range and link labels of
// the default models (topogen.DefaultSwitchModel, DefaultNodeModel and the node's HCA). Every
// description that names a model, a port count or a speed takes it from here, so a model added
// to the catalog (internal/catalog/catalog.hcl) is one entry there: `make docs` carries it into
// the documentation, and no description names a model by hand.
//
// It knows nothing of Terraform: a fragment is Markdown text, which the provider's schemas put
// in their descriptions.
package catalogdoc
