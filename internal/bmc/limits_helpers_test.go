package bmc

// SetMaxSessions sets how many BMC sessions this process keeps open at once (at least 1), for
// the tests that drive the bound; it applies to sessions opened from then on.
func SetMaxSessions(n int) {
	if n < 1 {
		n = 1
	}
	l := sessionSlots
	l.mu.Lock()
	defer l.mu.Unlock()
	l.max = n
	l.broadcast()
}

// OpenSessions returns how many sessions hold a slot now.
func OpenSessions() int {
	sessionSlots.mu.Lock()
	defer sessionSlots.mu.Unlock()
	return sessionSlots.inUse
}
