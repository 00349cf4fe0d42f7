package opensm

import (
	"fmt"
	"strings"
)

// WithLogFile is o as a pushed fabric renders it: logFile (the log the push's verification
// reads; "" keeps OpenSM's own) becomes OpenSM's log_file, and force_log_flush is TRUE unless
// set, so that the verification sees every line as OpenSM writes it (opensm(8): -f, and
// force_log_flush in the option file). A log_file in Options that differs from logFile is
// refused, on the log_file field: OpenSM would log to one and the verification read the other.
// o itself is not changed.
func (o GraphOptions) WithLogFile(logFile string) (GraphOptions, *FieldError) {
	opts := map[string]string{}
	for k, v := range o.Options {
		opts[k] = v
	}
	if logFile != "" {
		if v, set := opts["log_file"]; set && strings.TrimSpace(v) != logFile {
			return o, newFieldError(settingLoc("log_file"), "log_file", fmt.Sprintf("log_file %q and options.log_file %q differ: OpenSM would log to one and the provider read the other; set only log_file", logFile, v))
		}
		opts["log_file"] = logFile
	}
	if _, set := opts["force_log_flush"]; !set {
		opts["force_log_flush"] = "TRUE"
	}
	o.Options = opts
	return o, nil
}

// LogPath is the log OpenSM writes with these options and the log file WithLogFile was given:
// the log_file option, else logFile, else OpenSM's default.
func LogPath(options map[string]string, logFile string) string {
	if v := strings.TrimSpace(options["log_file"]); v != "" {
		return v
	}
	if logFile != "" {
		return logFile
	}
	return DefaultLogFile
}
