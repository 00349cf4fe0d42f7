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

// LoginRole is the role the account the provider logs in with needs: managing bmc_users takes
// Administrator (Redfish AccountService; IPMI Set User Access needs ADMINISTRATOR privilege,
// IPMI v2.0 section 22.26), and only an Administrator can give an account its role back.
const LoginRole = "Administrator"

// CheckLoginAccount refuses a bmc_users entry that would lower the role of the account the
// provider logs in with (login): the apply would succeed and every later call would fail with
// 401 or 403, leaving Terraform unable to undo its own change (issue 22). Role "None" is the
// account disabled.
func CheckLoginAccount(login, name, role string) string {
	if login == "" || name != login || role == LoginRole {
		return ""
	}
	what := fmt.Sprintf("role %q", role)
	if role == "None" {
		what = `role "None" (no access: the account disabled)`
	}
	return fmt.Sprintf("%q is the account the provider logs in with to this BMC, and %s would lock the provider out: the apply would succeed and every later refresh and apply would be refused, and only another Administrator could give the account its role back. Keep role = %q for %q, or first move the provider to another Administrator account (bmc.username and bmc.password) and then change %q",
		login, what, LoginRole, login, login)
}

// LockoutAdvice says what happened and how to recover when the BMC refuses the provider's own
// login (ErrAuth). opened tells that the session opened, so the credentials were accepted and an
// operation was refused (403: the role is too low); workedBefore that the BMC accepted this login
// before (a refresh read it), so a 401 means the account changed on the BMC. It returns "" when
// neither applies (credentials that never worked: the usual hint fits).
func LockoutAdvice(login string, opened, workedBefore bool) string {
	restore := fmt.Sprintf("Terraform cannot repair the account it logs in with. With another Administrator account of the BMC (its web interface, or Redfish PATCH /redfish/v1/AccountService/Accounts/<id> with {\"RoleId\": %q, \"Enabled\": true}) or from the host (ipmitool user list 1, then ipmitool user priv <id> 4 1 and ipmitool user enable <id>)", LoginRole)
	switch {
	case opened:
		return fmt.Sprintf("The BMC accepted the provider's login %q but refused the operation: the account's role is too low for it (bmc_users needs %s; power, boot and BIOS need Operator or %s). If its role was lowered (by an earlier apply of bmc_users, or at the BMC), %s, give %q the %s role again, then run the plan again.",
			login, LoginRole, LoginRole, restore, login, LoginRole)
	case workedBefore:
		return fmt.Sprintf("The BMC refused the provider's login %q, which it accepted before (an earlier refresh read this BMC with it): the account was disabled, deleted, demoted to no access, locked after failed logins, or its password was changed. %s, check that %q exists, is enabled, has the %s role and the password the provider has (bmc.password, or the provider's bmc = { password }); a lockout after failed logins ends after the BMC's lockout period. Then run the plan again.",
			login, restore, login, LoginRole)
	}
	return ""
}

// CheckBIOSProtocols refuses bios_settings on a node whose protocols (empty: the default, which
// includes Redfish) leave out Redfish: IPMI has no BIOS settings, and the apply would fail only
// after the other changes were made.
func CheckBIOSProtocols(protocols []string) string {
	if len(protocols) == 0 {
		return ""
	}
	for _, p := range protocols {
		if p == ProtocolRedfish {
			return ""
		}
	}
	return "bios_settings are set through Redfish, but bmc.protocols allows only IPMI, which has no BIOS settings; add \"redfish\" to bmc.protocols or remove bios_settings"
}

// DuplicateUsers refuses bmc_users entries naming an account an earlier entry named: the BMC
// holds one role and password per account, so the second entry would silently win. names are
// the entries' names in order; known[i] false (the name is unknown at plan time) skips entry i.
// It returns the sentence for each refused entry, by index.
func DuplicateUsers(names []string, known []bool) map[int]string {
	out := map[int]string{}
	seen := map[string]bool{}
	for i, n := range names {
		if i < len(known) && !known[i] {
			continue
		}
		if seen[n] {
			out[i] = fmt.Sprintf("bmc_users lists the account %q twice; list each account once", n)
		}
		seen[n] = true
	}
	return out
}

// CheckWithoutBMC refuses attr (power_state, boot_device, bmc_users, bios_settings), set on a
// node that has no BMC to set it through.
func CheckWithoutBMC(attr string) string {
	return fmt.Sprintf("%s is set through the node's BMC, but the node has no bmc = { endpoint = ... }; add one or remove %s", attr, attr)
}

// CheckResetAfterBIOS refuses a reset after BIOS changes (reset, not ResetNone) on a node with no
// BIOS settings: there is nothing pending for the restart to apply.
func CheckResetAfterBIOS(reset string, hasBIOS bool) string {
	if reset == "" || reset == ResetNone || hasBIOS {
		return ""
	}
	return fmt.Sprintf("reset_after_bios = %q restarts the host for pending bios_settings, but the node has none; set bios_settings or remove reset_after_bios", reset)
}

// CheckFirmwareProtocols refuses firmware on a node whose protocols (empty: the default, which
// includes Redfish) leave out Redfish: versions are read from, and updates posted to, the Redfish
// UpdateService, which IPMI has no counterpart of.
func CheckFirmwareProtocols(protocols []string) string {
	if len(protocols) == 0 || containsString(protocols, ProtocolRedfish) {
		return ""
	}
	return "firmware versions are read from and updated through the Redfish UpdateService, but bmc.protocols allows only IPMI, which has no firmware inventory nor update service; add \"redfish\" to bmc.protocols or remove firmware"
}

// CheckFirmwareImage refuses a declared firmware version that differs from the one the BMC
// runs when no image is given to install it: the apply could only fail.
func CheckFirmwareImage(component, want, running string, hasImage bool) string {
	if hasImage || want == "" || running == "" || want == running {
		return ""
	}
	return fmt.Sprintf("firmware.%s is %q but the BMC runs %q, and firmware.images.%s is not set; set images.%s to the URI of the %s image the BMC should fetch (an http(s) URL), or set firmware.%s = %q to accept the running version",
		component, want, running, component, component, strings.ToUpper(component), component, running)
}
