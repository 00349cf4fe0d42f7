package tfwire

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
)

// The number check, for the tests of package tfwire_test: they need the provider's real schemas,
// and the provider imports this package.

// NumberChecker is a numberCheck with its schemas read.
type NumberChecker struct{ s *numberCheck }

func NewNumberChecker(newProvider func() provider.Provider) NumberChecker {
	s := &numberCheck{newProvider: newProvider}
	s.schemas(context.Background())
	return NumberChecker{s}
}

// Resource is the framework type of a resource's schema.
func (c NumberChecker) Resource(name string) attr.Type { return c.s.resources[name] }

func (c NumberChecker) Check(ctx context.Context, t attr.Type, dv *tfprotov6.DynamicValue) []*tfprotov6.Diagnostic {
	return c.s.check(ctx, t, dv)
}

func (c NumberChecker) CheckRaw(ctx context.Context, t attr.Type, dv *tfprotov6.DynamicValue) []*tfprotov6.Diagnostic {
	return c.s.checkRaw(ctx, t, dv)
}

var (
	ScanNumbers   = scanNumbers
	Int64Misfit   = int64Misfit
	Float64Misfit = float64Misfit
)
