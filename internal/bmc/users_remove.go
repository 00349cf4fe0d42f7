package bmc

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Removing accounts. Redfish deletes an account with DELETE on it (DSP0266 section 13.3, the
// ManagerAccount collection of services that create accounts by POST: OpenBMC, the DMTF model);
// BMCs with fixed account slots (iDRAC, Supermicro) refuse DELETE with 405, and there an account
// is removed by clearing its slot, as their own tools do: empty name and password, disabled, role
// None. IPMI has no delete (IPMI v2.0 section 22.28 Set User Name and 22.30 Set User Password
// only): the slot is disabled, its channel privilege set to NO ACCESS, its password replaced by
// a random one and its name cleared; a BMC that refuses an empty name keeps the account
// disabled under its name, and RemoveUser says so.

// Removal outcomes, as RemoveUser reports them.
const (
	RemovedDeleted  = "deleted"  // gone from the BMC (DELETE, or its slot cleared)
	RemovedDisabled = "disabled" // kept under its name, disabled, without access
	RemovedAbsent   = "absent"   // there was no such account
)

// RemoveUser removes the account name from the BMC (see the outcomes above). The account this
// session logs in with is refused: removing it would lock the provider out.
func (s *Session) RemoveUser(ctx context.Context, name string) (string, error) {
	if strings.TrimSpace(name) == "" || strings.ContainsAny(name, " \t\n:\"'") {
		return "", s.newError(s.protocol, "remove user", ErrInvalid, fmt.Sprintf("user name %q is empty or holds spaces, quotes or colons", name), false, nil)
	}
	if name == s.cfg.Username {
		return "", s.newError(s.protocol, "remove user "+name, ErrInvalid, fmt.Sprintf("%q is the account this session logs in with; removing it would lock the provider out of the BMC", name), false, nil)
	}
	var how string
	err := s.call(ctx, "remove user "+name, func(ctx context.Context) error {
		var err error
		how, err = s.b.removeUser(ctx, name)
		return err
	})
	return how, err
}

func (b *redfishBackend) removeUser(ctx context.Context, name string) (string, error) {
	gf, err := b.gofish(ctx)
	if err != nil {
		return "", err
	}
	as, err := gf.Service.AccountService()
	if err != nil {
		return "", err
	}
	accounts, err := as.Accounts()
	if err != nil {
		return "", err
	}
	for _, a := range accounts {
		if a.UserName != name {
			continue
		}
		resp, err := gf.Delete(a.ODataID)
		if err == nil {
			resp.Body.Close()
			return RemovedDeleted, b.checkGone(ctx, name)
		}
		if st := httpStatus(err); st != http.StatusMethodNotAllowed && st != http.StatusNotImplemented {
			return "", err
		}
		// A fixed slot: clear it.
		hdr := map[string]string{}
		if a.ODataEtag != "" {
			hdr["If-Match"] = a.ODataEtag
		}
		resp, err = gf.PatchWithHeaders(a.ODataID, map[string]any{"UserName": "", "Password": "", "Enabled": false, "RoleId": "None"}, hdr)
		if err != nil {
			return "", err
		}
		resp.Body.Close()
		return RemovedDeleted, b.checkGone(ctx, name)
	}
	return RemovedAbsent, nil
}

func (b *redfishBackend) checkGone(ctx context.Context, name string) error {
	users, err := b.readUsers(ctx)
	if err != nil {
		return err
	}
	for _, u := range users {
		if u["Username"] == name {
			return &Error{Kind: ErrRejected, Detail: fmt.Sprintf("account %s is still listed after its removal", name)}
		}
	}
	return nil
}

func (b *ipmiBackend) removeUser(ctx context.Context, name string) (string, error) {
	users, err := b.users(ctx)
	if err != nil {
		return "", err
	}
	id := 0
	for _, u := range users {
		if u.name == name {
			id = u.id
		}
	}
	if id == 0 {
		return RemovedAbsent, nil
	}
	if id == 1 {
		return "", &Error{Kind: ErrNotSupported, Detail: "IPMI user slot 1 is the anonymous user and cannot be removed"}
	}
	random := make([]byte, 10)
	if _, err := rand.Read(random); err != nil {
		return "", err
	}
	ids := strconv.Itoa(id)
	cmds := []string{
		"user disable " + ids,
		"channel setaccess " + ipmiLANChannel + " " + ids + " callin=off ipmi=off link=off privilege=15",
		"user set password " + ids + " " + hex.EncodeToString(random) + " 20",
	}
	dir, err := os.MkdirTemp("", "bmc-ipmi-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(dir)
	file := filepath.Join(dir, "cmds")
	if err := os.WriteFile(file, []byte(strings.Join(cmds, "\n")+"\n"), 0o600); err != nil {
		return "", err
	}
	out, err := b.tool.run(ctx, "exec", file)
	if err != nil {
		return "", err
	}
	for _, line := range strings.Split(out, "\n") {
		l := strings.ToLower(line)
		if strings.Contains(l, "error") || strings.Contains(l, "fail") || strings.Contains(l, "invalid") {
			return "", fmt.Errorf("ipmitool exec: %s", strings.TrimSpace(line))
		}
	}
	how := RemovedDeleted
	if _, err := b.tool.run(ctx, "user", "set", "name", ids, ""); err != nil {
		how = RemovedDisabled
	}
	users, err = b.users(ctx)
	if err != nil {
		return "", err
	}
	for _, u := range users {
		if u.id != id {
			continue
		}
		switch {
		case u.role != "None":
			// NO ACCESS is what counts: some BMCs (ipmi_sim) keep showing the IPMI
			// messaging bit of a slot whose privilege is NO ACCESS.
			return "", &Error{Kind: ErrRejected, Detail: fmt.Sprintf("IPMI slot %d still has privilege %s after removing %s", id, u.role, name)}
		case u.name == name:
			how = RemovedDisabled
		}
		return how, nil
	}
	return "", errors.New("ipmitool user list: the slot vanished")
}
