package main

import (
	"runtime/debug"
	"testing"
)

func TestQuietSDKLogs(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  map[string]string
		want string // TF_LOG_SDK afterwards; "" means left unset
	}{
		{"nothing set: Terraform shows no provider logs", map[string]string{}, "OFF"},
		{"TF_LOG", map[string]string{"TF_LOG": "debug"}, "DEBUG"},
		{"TF_LOG=JSON is trace", map[string]string{"TF_LOG": "JSON"}, "TRACE"},
		{"TF_LOG_PROVIDER wins over TF_LOG", map[string]string{"TF_LOG": "TRACE", "TF_LOG_PROVIDER": "INFO"}, "INFO"},
		{"the user's own TF_LOG_SDK stays", map[string]string{"TF_LOG_SDK": "TRACE"}, "TRACE"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := map[string]string{}
			for k, v := range tc.env {
				env[k] = v
			}
			lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
			set := func(k, v string) error { env[k] = v; return nil }
			quietSDKLogs(lookup, set)
			if got := env["TF_LOG_SDK"]; got != tc.want {
				t.Errorf("TF_LOG_SDK = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestTuneGC(t *testing.T) {
	prev := debug.SetGCPercent(100)
	defer debug.SetGCPercent(prev)
	prevLimit := debug.SetMemoryLimit(-1)
	defer debug.SetMemoryLimit(prevLimit)

	// The user's GOGC and GOMEMLIMIT are left alone.
	tuneGC(func(string) (string, bool) { return "50", true })
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("GOGC set by the user, but tuneGC changed the GC percent to %d", got)
	}
	// Unset, the provider's own tuning applies.
	tuneGC(func(string) (string, bool) { return "", false })
	if got := debug.SetGCPercent(100); got != gcPercent {
		t.Errorf("GC percent %d, want %d", got, gcPercent)
	}
	if got := debug.SetMemoryLimit(-1); got != gcSoftLimit {
		t.Errorf("memory limit %d, want %d", got, gcSoftLimit)
	}
}
