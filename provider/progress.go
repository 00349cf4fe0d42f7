package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-log/tflog"
)

// progress logs one step of a long apply at INFO: one line per BMC step, mlxconfig set and
// OpenSM push step, per host, so that `TF_LOG_PROVIDER=INFO terraform apply` can be followed by a
// person. The lines go to the "progress" subsystem, so they can also be told from the
// framework's own INFO lines (timeouts, plugin start).
func progress(ctx context.Context, format string, args ...any) {
	ctx = tflog.NewSubsystem(ctx, progressSubsystem)
	tflog.SubsystemInfo(ctx, progressSubsystem, fmt.Sprintf(format, args...))
}

const progressSubsystem = "progress"
