package partition

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// fakeTarget is a third kind, registered by this test alone: one package's registration is all
// Open needs to reach it.
type fakeTarget struct{ settings string }

func (fakeTarget) Kind() string                              { return "test-third" }
func (fakeTarget) Read(context.Context) ([]Partition, error) { return nil, nil }
func (fakeTarget) Apply(_ context.Context, want []Partition, _ []uint16) ([]Partition, error) {
	return want, nil
}
func (fakeTarget) Remove(context.Context, []uint16) error { return nil }

func TestOpenByKind(t *testing.T) {
	Register("test-third", "a target for this test", func(s any) (Target, error) {
		str, ok := s.(string)
		if !ok {
			return nil, fmt.Errorf("settings %T, want a string", s)
		}
		return fakeTarget{settings: str}, nil
	})
	if !slices.Contains(Kinds(), "test-third") {
		t.Fatalf("Kinds() = %v", Kinds())
	}
	tg, err := Open("test-third", "at 10.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	if f, ok := tg.(fakeTarget); !ok || f.settings != "at 10.0.0.1" {
		t.Errorf("Open gave %#v", tg)
	}
	if _, err := Open("nope", nil); err == nil || !strings.Contains(err.Error(), `"nope"`) || !strings.Contains(err.Error(), "test-third") {
		t.Errorf("unknown kind: %v", err)
	}
	defer func() {
		if recover() == nil {
			t.Error("registering a kind twice did not panic")
		}
	}()
	Register("test-third", "again", nil)
}
