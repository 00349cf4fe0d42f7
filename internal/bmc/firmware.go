package bmc

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/stmcginnis/gofish"
)

// BMC and BIOS firmware through the Redfish UpdateService (DMTF DSP2046: UpdateService v1_11,
// SoftwareInventory v1_9, Task v1_7; DSP0266 for the asynchronous 202 + task monitor flow, as
// DMTF Redfish-Tacklebox redfish_utilities/tasks.py poll_task_monitor and OpenStack ironic's
// AsyncTaskMonitor follow it). Facts and sources: /work/shared/reference/wave4-facts.md section 4.
//
// Written here rather than taken from the libraries:
//   - bmclib v2.3.4's firmware calls (FirmwareInstall, FirmwareUpload...) push the image's bytes
//     from this process (multipart HttpPush, vendor providers only); none posts SimpleUpdate with
//     an ImageURI for the BMC to fetch.
//   - gofish v0.19's UpdateService.SimpleUpdate discards the response, and with it the 202's
//     Location (the task monitor); its parameters misspell Password ("Passord"); its
//     SoftwareInventory keeps RelatedItem unexported, which is how a member is told to be the
//     BMC's or the BIOS's.
//
// So gofish is the HTTP client (authentication, the retrying transport of retry.go, Redfish
// error decoding) and the resources are read as JSON here.

// Firmware components UpdateFirmware takes.
const (
	FirmwareBMC  = "bmc"
	FirmwareBIOS = "bios"
)

// FirmwareComponents are the components a node's firmware names.
var FirmwareComponents = []string{FirmwareBMC, FirmwareBIOS}

// DefaultFirmwareTimeout bounds an update whose context has no deadline: BMC firmware updates
// take minutes (transfer, flash, the BMC's own restart).
const DefaultFirmwareTimeout = 30 * time.Minute

// Firmware is what FirmwareInventory says of a node's BMC and BIOS.
type Firmware struct {
	BMC, BIOS string
	// Source is where the versions come from: "FirmwareInventory", or "Manager/ComputerSystem"
	// on a BMC without an UpdateService.
	Source string
}

// FirmwareUpdate is what UpdateFirmware did.
type FirmwareUpdate struct {
	// Changed is false when the component already ran the version: nothing was posted.
	Changed bool
	// Before and After are the versions read before and after.
	Before, After string
	// Task is the task's URI (or the monitor's), for the log.
	Task string
}

// Firmware reads the BMC and BIOS versions from the UpdateService's FirmwareInventory.
func (s *Session) Firmware(ctx context.Context) (Firmware, error) {
	var fw Firmware
	err := s.call(ctx, "read firmware", func(ctx context.Context) error {
		var err error
		fw, err = s.b.firmware(ctx)
		return err
	})
	return fw, err
}

// UpdateFirmware brings component (FirmwareBMC or FirmwareBIOS) to version: when the inventory
// shows another version it posts UpdateService.SimpleUpdate with imageURI, follows the task to
// its end, and reads the version back. A task that ends in Exception, Killed or Cancelled fails
// with the task's messages; 503 answers and dropped connections (a BMC restarting into its new
// firmware) are waited out. ctx bounds the whole update (DefaultFirmwareTimeout without a
// deadline), each request the session's Timeout.
func (s *Session) UpdateFirmware(ctx context.Context, component, imageURI, version string) (FirmwareUpdate, error) {
	var res FirmwareUpdate
	op := "update " + strings.ToUpper(component) + " firmware"
	// An image server's password in the URI (https://user:pw@host/...) is a secret like the
	// BMC's: BMCs echo the URI in their task messages, which go into errors.
	if u, err := url.Parse(imageURI); err == nil && u.User != nil {
		if pw, ok := u.User.Password(); ok {
			s.red.add(u.User.Username(), pw)
		}
	}
	switch {
	case !slices.Contains(FirmwareComponents, component):
		return res, s.newError(s.protocol, op, ErrInvalid, fmt.Sprintf("component %q: want one of %s", component, strings.Join(FirmwareComponents, ", ")), false, nil)
	case strings.TrimSpace(version) == "":
		return res, s.newError(s.protocol, op, ErrInvalid, "the version to install is empty", false, nil)
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, DefaultFirmwareTimeout)
		defer cancel()
	}
	err := s.callWithin(ctx, op, 0, func(ctx context.Context) error {
		var err error
		res, err = s.b.updateFirmware(ctx, component, imageURI, version)
		return err
	})
	return res, err
}

// rfInventoryMember is the part of a SoftwareInventory resource read here.
type rfInventoryMember struct {
	ODataID     string `json:"@odata.id"`
	ID          string `json:"Id"`
	Name        string `json:"Name"`
	Version     string `json:"Version"`
	Updateable  bool   `json:"Updateable"`
	RelatedItem []struct {
		ODataID string `json:"@odata.id"`
	} `json:"RelatedItem"`
	Status struct {
		State string `json:"State"`
	} `json:"Status"`
}

// rfUpdateService is the part of an UpdateService read here. The action's target is read, never
// built: the DMTF mockup spells it .../Actions/SimpleUpdate, real BMCs and sushy-tools
// .../Actions/UpdateService.SimpleUpdate.
type rfUpdateService struct {
	FirmwareInventory struct {
		ODataID string `json:"@odata.id"`
	} `json:"FirmwareInventory"`
	Actions struct {
		SimpleUpdate *struct {
			Target string `json:"target"`
		} `json:"#UpdateService.SimpleUpdate"`
	} `json:"Actions"`
}

// updateServiceOf reads the service root's UpdateService link and the UpdateService; nil when
// the BMC has none.
func updateServiceOf(gf *gofish.APIClient) (*rfUpdateService, error) {
	var root struct {
		UpdateService struct {
			ODataID string `json:"@odata.id"`
		} `json:"UpdateService"`
	}
	if _, err := getJSON(gf, "/redfish/v1/", &root); err != nil {
		return nil, err
	}
	if root.UpdateService.ODataID == "" {
		return nil, nil
	}
	var us rfUpdateService
	_, err := getJSON(gf, root.UpdateService.ODataID, &us)
	if httpStatus(err) == http.StatusNotFound {
		return nil, nil
	}
	return &us, err
}

// inventory reads the FirmwareInventory members and picks the BMC's and the BIOS's.
func inventory(gf *gofish.APIClient, us *rfUpdateService) (map[string]*rfInventoryMember, error) {
	if us.FirmwareInventory.ODataID == "" {
		return nil, &Error{Kind: ErrNotSupported, Detail: "the BMC's UpdateService has no FirmwareInventory"}
	}
	var coll struct {
		Members []struct {
			ODataID string `json:"@odata.id"`
		} `json:"Members"`
	}
	if _, err := getJSON(gf, us.FirmwareInventory.ODataID, &coll); err != nil {
		return nil, err
	}
	var members []*rfInventoryMember
	for _, m := range coll.Members {
		var mem rfInventoryMember
		if _, err := getJSON(gf, m.ODataID, &mem); err != nil {
			return nil, err
		}
		if mem.ODataID == "" {
			mem.ODataID = m.ODataID
		}
		members = append(members, &mem)
	}
	return pickFirmware(members), nil
}

// pickFirmware tells which inventory members are the running BMC and BIOS firmware. A member is
// the BMC's when its RelatedItem is a Manager and the BIOS's when it is a ComputerSystem (or its
// Bios), as in the DMTF mockup (FirmwareInventory/BMC -> /redfish/v1/Managers/BMC) and
// Supermicro's; without RelatedItem, by an Id or Name of "BMC" or "BIOS" (case aside, as a
// word). Dell iDRAC also lists the images kept beside the running one ("Previous-...",
// "Available-..."): they are skipped. Among several candidates the enabled, updateable one
// wins, then the first by URI, so that the choice does not depend on the BMC's member order.
func pickFirmware(members []*rfInventoryMember) map[string]*rfInventoryMember {
	cands := map[string][]*rfInventoryMember{}
	for _, m := range members {
		if strings.HasPrefix(m.ID, "Previous-") || strings.HasPrefix(m.ID, "Available-") {
			continue
		}
		comp := ""
		for _, ri := range m.RelatedItem {
			switch {
			case strings.Contains(ri.ODataID, "/Managers/"):
				comp = FirmwareBMC
			case strings.Contains(ri.ODataID, "/Systems/"):
				comp = FirmwareBIOS
			}
		}
		if comp == "" {
			for _, w := range strings.FieldsFunc(strings.ToLower(m.ID+" "+m.Name), func(r rune) bool {
				return (r < 'a' || r > 'z') && (r < '0' || r > '9')
			}) {
				if w == "bmc" || w == "bios" {
					comp = w
					break
				}
			}
		}
		if comp != "" {
			cands[comp] = append(cands[comp], m)
		}
	}
	out := map[string]*rfInventoryMember{}
	for comp, list := range cands {
		sort.SliceStable(list, func(i, j int) bool {
			ri, rj := rank(list[i]), rank(list[j])
			if ri != rj {
				return ri < rj
			}
			return list[i].ODataID < list[j].ODataID
		})
		out[comp] = list[0]
	}
	return out
}

func rank(m *rfInventoryMember) int {
	r := 0
	if !m.Updateable {
		r += 2
	}
	if m.Status.State != "" && m.Status.State != "Enabled" {
		r++
	}
	return r
}

func (b *redfishBackend) firmware(ctx context.Context) (Firmware, error) {
	gf, err := b.gofish(ctx)
	if err != nil {
		return Firmware{}, err
	}
	us, err := updateServiceOf(gf)
	if err != nil {
		return Firmware{}, err
	}
	if us == nil || us.FirmwareInventory.ODataID == "" {
		// No inventory: the versions the Manager and the system report are the next best.
		st, err := b.read(ctx)
		return Firmware{BMC: st.BMCFirmware, BIOS: st.BIOSFirmware, Source: "Manager/ComputerSystem"}, err
	}
	inv, err := inventory(gf, us)
	if err != nil {
		return Firmware{}, err
	}
	fw := Firmware{Source: "FirmwareInventory"}
	if m := inv[FirmwareBMC]; m != nil {
		fw.BMC = m.Version
	}
	if m := inv[FirmwareBIOS]; m != nil {
		fw.BIOS = m.Version
	}
	return fw, nil
}

// Task states (Task v1_7 TaskState): those that end a task, and the failures among them.
var (
	taskFailed = []string{"Exception", "Killed", "Cancelled"}
	taskEnded  = append([]string{"Completed"}, taskFailed...)
)

// rfTask is the part of a Task resource read here.
type rfTask struct {
	ODataID         string `json:"@odata.id"`
	ODataType       string `json:"@odata.type"`
	TaskState       string `json:"TaskState"`
	TaskStatus      string `json:"TaskStatus"`
	PercentComplete *int   `json:"PercentComplete"`
	Messages        []struct {
		MessageID string `json:"MessageId"`
		Message   string `json:"Message"`
	} `json:"Messages"`
}

func (t *rfTask) messages() string {
	var out []string
	for _, m := range t.Messages {
		switch {
		case m.Message != "":
			out = append(out, m.Message)
		case m.MessageID != "":
			out = append(out, m.MessageID)
		}
	}
	if len(out) == 0 {
		return "the task gave no message"
	}
	return strings.Join(out, "; ")
}

func (b *redfishBackend) updateFirmware(ctx context.Context, component, imageURI, version string) (FirmwareUpdate, error) {
	var res FirmwareUpdate
	gf, err := b.gofish(ctx)
	if err != nil {
		return res, err
	}
	us, err := updateServiceOf(gf)
	if err != nil {
		return res, err
	}
	if us == nil || us.Actions.SimpleUpdate == nil || us.Actions.SimpleUpdate.Target == "" {
		return res, &Error{Kind: ErrNotSupported, Detail: "the BMC offers no UpdateService.SimpleUpdate action"}
	}
	inv, err := inventory(gf, us)
	if err != nil {
		return res, err
	}
	member := inv[component]
	if member == nil {
		return res, &Error{Kind: ErrNotSupported, Detail: fmt.Sprintf("the BMC's FirmwareInventory lists no %s firmware", strings.ToUpper(component))}
	}
	res.Before, res.After = member.Version, member.Version
	if member.Version == version {
		return res, nil // already there: no change, not an error (dell/terraform-provider-redfish issues 7, 232)
	}
	if strings.TrimSpace(imageURI) == "" {
		return res, &Error{Kind: ErrInvalid, Detail: fmt.Sprintf("%s firmware is %s, not %s, and no image is given to update it", strings.ToUpper(component), member.Version, version)}
	}
	// Targets: the member's related item (the Manager, the ComputerSystem), which is what
	// Supermicro, sushy-tools and OpenBMC accept; the member itself otherwise, which the schema
	// also allows ("software inventory instances or their related items").
	target := member.ODataID
	if len(member.RelatedItem) == 1 && member.RelatedItem[0].ODataID != "" {
		target = member.RelatedItem[0].ODataID
	}
	body := map[string]any{"ImageURI": imageURI, "Targets": []string{target}}
	resp, err := gf.Post(us.Actions.SimpleUpdate.Target, body)
	if err != nil {
		return res, err
	}
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	resp.Body.Close()
	res.Changed = true
	monitor := resp.Header.Get("Location")
	var first rfTask
	_ = json.Unmarshal(raw, &first)
	res.Task = monitor
	if first.ODataID != "" {
		res.Task = first.ODataID
	}
	b.log.V(1).Info("firmware update accepted", "component", component, "status", resp.StatusCode, "monitor", monitor)
	if monitor != "" || first.TaskState != "" {
		task, err := b.followTask(ctx, monitor, first)
		if err != nil {
			return res, err
		}
		if slices.Contains(taskFailed, task.TaskState) {
			return res, &Error{Kind: ErrRejected, Detail: fmt.Sprintf("the %s firmware update task ended in %s: %s", strings.ToUpper(component), task.TaskState, task.messages())}
		}
	}
	// Read back: a BMC restarting into its new firmware may still be busy; the retrying
	// client waits for it within ctx.
	after, err := b.waitVersion(ctx, component, version)
	res.After = after
	if err != nil {
		return res, err
	}
	return res, nil
}

// followTask polls the task monitor until the task ends and returns the Task. The monitor
// answers 202 while the task runs and the final answer once it ends (DSP0266; Tacklebox polls
// "until it stops being 202"); where that answer is not a Task, the Task resource named in the
// 202's body is read. Busy answers and dropped connections are waited out within ctx; the wait
// between polls grows from 200 ms to 5 s, or follows Retry-After.
func (b *redfishBackend) followTask(ctx context.Context, monitor string, first rfTask) (rfTask, error) {
	last := first
	taskURI := first.ODataID
	if monitor == "" {
		monitor = taskURI
	}
	wait := 200 * time.Millisecond
	for {
		status, hdr, t, err := b.getTask(ctx, monitor)
		switch {
		case ctx.Err() != nil:
			return last, b.taskTimeout(last)
		case err != nil || busy(status):
			// The BMC restarts or is busy: keep polling.
		case status == http.StatusAccepted:
			if t.TaskState != "" {
				last = t
			}
		case status == http.StatusOK && t.TaskState != "":
			// The Task, from the monitor once it ended, or polled directly (a BMC that
			// answered 204 with the Task's URI in Location): done when its state says so.
			last = t
			if slices.Contains(taskEnded, t.TaskState) {
				return t, nil
			}
		case taskURI != "" && monitor != taskURI:
			// The monitor ended with something other than the Task (204, the operation's
			// error, or gone once done): the Task resource says how it went.
			monitor = taskURI
			continue
		case status/100 == 2:
			return rfTask{TaskState: "Completed"}, nil // no task to ask: the read-back decides
		default:
			return last, &Error{Kind: ErrRejected, Detail: fmt.Sprintf("the task monitor %s answered HTTP %d and names no task resource", monitor, status)}
		}
		d := wait
		if ra, ok := retryAfter(hdr.Get("Retry-After"), time.Now()); ok {
			d = ra
		}
		if dl, ok := ctx.Deadline(); ok && time.Now().Add(d).After(dl) {
			d = time.Until(dl)
		}
		if !sleepCtx(ctx, d) {
			return last, b.taskTimeout(last)
		}
		if wait *= 2; wait > 5*time.Second {
			wait = 5 * time.Second
		}
	}
}

func (b *redfishBackend) taskTimeout(last rfTask) error {
	state := last.TaskState
	if state == "" {
		state = "Running"
	}
	pct := ""
	if last.PercentComplete != nil {
		pct = fmt.Sprintf(" (%d%%)", *last.PercentComplete)
	}
	// ErrFailed, not a timeout of the BMC (ErrUnreachable, TimedOut, whose advice is to check
	// the network): the BMC answered all along and its task outlasted the bound.
	return &Error{Kind: ErrFailed, Detail: fmt.Sprintf("the firmware update task was still %s%s when the node's timeouts ran out; raise them, or let the BMC finish it: the next refresh reads the version it then runs", state, pct)}
}

// getTask GETs a task monitor or Task with the session's credentials through the retrying
// client. It returns the status even when it is an error (gofish turns those into errors and
// drops the Retry-After), and the Task when the body is one. uri must be on the BMC: the
// credentials go nowhere else.
func (b *redfishBackend) getTask(ctx context.Context, uri string) (int, http.Header, rfTask, error) {
	var t rfTask
	base, err := url.Parse(b.cfg.redfishURL())
	if err != nil {
		return 0, nil, t, err
	}
	u, err := base.Parse(uri)
	if err != nil {
		return 0, nil, t, err
	}
	if u.Scheme != base.Scheme || u.Host != base.Host {
		return 0, nil, t, &Error{Kind: ErrRejected, Detail: fmt.Sprintf("the task monitor %s is not on the BMC", uri)}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return 0, nil, t, err
	}
	req.SetBasicAuth(b.cfg.Username, b.cfg.Password)
	req.Header.Set("Accept", "application/json")
	resp, err := b.httpc.Do(req)
	if err != nil {
		return 0, nil, t, err
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	_ = json.Unmarshal(raw, &t)
	return resp.StatusCode, resp.Header, t, nil
}

// firmwareSettle is how long a BMC that answers may still show the old version after the task
// completed (inventories refresh after activation); a variable for the tests.
var firmwareSettle = 10 * time.Second

// waitVersion reads the component's version until it is version or ctx ends: a BMC that
// activates its new firmware may answer 503, drop connections or show the old version for a
// moment after the task completed.
func (b *redfishBackend) waitVersion(ctx context.Context, component, version string) (string, error) {
	wait := 200 * time.Millisecond
	var got string
	var lastErr error
	var firstSeen time.Time
	for {
		fw, err := b.firmware(ctx)
		lastErr = err
		if err == nil {
			got = fw.BMC
			if component == FirmwareBIOS {
				got = fw.BIOS
			}
			if got == version {
				return got, nil
			}
			if firstSeen.IsZero() {
				firstSeen = time.Now()
			}
		}
		out := ctx.Err() != nil
		if dl, ok := ctx.Deadline(); ok && time.Now().Add(wait).After(dl) {
			out = true
		}
		if !firstSeen.IsZero() && time.Since(firstSeen) > firmwareSettle {
			out = true
		}
		if out {
			if firstSeen.IsZero() {
				if ctx.Err() != nil || lastErr == nil {
					return got, &Error{Kind: ErrUnreachable, TimedOut: true, Detail: "the update task completed but the BMC did not answer again before the timeout ran out"}
				}
				return got, lastErr
			}
			return got, &Error{Kind: ErrRejected, Detail: fmt.Sprintf("the update task completed but the FirmwareInventory shows %s firmware %s, not %s (an image of another version, or one the BMC activates only at its next reset)", strings.ToUpper(component), got, version)}
		}
		sleepCtx(ctx, wait)
		if wait *= 2; wait > 2*time.Second {
			wait = 2 * time.Second
		}
	}
}

func (b *ipmiBackend) firmware(context.Context) (Firmware, error) {
	return Firmware{}, &Error{Kind: ErrNotSupported, Detail: "IPMI has no firmware inventory; BMC and BIOS firmware need Redfish"}
}

func (b *ipmiBackend) updateFirmware(context.Context, string, string, string) (FirmwareUpdate, error) {
	return FirmwareUpdate{}, &Error{Kind: ErrNotSupported, Detail: "IPMI has no UpdateService; BMC and BIOS firmware updates need Redfish"}
}
