package provider

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
)

// Helpers shared by the inventory resources (switch, node, HCA, cable, partition).

const positionUDescription = "Lowest rack unit the device occupies, counted from 1 at the bottom of the rack; " +
	"the device takes its model's height upwards from there. The fabric checks it against the rack's `units` " +
	"and against the other equipment of the rack, and estimates cable runs from it."

// rackRules and positionURules are the rules of gpucluster_switch's and gpucluster_node's `rack`
// and `position_u` (rows of switchShape and nodeShape): both set, or neither.
func rackRules(device string) resAttr {
	return resAttr{
		desc: "Name of the `gpucluster_rack` the " + device + " is mounted in; with `position_u`. Unset (a " + device + " " +
			"adopted from the floor, where discovery sees no rack): the fabric skips what needs a location (cable " +
			"reach, rack units and power) and says so once.",
		strVal: []validator.String{nameValidator(), stringvalidator.AlsoRequires(path.MatchRoot("position_u"))},
	}
}

func positionURules() resAttr {
	return resAttr{
		desc:   positionUDescription + " With `rack`.",
		intVal: []validator.Int64{positionUValidator(), int64validator.AlsoRequires(path.MatchRoot("rack"))},
	}
}

// inventoryCatalog returns the provider's catalog, or the built-in one when the provider has not
// been configured: Terraform configures the provider before any plan, so the fallback only serves
// calls that come earlier and cannot see the user's catalog_files anyway.
func inventoryCatalog(d *Data) *catalog.Catalog {
	if d != nil && d.Catalog != nil {
		return d.Catalog
	}
	return catalog.Default()
}

// addUnknownModel reports a model name the catalog does not know, listing the ones it does.
func addUnknownModel(diags *diag.Diagnostics, p path.Path, kind, name string, valid []string) {
	quoted := make([]string, len(valid))
	for i, v := range valid {
		quoted[i] = strconv.Quote(v)
	}
	diags.AddAttributeError(p, "Unknown "+kind+" model",
		fmt.Sprintf("unknown %s model %q; the catalog has %s (add more with the provider's catalog_files)",
			kind, name, strings.Join(quoted, ", ")))
}
