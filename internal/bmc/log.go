package bmc

import (
	"errors"
	"fmt"

	"github.com/go-logr/logr"
)

// redactingSink wraps the caller's logr sink so that nothing logged through it, by this package
// or by bmclib (which logs ipmitool options and provider errors at V(2) and V(3)), can carry a
// password: every message, key and value is passed through the redactor.
type redactingSink struct {
	inner logr.LogSink
	r     *redactor
}

func redactingLogger(l logr.Logger, r *redactor) logr.Logger {
	if l.GetSink() == nil {
		return logr.Discard()
	}
	return logr.New(&redactingSink{inner: l.GetSink(), r: r})
}

func (s *redactingSink) Init(info logr.RuntimeInfo) {
	// One more frame: the caller is logr.Logger calling us calling inner.
	info.CallDepth++
	s.inner.Init(info)
}

func (s *redactingSink) Enabled(level int) bool { return s.inner.Enabled(level) }

func (s *redactingSink) Info(level int, msg string, kv ...any) {
	s.inner.Info(level, s.r.clean(msg), s.values(kv)...)
}

func (s *redactingSink) Error(err error, msg string, kv ...any) {
	if err != nil {
		err = errors.New(s.r.clean(err.Error()))
	}
	s.inner.Error(err, s.r.clean(msg), s.values(kv)...)
}

func (s *redactingSink) WithValues(kv ...any) logr.LogSink {
	return &redactingSink{inner: s.inner.WithValues(s.values(kv)...), r: s.r}
}

func (s *redactingSink) WithName(name string) logr.LogSink {
	return &redactingSink{inner: s.inner.WithName(s.r.clean(name)), r: s.r}
}

// values keeps numbers and booleans as they are and turns everything else into redacted text:
// a struct or slice printed by the sink could otherwise hold a password in a field.
func (s *redactingSink) values(kv []any) []any {
	out := make([]any, len(kv))
	for i, v := range kv {
		switch x := v.(type) {
		case nil, bool, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64, float32, float64:
			out[i] = x
		case string:
			out[i] = s.r.clean(x)
		case error:
			out[i] = s.r.clean(x.Error())
		case fmt.Stringer:
			out[i] = s.r.clean(x.String())
		default:
			out[i] = s.r.clean(fmt.Sprintf("%+v", x))
		}
	}
	return out
}
