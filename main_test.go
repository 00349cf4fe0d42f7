package main

import "testing"

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
