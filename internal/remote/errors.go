package remote

import (
	"context"
	"errors"
	"net"
	"syscall"
)

// keyRefusedError is Dial's error when the host refused the private key. It has a type of its
// own so that callers can tell the user to check the key without matching the error's text.
type keyRefusedError struct {
	msg string
	err error
}

func (e *keyRefusedError) Error() string { return e.msg }
func (e *keyRefusedError) Unwrap() error { return e.err }

// KeyRefused reports whether err says the host did not accept the private key for the user.
func KeyRefused(err error) bool {
	var k *keyRefusedError
	return errors.As(err, &k)
}

// Unreachable reports errors that say only that the host did not answer: no route, refused, or
// no answer in time. A caller may then keep what it last knew instead of failing. Host key
// failures are not among them: the host answered, and with a key it should not have.
func Unreachable(err error) bool {
	var hk *HostKeyError
	if errors.As(err, &hk) {
		return false
	}
	var ne net.Error
	var oe *net.OpError
	return errors.Is(err, context.DeadlineExceeded) || errors.Is(err, syscall.ECONNREFUSED) ||
		errors.Is(err, syscall.EHOSTUNREACH) || errors.Is(err, syscall.ENETUNREACH) ||
		errors.As(err, &oe) || (errors.As(err, &ne) && ne.Timeout())
}
