package hca

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// TestToolByAbsolutePath runs the tools by absolute path, as for an MFT installed outside the
// PATH of a non-interactive SSH session: flint and mlxfwreset come from the same directory.
func TestToolByAbsolutePath(t *testing.T) {
	e := newApplyEnv(t)
	dir := buildDouble(t)
	r := LocalRunner{Env: []string{"PATH=/nonexistent", "MLXCONFIG_DOUBLE_STATE=" + e.state}}
	for _, tool := range []string{filepath.Join(dir, "mlxconfig"), filepath.Join(dir, "mstconfig")} {
		if _, err := Query(context.Background(), r, tool, dev, "LINK_TYPE_P1"); err != nil {
			t.Fatalf("query with %s: %v", tool, err)
		}
		fi, err := QueryFirmware(context.Background(), r, tool, dev)
		if err != nil || fi.FWVersion == "" {
			t.Fatalf("flint with %s: %v", tool, err)
		}
	}
	ts, err := toolsFor("/opt/mellanox/mft/bin/mlxconfig")
	if err != nil || ts != (toolset{"/opt/mellanox/mft/bin/mlxconfig", "/opt/mellanox/mft/bin/mlxconfig", "/opt/mellanox/mft/bin/flint", "/opt/mellanox/mft/bin/mlxfwreset"}) {
		t.Fatalf("toolset: %+v %v", ts, err)
	}
	for _, bad := range []string{"/usr/bin/ethtool", "bin/mlxconfig", "./mlxconfig"} {
		if _, err := toolsFor(bad); err == nil || !strings.Contains(err.Error(), "absolute path") {
			t.Errorf("%q accepted: %v", bad, err)
		}
	}
}
