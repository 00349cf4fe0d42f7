package opensm

import (
	"reflect"
	"strings"
	"testing"
)

func TestWithLogFile(t *testing.T) {
	o := GraphOptions{Options: map[string]string{"qos": "TRUE"}}
	got, ferr := o.WithLogFile("/var/log/gpc-opensm.log")
	if ferr != nil {
		t.Fatal(ferr)
	}
	want := map[string]string{"qos": "TRUE", "log_file": "/var/log/gpc-opensm.log", "force_log_flush": "TRUE"}
	if !reflect.DeepEqual(got.Options, want) {
		t.Errorf("options %v, want %v", got.Options, want)
	}
	if len(o.Options) != 1 {
		t.Errorf("WithLogFile changed its receiver's options: %v", o.Options)
	}
	if LogPath(got.Options, "/var/log/gpc-opensm.log") != "/var/log/gpc-opensm.log" {
		t.Error("LogPath does not follow log_file")
	}

	// force_log_flush as the user set it; the same log_file in both places is fine.
	o.Options = map[string]string{"force_log_flush": "FALSE", "log_file": " /x.log"}
	if got, ferr := o.WithLogFile("/x.log"); ferr != nil || got.Options["force_log_flush"] != "FALSE" || got.Options["log_file"] != "/x.log" {
		t.Errorf("WithLogFile = %v, %v", got.Options, ferr)
	}
	if got, _ := o.WithLogFile(""); got.Options["log_file"] != " /x.log" || LogPath(got.Options, "") != "/x.log" {
		t.Errorf("without log_file: %v", got.Options)
	}

	o.Options = map[string]string{"log_file": "/y.log"}
	_, ferr = o.WithLogFile("/x.log")
	if ferr == nil || ferr.Field != "log_file" || !strings.Contains(ferr.Message, `log_file "/x.log" and options.log_file "/y.log" differ`) {
		t.Errorf("differing log files: %v", ferr)
	}
	if LogPath(nil, "") != DefaultLogFile {
		t.Error("LogPath without any log file is not OpenSM's default")
	}
}
