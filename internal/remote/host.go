package remote

import (
	"errors"
	"fmt"
	"net"
	"regexp"
	"strconv"
	"strings"
)

var (
	// HostRE accepts a host name or an IPv4/IPv6 address, nothing that a shell or ssh option
	// parser could read as more than one word.
	HostRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9.:-]{0,252}$`)
	// HostPortRE is HostRE optionally with :port, or [ipv6]:port.
	HostPortRE = regexp.MustCompile(`^([A-Za-z0-9][A-Za-z0-9.:-]{0,252}|\[[0-9A-Fa-f:.]+\]:[0-9]{1,5})$`)
)

// SplitHost reads an ssh_host: "host", "host:port", "[v6]:port" or a bare IPv6 address (more
// than one colon and no brackets: all host). Port 0 means 22.
//
// BMC endpoints (bmc.Config) are read by other rules (an https:// scheme, a trailing slash), so
// the two do not share a parser.
func SplitHost(s string) (host string, port int, err error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", 0, errors.New("ssh_host is empty")
	}
	if strings.HasPrefix(s, "[") || strings.Count(s, ":") == 1 {
		h, p, err := net.SplitHostPort(s)
		if err != nil {
			return "", 0, fmt.Errorf("ssh_host %q: want host, host:port or [ipv6]:port", s)
		}
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return "", 0, fmt.Errorf("ssh_host %q: port %q is not a number from 1 to 65535", s, p)
		}
		if h == "" {
			return "", 0, fmt.Errorf("ssh_host %q has no host", s)
		}
		return h, n, nil
	}
	return s, 0, nil
}

// EndpointKey is the host and port an ssh_host reaches (defPort when it names none), as a key
// that is equal for two spellings of one endpoint (case, brackets, a trailing dot, IPv6 zero
// compression), and as text for people. ok is false when SplitHost refuses the entry.
func EndpointKey(entry string, defPort int) (key, shown string, ok bool) {
	h, p, err := SplitHost(entry)
	if err != nil {
		return "", "", false
	}
	if p == 0 {
		p = defPort
	}
	h = strings.TrimSuffix(strings.ToLower(strings.Trim(h, "[]")), ".")
	if ip := net.ParseIP(h); ip != nil {
		h = ip.String()
	}
	return net.JoinHostPort(h, strconv.Itoa(p)), fmt.Sprintf("host %s, port %d", h, p), true
}
