package provider

import (
	"regexp"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
)

var (
	nameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$`)
	guidRE = regexp.MustCompile(`^0x[0-9a-fA-F]{16}$`)
)

// nameValidator accepts the device and rack names the fabric, OpenSM's node-name-map and cable
// labels can all carry unquoted.
func nameValidator() validator.String {
	return stringvalidator.RegexMatches(nameRE, "must be 1-63 letters, digits, '.', '_' or '-', starting with a letter or digit, e.g. \"leaf01\"")
}

// guidValidator accepts an InfiniBand GUID written as 0x and 16 hex digits.
func guidValidator() validator.String {
	return stringvalidator.RegexMatches(guidRE, "must be 0x followed by 16 hex digits, e.g. \"0x0002c90300a1b2c3\"")
}
