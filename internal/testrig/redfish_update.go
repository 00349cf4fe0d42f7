package testrig

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// The rig's firmware update service, after the DMTF schema: UpdateService v1_11
// (json-schema/UpdateService.json in DMTF/Redfish-Publications), SoftwareInventory v1_9 (the
// FirmwareInventory members, shaped like DMTF mockup public-rackmount1
// UpdateService/FirmwareInventory/BMC: Id, Version, SoftwareId, Updateable, Status, RelatedItem),
// Task v1_7 (TaskState, TaskStatus, PercentComplete, Messages, TaskMonitor) and TaskService.
// Facts and sources: /work/shared/reference/wave4-facts.md section 4.
//
// SimpleUpdate answers 202 Accepted with Location set to a task monitor and the Task in the
// body, as real BMCs do (Supermicro's Redfish FAQ 45630; DMTF Redfish-Tacklebox tasks.py
// poll_task_monitor; OpenStack ironic AsyncTaskMonitor), not the 204 of the DMTF mockup server.
// The monitor answers 202 while the task runs and, once it ends, 200 with the Task: the client
// learns the outcome (Completed, or Exception with its Messages) from either place. The image is
// "transferred" from a table the test fills (AddFirmwareImage): an ImageURI the rig does not know
// fails the task as a BMC that cannot fetch it does (Update registry, TransferFailed).

// RedfishUpdateTime is how long an update task runs by default.
const RedfishUpdateTime = 400 * time.Millisecond

// rfSimpleUpdateTarget is where the action is posted. Clients must read it from the
// UpdateService (the DMTF mockup spells it .../Actions/SimpleUpdate, sushy-tools and real BMCs
// .../Actions/UpdateService.SimpleUpdate).
const rfSimpleUpdateTarget = "/redfish/v1/UpdateService/Actions/UpdateService.SimpleUpdate"

// rfTransferProtocols are the TransferProtocol values the rig accepts (sushy-tools' list; the
// mockup's SimpleUpdateActionInfo also has FTP, SFTP, SCP, TFTP).
var rfTransferProtocols = []string{"HTTP", "HTTPS"}

type rfImage struct{ component, version string }

type rfTask struct {
	id, imageURI, component, version, user string
	start, done                            time.Time
	fail                                   []string // messages of a failed outcome
	failState                              string   // Exception (the default) or Killed
	state                                  string   // decided at done
}

type rfUpdateFault struct {
	state    string        // "Exception" or "Killed"
	messages []string      // the task ends in state with these
	reboot   time.Duration // the BMC restarts in the middle of the task for this long
}

// AddFirmwareImage makes an image known to the rig, as if it were on the site's image server:
// an update from uri installs version on component ("BMC" or "BIOS").
func (r *Redfish) AddFirmwareImage(uri, component, version string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.images == nil {
		r.images = map[string]rfImage{}
	}
	r.images[uri] = rfImage{component: component, version: version}
}

// FailNextUpdate makes the next SimpleUpdate's task end in Exception with these messages (text
// of Update registry ApplyFailed messages, say); nothing is installed.
func (r *Redfish) FailNextUpdate(messages ...string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.nextFault.state, r.nextFault.messages = "Exception", messages
}

// KillNextUpdate makes the next SimpleUpdate's task end in Killed (stopped by an operator or by
// the BMC itself) with these messages; nothing is installed.
func (r *Redfish) KillNextUpdate(messages ...string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.nextFault.state, r.nextFault.messages = "Killed", messages
}

// RebootDuringNextUpdate makes the BMC restart in the middle of the next update task and answer
// every request with 503 for d (its sessions are lost), as a BMC does when it activates its own
// new firmware. The task completes after the restart.
func (r *Redfish) RebootDuringNextUpdate(d time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.nextFault.reboot = d
}

// Updates lists the SimpleUpdate requests accepted, as "ImageURI -> outcome" once each ended
// (Completed, Exception) or "ImageURI -> Running".
func (r *Redfish) Updates() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	now := time.Now()
	out := make([]string, 0, len(r.tasks))
	for _, t := range r.tasks {
		r.advanceTask(t, now)
		st := t.state
		if st == "" {
			st = "Running"
		}
		out = append(out, t.imageURI+" -> "+st)
	}
	return out
}

// rfSeq numbers the update events of every Redfish rig of the process in the order they
// happened, so that a test of many BMCs can order them across rigs from the logs, not from
// clocks.
var rfSeq atomic.Int64

// RedfishUpdateEvent is one step of the rig's firmware update service, numbered process-wide.
type RedfishUpdateEvent struct {
	Seq int64
	// Kind: "posted" (SimpleUpdate accepted), "ended" (the task reached its final state, which a
	// client observed) or "read" (a FirmwareInventory member was read).
	Kind string
	// What: the ImageURI and final state for "ended" ("URI -> Completed"), the ImageURI for
	// "posted", the member and its version for "read" ("BMC 25.01.03").
	What string
}

func (r *Redfish) logUpdate(kind, what string) {
	r.updateLog = append(r.updateLog, RedfishUpdateEvent{Seq: rfSeq.Add(1), Kind: kind, What: what})
}

// UpdateLog is the rig's update events in order.
func (r *Redfish) UpdateLog() []RedfishUpdateEvent {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.updateLog)
}

// updateService is the UpdateService resource.
func (r *Redfish) updateService() map[string]any {
	return map[string]any{
		"@odata.id": "/redfish/v1/UpdateService", "@odata.type": "#UpdateService.v1_11_0.UpdateService",
		"Id": "UpdateService", "Name": "Update Service", "Status": rfStatus(), "ServiceEnabled": true,
		"FirmwareInventory": rfLink("/redfish/v1/UpdateService/FirmwareInventory"),
		"Actions": map[string]any{
			"#UpdateService.SimpleUpdate": map[string]any{
				"target": rfSimpleUpdateTarget,
				"TransferProtocol@Redfish.AllowableValues": rfTransferProtocols,
			},
		},
	}
}

// rfInventoryIDs are the FirmwareInventory members, with what each one's RelatedItem is.
var rfInventoryIDs = []string{"BIOS", "BMC"}

func (r *Redfish) inventoryMember(id string) map[string]any {
	var version, related, name, softwareID string
	switch id {
	case "BMC":
		version, related, name, softwareID = r.bmcFW, "/redfish/v1/Managers/1", "BMC Firmware", "1624A9DF-5E13-47FC-874A-DF3AFF143089"
	case "BIOS":
		version, related, name, softwareID = r.sysInfo["BiosVersion"], "/redfish/v1/Systems/1", "System BIOS", "B5E0B2F2-3C4D-4D0B-9E6A-2C1B1C0D0E11"
	default:
		return nil
	}
	return map[string]any{
		"@odata.id":   "/redfish/v1/UpdateService/FirmwareInventory/" + id,
		"@odata.type": "#SoftwareInventory.v1_9_0.SoftwareInventory",
		"Id":          id, "Name": name, "Status": rfStatus(), "Updateable": true,
		"Manufacturer": "NVIDIA", "Version": version, "SoftwareId": softwareID,
		"RelatedItem": []any{rfLink(related)},
	}
}

// routeUpdate serves the update and task services; false when p is not theirs.
func (r *Redfish) routeUpdate(rq *rfRequest) bool {
	const (
		inv   = "/redfish/v1/UpdateService/FirmwareInventory"
		tasks = "/redfish/v1/TaskService/Tasks"
		mons  = "/redfish/v1/TaskService/TaskMonitors"
	)
	p := rq.path
	switch {
	case p == "/redfish/v1/UpdateService":
		r.get(rq, r.updateService(), "GET")
	case p == rfSimpleUpdateTarget:
		r.simpleUpdate(rq)
	case p == inv:
		r.get(rq, r.collection(inv, "#SoftwareInventoryCollection.SoftwareInventoryCollection", "Firmware Inventory Collection", rfInventoryIDs), "GET")
	case strings.HasPrefix(p, inv+"/"):
		m := r.inventoryMember(strings.TrimPrefix(p, inv+"/"))
		if m == nil {
			return false
		}
		r.logUpdate("read", fmt.Sprintf("%s %v", m["Id"], m["Version"]))
		r.get(rq, m, "GET")
	case p == "/redfish/v1/TaskService":
		r.get(rq, map[string]any{
			"@odata.id": "/redfish/v1/TaskService", "@odata.type": "#TaskService.v1_2_0.TaskService",
			"Id": "TaskService", "Name": "Task Service", "ServiceEnabled": true, "Status": rfStatus(),
			"Tasks": rfLink(tasks),
		}, "GET")
	case p == tasks:
		ids := make([]string, 0, len(r.tasks))
		for _, t := range r.tasks {
			ids = append(ids, t.id)
		}
		r.get(rq, r.collection(tasks, "#TaskCollection.TaskCollection", "Task Collection", ids), "GET")
	case strings.HasPrefix(p, tasks+"/") || strings.HasPrefix(p, mons+"/"):
		id := p[strings.LastIndex(p, "/")+1:]
		var t *rfTask
		for _, x := range r.tasks {
			if x.id == id {
				t = x
			}
		}
		if t == nil {
			return false
		}
		r.advanceTask(t, time.Now())
		status := http.StatusOK
		if strings.HasPrefix(p, mons+"/") && t.state == "" {
			status = http.StatusAccepted // the monitor: still processing
		}
		if rq.req.Method != http.MethodGet && rq.req.Method != http.MethodHead {
			rq.w.Header().Set("Allow", "GET")
			rfError(rq.w, http.StatusMethodNotAllowed, "OperationNotAllowed", "The HTTP method is not allowed on this resource.", nil, nil)
			return true
		}
		rfWrite(rq.w, status, r.taskBody(t, time.Now()))
	default:
		return false
	}
	return true
}

// simpleUpdate checks the action's parameters (SimpleUpdate: ImageURI required; TransferProtocol,
// Targets, Username, Password, ForceUpdate, @Redfish.OperationApplyTime optional) and starts a
// task.
func (r *Redfish) simpleUpdate(rq *rfRequest) {
	if rq.req.Method != http.MethodPost {
		rq.w.Header().Set("Allow", "POST")
		rfError(rq.w, http.StatusMethodNotAllowed, "OperationNotAllowed", "The HTTP method is not allowed on this resource.", nil, nil)
		return
	}
	const action = "UpdateService.SimpleUpdate"
	for k := range rq.body {
		switch k {
		case "ImageURI", "TransferProtocol", "Targets", "Username", "Password", "ForceUpdate", "@Redfish.OperationApplyTime":
		default:
			rfError(rq.w, http.StatusBadRequest, "ActionParameterUnknown", fmt.Sprintf("The action %s was submitted with the invalid parameter %s.", action, k), []any{action, k}, []string{"/" + k})
			return
		}
	}
	uri, _ := rq.body["ImageURI"].(string)
	if uri == "" {
		rfError(rq.w, http.StatusBadRequest, "ActionParameterMissing", fmt.Sprintf("The action %s requires the parameter ImageURI to be present in the request body.", action), []any{action, "ImageURI"}, []string{"/ImageURI"})
		return
	}
	if v, ok := rq.body["TransferProtocol"]; ok {
		if s, _ := v.(string); !slices.Contains(rfTransferProtocols, s) {
			rfError(rq.w, http.StatusBadRequest, "ActionParameterValueNotInList", fmt.Sprintf("The value '%v' for the parameter TransferProtocol in the action %s is not in the list of acceptable values.", v, action), []any{fmt.Sprint(v), "TransferProtocol", action}, []string{"/TransferProtocol"})
			return
		}
	}
	var targets []string
	if v, ok := rq.body["Targets"]; ok {
		list, isList := v.([]any)
		if !isList {
			rfError(rq.w, http.StatusBadRequest, "ActionParameterValueTypeError", fmt.Sprintf("The value for the parameter Targets in the action %s is of a different type than the parameter can accept.", action), []any{"Targets", action}, []string{"/Targets"})
			return
		}
		for _, e := range list {
			s, _ := e.(string)
			if r.componentOf(s) == "" {
				rfError(rq.w, http.StatusBadRequest, "ActionParameterValueNotInList", fmt.Sprintf("The value '%v' for the parameter Targets in the action %s is not in the list of acceptable values.", e, action), []any{fmt.Sprint(e), "Targets", action}, []string{"/Targets"})
				return
			}
			targets = append(targets, s)
		}
	}

	now := time.Now()
	d := r.opts.UpdateTime
	if d <= 0 {
		d = RedfishUpdateTime
	}
	r.nextTask++
	t := &rfTask{id: strconv.Itoa(r.nextTask), imageURI: uri, start: now, done: now.Add(d), user: rq.user.UserName}
	img, known := r.images[uri]
	switch {
	case !known:
		t.fail = []string{fmt.Sprintf("Transfer of image '%s' to '%s' failed.", uri, "BMC")}
	default:
		t.component, t.version = img.component, img.version
		for _, tg := range targets {
			if r.componentOf(tg) != img.component {
				t.fail = append(t.fail, fmt.Sprintf("Installation of image '%s' to '%s' failed: the image is %s firmware.", uri, tg, img.component))
			}
		}
	}
	if t.fail == nil && r.nextFault.state != "" {
		t.fail, t.failState = r.nextFault.messages, r.nextFault.state
		if t.fail == nil {
			t.fail = []string{}
		}
	}
	if rb := r.nextFault.reboot; rb > 0 {
		// The restart comes halfway through, the task ends as long after it.
		from := now.Add(d / 2)
		r.restartFrom, r.restartUntil, r.rebootPending = from, from.Add(rb), true
		t.done = from.Add(rb + d/2)
	}
	r.nextFault = rfUpdateFault{}
	r.tasks = append(r.tasks, t)
	r.logUpdate("posted", uri)
	r.apiChange(rq, "UpdateService/SimpleUpdate", "", uri)
	if r.opts.UpdateNoContent {
		rq.w.Header().Set("Location", "/redfish/v1/TaskService/Tasks/"+t.id)
		rq.w.WriteHeader(http.StatusNoContent)
		return
	}
	rq.w.Header().Set("Location", "/redfish/v1/TaskService/TaskMonitors/"+t.id)
	rfWrite(rq.w, http.StatusAccepted, r.taskBody(t, now))
}

// componentOf maps a Targets URI to the component it updates: the inventory member or the
// resource it is related to.
func (r *Redfish) componentOf(uri string) string {
	switch strings.TrimRight(uri, "/") {
	case "/redfish/v1/UpdateService/FirmwareInventory/BMC", "/redfish/v1/Managers/1":
		return "BMC"
	case "/redfish/v1/UpdateService/FirmwareInventory/BIOS", "/redfish/v1/Systems/1":
		return "BIOS"
	}
	return ""
}

// advanceTask settles a task whose time is up: Exception with its messages, or Completed with
// the new version installed (the inventory, Manager.FirmwareVersion and
// ComputerSystem.BiosVersion all show it: one source of truth per component).
func (r *Redfish) advanceTask(t *rfTask, now time.Time) {
	if t.state != "" || now.Before(t.done) {
		return
	}
	if t.fail != nil {
		t.state = "Exception"
		if t.failState != "" {
			t.state = t.failState
		}
		r.logUpdate("ended", t.imageURI+" -> "+t.state)
		return
	}
	t.state = "Completed"
	r.logUpdate("ended", t.imageURI+" -> "+t.state)
	var old string
	switch t.component {
	case "BMC":
		old, r.bmcFW = r.bmcFW, t.version
	case "BIOS":
		old = r.sysInfo["BiosVersion"]
		r.sysInfo["BiosVersion"] = t.version
	}
	r.record(RedfishChange{Source: "api", User: t.user, Method: http.MethodPost, Path: rfSimpleUpdateTarget,
		Property: "UpdateService/FirmwareInventory/" + t.component + "/Version", Old: old, New: t.version})
}

func (r *Redfish) taskBody(t *rfTask, now time.Time) map[string]any {
	state, status, pct := "Running", "OK", 0
	if total := t.done.Sub(t.start); total > 0 {
		pct = int(100 * now.Sub(t.start) / total)
	}
	pct = min(max(pct, 0), 99)
	var msgs []any
	switch t.state {
	case "Completed":
		state, pct = t.state, 100
		msgs = append(msgs, rfMessage("Update.1.0.UpdateSuccessful", fmt.Sprintf("Device '%s' successfully updated with image '%s'.", t.component, t.imageURI), "OK"))
	case "Exception", "Killed":
		state, status, pct = t.state, "Critical", 100
		for _, m := range t.fail {
			msgs = append(msgs, rfMessage("Update.1.0.ApplyFailed", m, "Critical"))
		}
	}
	if msgs == nil {
		msgs = []any{}
	}
	return map[string]any{
		"@odata.id": "/redfish/v1/TaskService/Tasks/" + t.id, "@odata.type": "#Task.v1_7_0.Task",
		"Id": t.id, "Name": "Firmware update " + t.id, "TaskState": state, "TaskStatus": status,
		"PercentComplete": pct, "StartTime": t.start.UTC().Format(time.RFC3339),
		"TaskMonitor": "/redfish/v1/TaskService/TaskMonitors/" + t.id, "Messages": msgs,
		"Payload": map[string]any{
			"TargetUri":     rfSimpleUpdateTarget,
			"HttpOperation": "POST",
		},
	}
}

func rfMessage(id, text, severity string) map[string]any {
	return map[string]any{"@odata.type": "#Message.v1_1_1.Message", "MessageId": id, "Message": text, "MessageSeverity": severity}
}
