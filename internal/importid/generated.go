package importid

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/zclconf/go-cty/cty"
)

// Names of generated configuration. `terraform query -generate-config-out` names each resource
// it writes after the list block and the item's position ("floor_0" .. "floor_1197":
// GenerateListResourceContents in Terraform's internal/genconfig), which the provider cannot
// change: the list result's display name does not reach the address. NameGenerated renames
// each generated resource, and the `to` of its import block, after the item it imports: the
// item's name as its identity holds it (a switch's or node's `name`, an HCA's `node`/`device`,
// a cable's `label`), made a valid Terraform identifier (a letter or underscore first; then
// letters, digits, underscores and hyphens; every other run of characters one underscore) and
// unique per type (a second "gpu001_mlx5_0" becomes "gpu001_mlx5_0_2"). A file that holds no
// import block with an identity is returned as it is.

// Rename is one resource renamed: its type, the name Terraform gave it and the new one.
type Rename struct {
	Type, From, To string
}

var (
	notIdent = regexp.MustCompile(`[^A-Za-z0-9_-]+`)
	// A hyphen left alone between two replaced runs (a cable label's " <-> ") is no part of a
	// name: "gpu001/mlx5_0:1 <-> leaf01:1" reads gpu001_mlx5_0_1_leaf01_1.
	loneHyphens = regexp.MustCompile(`_[-_]*_`)
)

// Identifier is name made a valid Terraform identifier (see above); "" for a name with nothing
// to keep.
func Identifier(name string) string {
	s := strings.Trim(loneHyphens.ReplaceAllString(notIdent.ReplaceAllString(name, "_"), "_"), "_-")
	if s == "" {
		return ""
	}
	if c := s[0]; c < 'A' || c > 'z' || (c > 'Z' && c < 'a') {
		s = "_" + s
	}
	return s
}

// itemName is the item an identity names, as the list resources show it: "leaf01",
// "gpu001/mlx5_0", "gpu001/mlx5_0:1 <-> leaf01:1".
func itemName(id cty.Value) string {
	if !id.Type().IsObjectType() || id.IsNull() || !id.IsWhollyKnown() {
		return ""
	}
	str := func(k string) string {
		if !id.Type().HasAttribute(k) {
			return ""
		}
		v := id.GetAttr(k)
		if v.IsNull() || v.Type() != cty.String {
			return ""
		}
		return v.AsString()
	}
	switch {
	case str("name") != "":
		return str("name")
	case str("label") != "":
		return str("label")
	case str("node") != "" && str("device") != "":
		return str("node") + "/" + str("device")
	}
	return ""
}

// NameGenerated rewrites src, a file `terraform query -generate-config-out` wrote, so that each
// resource imported by identity is named after its item (see above); it returns the new text
// and the renames in file order.
func NameGenerated(filename string, src []byte) ([]byte, []Rename, error) {
	f, diags := hclwrite.ParseConfig(src, filename, hcl.InitialPos)
	if diags.HasErrors() {
		return nil, nil, fmt.Errorf("%s: %s", filename, diags.Error())
	}
	body := f.Body()
	resources := map[[2]string]*hclwrite.Block{}
	taken := map[string]map[string]bool{} // type -> names in use
	for _, b := range body.Blocks() {
		if l := b.Labels(); b.Type() == "resource" && len(l) == 2 {
			resources[[2]string{l[0], l[1]}] = b
			if taken[l[0]] == nil {
				taken[l[0]] = map[string]bool{}
			}
			taken[l[0]][l[1]] = true
		}
	}
	type target struct {
		imp        *hclwrite.Block
		typ, from  string
		name, want string
	}
	var targets []target
	for _, b := range body.Blocks() {
		if b.Type() != "import" {
			continue
		}
		to, id := b.Body().GetAttribute("to"), b.Body().GetAttribute("identity")
		if to == nil || id == nil {
			continue
		}
		parts := strings.Split(strings.TrimSpace(string(to.Expr().BuildTokens(nil).Bytes())), ".")
		if len(parts) != 2 || resources[[2]string{parts[0], parts[1]}] == nil {
			continue // a module address or a resource this file does not hold: left alone
		}
		expr, ds := hclsyntax.ParseExpression(id.Expr().BuildTokens(nil).Bytes(), filename, hcl.InitialPos)
		if ds.HasErrors() {
			return nil, nil, fmt.Errorf("%s: the identity of the import of %s.%s: %s", filename, parts[0], parts[1], ds.Error())
		}
		v, ds := expr.Value(nil)
		if ds.HasErrors() {
			continue // an identity that refers to something: not generated, left alone
		}
		name := itemName(v)
		if Identifier(name) == "" {
			continue
		}
		targets = append(targets, target{imp: b, typ: parts[0], from: parts[1], name: name, want: Identifier(name)})
	}
	// Free the generated names first, so that an item named like another's generated name
	// ("floor_3") can take it.
	for _, t := range targets {
		delete(taken[t.typ], t.from)
	}
	var renames []Rename
	for _, t := range targets {
		to := t.want
		for n := 2; taken[t.typ][to]; n++ {
			to = fmt.Sprintf("%s_%d", t.want, n)
		}
		taken[t.typ][to] = true
		resources[[2]string{t.typ, t.from}].SetLabels([]string{t.typ, to})
		t.imp.Body().SetAttributeTraversal("to", hcl.Traversal{hcl.TraverseRoot{Name: t.typ}, hcl.TraverseAttr{Name: to}})
		renames = append(renames, Rename{Type: t.typ, From: t.from, To: to})
	}
	return hclwrite.Format(f.Bytes()), renames, nil
}
