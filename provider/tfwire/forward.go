package tfwire

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
)

// The RPCs of actions and list resources pass Wrap's server untouched: none carries a fabric's
// inputs. terraform-plugin-go v0.31 keeps them out of
// tfprotov6.ProviderServer (in ProviderServerWithActions and ProviderServerWithListResource) and
// tf6server finds them by a type assertion on the server it serves, so a wrapper that only embeds
// ProviderServer would hide them ("Provider ValidateActionConfig Not Implemented"). These
// methods forward them to the server inside.

//nolint:staticcheck // SA1019: deprecated only because they will merge into ProviderServer; v0.31's tf6server looks for them
var (
	_ tfprotov6.ProviderServerWithActions      = (*server)(nil)
	_ tfprotov6.ProviderServerWithListResource = (*server)(nil)
)

// forwarded is what the framework's server offers besides tfprotov6.ProviderServer.
type forwarded interface {
	tfprotov6.ActionServer
	tfprotov6.ListResourceServer
}

// inner returns the wrapped server's action and list RPCs. Wrap wraps the framework's server,
// which has them all; another server is a programming error.
func inner(s tfprotov6.ProviderServer) forwarded {
	f, ok := s.(forwarded)
	if !ok {
		panic(fmt.Sprintf("Wrap: %T serves no actions or list resources", s))
	}
	return f
}

func (s *server) ValidateActionConfig(ctx context.Context, req *tfprotov6.ValidateActionConfigRequest) (*tfprotov6.ValidateActionConfigResponse, error) {
	return inner(s.ProviderServer).ValidateActionConfig(ctx, req)
}

func (s *server) PlanAction(ctx context.Context, req *tfprotov6.PlanActionRequest) (*tfprotov6.PlanActionResponse, error) {
	return inner(s.ProviderServer).PlanAction(ctx, req)
}

func (s *server) InvokeAction(ctx context.Context, req *tfprotov6.InvokeActionRequest) (*tfprotov6.InvokeActionServerStream, error) {
	return inner(s.ProviderServer).InvokeAction(ctx, req)
}

func (s *server) ValidateListResourceConfig(ctx context.Context, req *tfprotov6.ValidateListResourceConfigRequest) (*tfprotov6.ValidateListResourceConfigResponse, error) {
	return inner(s.ProviderServer).ValidateListResourceConfig(ctx, req)
}

func (s *server) ListResource(ctx context.Context, req *tfprotov6.ListResourceRequest) (*tfprotov6.ListResourceServerStream, error) {
	return inner(s.ProviderServer).ListResource(ctx, req)
}
