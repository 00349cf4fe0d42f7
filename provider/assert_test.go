package provider

import "testing"

// as is a checked type assertion for tests: the value as a T, or the test fails saying what the
// value was.
func as[T any](t testing.TB, v any) T {
	t.Helper()
	x, ok := v.(T)
	if !ok {
		t.Fatalf("%T is not a %T", v, x)
	}
	return x
}
