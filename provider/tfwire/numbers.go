package tfwire

import (
	"context"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"sync"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// Terraform hands every number to the provider as an arbitrary-precision number. The framework
// converts it into an Int64 or a Float64 attribute and, when it does not fit, reports
// "Value %!s(*big.Float=36.5) is not an integer" (a format verb *big.Float does not have), or,
// for 1e400 in a Float64, "an unexpected error ... This is always an error in the provider".
// Neither names what is wrong in the user's terms. Wrap's server looks at the numbers of every
// configuration before the framework does and refuses those that do not fit, on the attribute
// that holds them, with what would fit; configurations whose numbers all fit pass untouched.

// numberCheck holds the framework types the check reads numbers by, one per schema.
type numberCheck struct {
	newProvider func() provider.Provider

	once        sync.Once
	provider    attr.Type
	resources   map[string]attr.Type
	dataSources map[string]attr.Type
}

// schemas reads the framework schemas once: the protocol schema says "number" for Int64 and
// Float64 alike, so the kind of each number comes from the framework's own types.
func (s *numberCheck) schemas(ctx context.Context) {
	s.once.Do(func() {
		s.resources, s.dataSources = map[string]attr.Type{}, map[string]attr.Type{}
		p := s.newProvider()
		var ps provider.SchemaResponse
		p.Schema(ctx, provider.SchemaRequest{}, &ps)
		s.provider = ps.Schema.Type()
		var pm provider.MetadataResponse
		p.Metadata(ctx, provider.MetadataRequest{}, &pm)
		for _, f := range p.Resources(ctx) {
			r := f()
			var m resource.MetadataResponse
			r.Metadata(ctx, resource.MetadataRequest{ProviderTypeName: pm.TypeName}, &m)
			var sr resource.SchemaResponse
			r.Schema(ctx, resource.SchemaRequest{}, &sr)
			s.resources[m.TypeName] = sr.Schema.Type()
		}
		for _, f := range p.DataSources(ctx) {
			d := f()
			var m datasource.MetadataResponse
			d.Metadata(ctx, datasource.MetadataRequest{ProviderTypeName: pm.TypeName}, &m)
			var sr datasource.SchemaResponse
			d.Schema(ctx, datasource.SchemaRequest{}, &sr)
			s.dataSources[m.TypeName] = sr.Schema.Type()
		}
	})
}

// check returns the diagnostics of the numbers in dv that do not fit their attributes.
func (s *numberCheck) check(ctx context.Context, t attr.Type, dv *tfprotov6.DynamicValue) []*tfprotov6.Diagnostic {
	if t == nil || dv == nil {
		return nil
	}
	v, err := dv.Unmarshal(t.TerraformType(ctx))
	if err != nil {
		return nil // not ours to report: the framework says what is wrong with the value
	}
	var diags []*tfprotov6.Diagnostic
	walkNumbers(v, t, tftypes.NewAttributePath(), "", &diags)
	return diags
}

// walkNumbers visits v, of framework type t at path p (name: the attribute's name), and reports
// the numbers that do not fit.
func walkNumbers(v tftypes.Value, t attr.Type, p *tftypes.AttributePath, name string, diags *[]*tfprotov6.Diagnostic) {
	if !v.IsKnown() || v.IsNull() {
		return
	}
	switch tt := t.(type) {
	case basetypes.Int64Typable:
		var f big.Float
		if v.As(&f) != nil {
			return
		}
		if msg := int64Misfit(name, &f); msg != "" {
			*diags = append(*diags, numberDiag(p, "Not a whole number", msg))
		}
	case basetypes.Float64Typable:
		var f big.Float
		if v.As(&f) != nil {
			return
		}
		if msg := float64Misfit(name, &f); msg != "" {
			*diags = append(*diags, numberDiag(p, "Number out of range", msg))
		}
	case attr.TypeWithAttributeTypes:
		var m map[string]tftypes.Value
		if v.As(&m) != nil {
			return
		}
		for k, at := range tt.AttributeTypes() {
			if ev, ok := m[k]; ok {
				walkNumbers(ev, at, p.WithAttributeName(k), k, diags)
			}
		}
	case attr.TypeWithElementType:
		et := tt.ElementType()
		switch {
		case v.Type().Is(tftypes.Map{}):
			var m map[string]tftypes.Value
			if v.As(&m) == nil {
				for k, ev := range m {
					walkNumbers(ev, et, p.WithElementKeyString(k), name, diags)
				}
			}
		case v.Type().Is(tftypes.Set{}):
			var l []tftypes.Value
			if v.As(&l) == nil {
				for _, ev := range l {
					walkNumbers(ev, et, p.WithElementKeyValue(ev), name, diags)
				}
			}
		default:
			var l []tftypes.Value
			if v.As(&l) == nil {
				for i, ev := range l {
					walkNumbers(ev, et, p.WithElementKeyInt(i), name, diags)
				}
			}
		}
	}
}

// numberDiag reports a misfit at p. Terraform shows the source line only of a top-level
// attribute or of one element of it (it looks no deeper into nested attributes), so a deeper
// path is cut to that and named in full at the start of the detail.
func numberDiag(p *tftypes.AttributePath, summary, detail string) *tfprotov6.Diagnostic {
	steps := p.Steps()
	if len(steps) > 1 {
		detail = pathText(steps) + ": " + detail
		keep := 1
		if _, isName := steps[1].(tftypes.AttributeName); !isName {
			keep = 2
		}
		if keep < len(steps) {
			p = tftypes.NewAttributePathWithSteps(steps[:keep])
		}
	}
	return &tfprotov6.Diagnostic{Severity: tfprotov6.DiagnosticSeverityError, Summary: summary, Detail: detail, Attribute: p}
}

// pathText writes an attribute path as Terraform users write it: cables["c1"].b.port.
func pathText(steps []tftypes.AttributePathStep) string {
	var b strings.Builder
	for i, st := range steps {
		switch s := st.(type) {
		case tftypes.AttributeName:
			if i > 0 {
				b.WriteByte('.')
			}
			b.WriteString(string(s))
		case tftypes.ElementKeyString:
			b.WriteString("[" + strconv.Quote(string(s)) + "]")
		case tftypes.ElementKeyInt:
			b.WriteString("[" + strconv.FormatInt(int64(s), 10) + "]")
		default:
			b.WriteString("[...]")
		}
	}
	return b.String()
}

// numberText prints a number as the user wrote it, as far as a number can be: 36.5, 1e+400.
func numberText(f *big.Float) string { return f.Text('g', -1) }

// int64Misfit says why f does not fit a whole-number attribute ("" when it does).
func int64Misfit(name string, f *big.Float) string {
	if name == "" {
		name = "the value"
	}
	if !f.IsInt() && !f.IsInf() {
		return fmt.Sprintf("%s must be a whole number, got %s", name, numberText(f))
	}
	if _, acc := f.Int64(); acc != big.Exact || f.IsInf() {
		return fmt.Sprintf("%s must be a whole number from %d to %d, got %s", name, int64(math.MinInt64), int64(math.MaxInt64), numberText(f))
	}
	return ""
}

// float64Misfit says why f does not fit a 64-bit float attribute ("" when it does): beyond about
// 1.8e308 it would become infinite, and a non-zero number below about 4.9e-324 would become 0.
func float64Misfit(name string, f *big.Float) string {
	if name == "" {
		name = "the value"
	}
	x, acc := f.Float64()
	switch {
	case math.IsInf(x, 0):
		return fmt.Sprintf("%s = %s is beyond the largest number the provider computes with (about ±1.8e308); give the value you mean, e.g. 1.0", name, numberText(f))
	case x == 0 && acc != big.Exact:
		return fmt.Sprintf("%s = %s is too close to zero for the provider to tell from 0 (the smallest is about 4.9e-324); write 0 if you mean none", name, numberText(f))
	}
	return ""
}

// providerMisfits, resourceMisfits and dataSourceMisfits check a configuration of the provider, of
// the resource and of the data source named.
func (s *numberCheck) providerMisfits(ctx context.Context, dv *tfprotov6.DynamicValue) []*tfprotov6.Diagnostic {
	s.schemas(ctx)
	return s.checkRaw(ctx, s.provider, dv)
}

func (s *numberCheck) resourceMisfits(ctx context.Context, name string, dv *tfprotov6.DynamicValue) []*tfprotov6.Diagnostic {
	s.schemas(ctx)
	return s.checkRaw(ctx, s.resources[name], dv)
}

func (s *numberCheck) dataSourceMisfits(ctx context.Context, name string, dv *tfprotov6.DynamicValue) []*tfprotov6.Diagnostic {
	s.schemas(ctx)
	return s.checkRaw(ctx, s.dataSources[name], dv)
}

// The provider's configuration is checked here; the others where server.go serves their RPCs.

func (s *server) ValidateProviderConfig(ctx context.Context, req *tfprotov6.ValidateProviderConfigRequest) (*tfprotov6.ValidateProviderConfigResponse, error) {
	if d := s.numbers.providerMisfits(ctx, req.Config); len(d) > 0 {
		return &tfprotov6.ValidateProviderConfigResponse{PreparedConfig: req.Config, Diagnostics: d}, nil
	}
	return s.ProviderServer.ValidateProviderConfig(ctx, req)
}

func (s *server) ConfigureProvider(ctx context.Context, req *tfprotov6.ConfigureProviderRequest) (*tfprotov6.ConfigureProviderResponse, error) {
	if d := s.numbers.providerMisfits(ctx, req.Config); len(d) > 0 {
		return &tfprotov6.ConfigureProviderResponse{Diagnostics: d}, nil
	}
	return s.ProviderServer.ConfigureProvider(ctx, req)
}
