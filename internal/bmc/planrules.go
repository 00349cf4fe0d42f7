package bmc

import (
	"fmt"
	"net"
	"strconv"
	"strings"
)

// Plan-time rules: what the provider can refuse from the configuration alone, before any BMC is
// asked. Each returns "" for a right value, else a sentence saying what is wrong and what would
// be right.

// IPMIUserNameMax is the longest user name IPMI carries: the Set User Name command takes the
// name in a 16-byte field (IPMI v2.0 rev. 1.1, section 22.28), and RMCP+ session activation
// (RAKP Message 1, section 13.20) carries at most 16 bytes of it too.
const IPMIUserNameMax = 16

// UsesIPMI tells whether a protocol list (empty: the default, Redfish then IPMI) may reach the
// BMC over IPMI.
func UsesIPMI(protocols []string) bool {
	if len(protocols) == 0 {
		return true
	}
	for _, p := range protocols {
		if strings.EqualFold(strings.TrimSpace(p), ProtocolIPMI) {
			return true
		}
	}
	return false
}

// CheckUserName checks a BMC account name against the protocols that may carry it: over IPMI a
// name longer than 16 bytes can neither log in nor be created.
func CheckUserName(name string, protocols []string) string {
	if len(name) > IPMIUserNameMax && UsesIPMI(protocols) {
		return fmt.Sprintf("user name %q is %d bytes, but IPMI carries at most %d (IPMI v2.0, Set User Name) and bmc.protocols lets the provider fall back to IPMI; shorten the name to %d bytes, or set bmc.protocols = [\"redfish\"] if this BMC is never reached over IPMI",
			name, len(name), IPMIUserNameMax, IPMIUserNameMax)
	}
	return ""
}

// EndpointPort returns the port an endpoint names ("host:9623", "https://host:9623",
// "[fd00::5]:9623"), or 0 when it names none.
func EndpointPort(endpoint string) int {
	ep := strings.TrimSpace(endpoint)
	if len(ep) >= len("https://") && strings.EqualFold(ep[:len("https://")], "https://") {
		ep = ep[len("https://"):]
	}
	ep = strings.TrimSuffix(ep, "/")
	_, p, err := net.SplitHostPort(ep)
	if err != nil {
		return 0
	}
	n, err := strconv.Atoi(p)
	if err != nil {
		return 0
	}
	return n
}

// CheckEndpointPort refuses an endpoint with a port together with a different port attribute:
// the session would use one of them silently (today the port attribute), and the user cannot
// tell which.
func CheckEndpointPort(endpoint string, port int) string {
	ep := EndpointPort(endpoint)
	if ep == 0 || port == 0 || ep == port {
		return ""
	}
	host := strings.TrimSuffix(strings.TrimSuffix(strings.TrimSpace(endpoint), "/"), ":"+strconv.Itoa(ep))
	return fmt.Sprintf("bmc.endpoint %q names port %d but bmc.port is %d; give the port once: remove \":%d\" from endpoint (endpoint = %q) to use port %d, or remove port to use %d",
		endpoint, ep, port, ep, host, port, ep)
}
