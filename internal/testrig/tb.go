package testrig

// TB is what the rig needs of its caller. testing.TB satisfies it, and so does the simulated
// cluster's command (cmd/gpucluster-sim), which starts the same peers for `make demo` outside any
// test: the peers are started, waited for and stopped the same way in both.
type TB interface {
	Helper()
	Fatal(args ...any)
	Fatalf(format string, args ...any)
	Errorf(format string, args ...any)
	Cleanup(func())
	TempDir() string
}
