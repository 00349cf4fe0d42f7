package testrig

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// pollMonitor polls a task monitor the way DMTF Tacklebox's poll_task_monitor does (until the
// answer is not 202) and returns every status and TaskState seen, and the last body.
func pollMonitor(t *testing.T, c *rfClient, loc string) (statuses []int, states []string, last map[string]any) {
	t.Helper()
	const within = 5 * time.Second
	stop := time.Now().Add(within)
	for time.Now().Before(stop) {
		st, _, body := c.do("GET", loc, nil, nil)
		statuses = append(statuses, st)
		if s, _ := body["TaskState"].(string); s != "" && (len(states) == 0 || states[len(states)-1] != s) {
			states = append(states, s)
		}
		last = body
		if st != http.StatusAccepted && st != http.StatusServiceUnavailable {
			return statuses, states, last
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("task monitor %s still processing after %s (statuses %v)", loc, within, statuses)
	return
}

// taskMessages joins the Message texts of a Task's Messages with "|".
func taskMessages(task map[string]any) string {
	msgs, _ := task["Messages"].([]any)
	var out []string
	for _, m := range msgs {
		mm, _ := m.(map[string]any)
		text, _ := mm["Message"].(string)
		out = append(out, text)
	}
	return strings.Join(out, "|")
}

func inventoryVersion(t *testing.T, c *rfClient, id string) string {
	t.Helper()
	st, _, body := c.do("GET", "/redfish/v1/UpdateService/FirmwareInventory/"+id, nil, nil)
	if st != http.StatusOK {
		t.Fatalf("GET inventory %s: %d %v", id, st, body)
	}
	v, _ := body["Version"].(string)
	return v
}

// TestRedfishRigSimpleUpdate walks the DMTF flow: the UpdateService names the action's target
// and the inventory, SimpleUpdate answers 202 with a task monitor in Location, the task goes
// Running -> Completed, and only then the inventory (and the Manager, one source of truth) show
// the image's version.
func TestRedfishRigSimpleUpdate(t *testing.T) {
	rig := StartRedfish(t, RedfishOptions{})
	rig.AddFirmwareImage("http://images.example/bmc-25.01.bin", "BMC", "25.01.03")
	c := newRFClient(t, rig)
	c.basic = [2]string{rig.Username, rig.Password}

	st, _, root := c.do("GET", "/redfish/v1", nil, nil)
	if st != 200 || root["UpdateService"] == nil {
		t.Fatalf("service root: %d, UpdateService link %v", st, root["UpdateService"])
	}
	_, _, us := c.do("GET", "/redfish/v1/UpdateService", nil, nil)
	act, _ := us["Actions"].(map[string]any)["#UpdateService.SimpleUpdate"].(map[string]any)
	target, _ := act["target"].(string)
	if target == "" {
		t.Fatalf("UpdateService has no SimpleUpdate target: %v", us)
	}
	_, _, coll := c.do("GET", "/redfish/v1/UpdateService/FirmwareInventory", nil, nil)
	members, _ := coll["Members"].([]any)
	if n, _ := coll["Members@odata.count"].(float64); n != 2 || len(members) != 2 {
		t.Fatalf("inventory collection: %v", coll)
	}
	if v := inventoryVersion(t, c, "BMC"); v != "24.09.17" {
		t.Fatalf("BMC version before: %q", v)
	}
	if v := inventoryVersion(t, c, "BIOS"); v != "1.6.7" {
		t.Fatalf("BIOS version before: %q", v)
	}

	st, hdr, task := c.do("POST", target, map[string]any{"ImageURI": "http://images.example/bmc-25.01.bin", "Targets": []string{"/redfish/v1/UpdateService/FirmwareInventory/BMC"}}, nil)
	loc := hdr.Get("Location")
	if st != http.StatusAccepted || loc == "" || task["TaskState"] != "Running" {
		t.Fatalf("SimpleUpdate: %d, Location %q, task %v", st, loc, task)
	}
	if v := inventoryVersion(t, c, "BMC"); v != "24.09.17" {
		t.Fatalf("BMC version changed while the task runs: %q", v)
	}
	statuses, states, last := pollMonitor(t, c, loc)
	if statuses[0] != http.StatusAccepted || statuses[len(statuses)-1] != http.StatusOK {
		t.Fatalf("monitor statuses %v, want 202... then 200", statuses)
	}
	if strings.Join(states, ",") != "Running,Completed" || last["PercentComplete"] != float64(100) {
		t.Fatalf("task states %v, last %v", states, last)
	}
	if v := inventoryVersion(t, c, "BMC"); v != "25.01.03" {
		t.Fatalf("BMC version after: %q", v)
	}
	_, _, mgr := c.do("GET", "/redfish/v1/Managers/1", nil, nil)
	if mgr["FirmwareVersion"] != "25.01.03" {
		t.Fatalf("Manager.FirmwareVersion after: %v", mgr["FirmwareVersion"])
	}
	if v := inventoryVersion(t, c, "BIOS"); v != "1.6.7" {
		t.Fatalf("BIOS changed by a BMC update: %q", v)
	}
	if got := rig.Updates(); len(got) != 1 || got[0] != "http://images.example/bmc-25.01.bin -> Completed" {
		t.Fatalf("Updates() = %v", got)
	}
}

// TestRedfishRigSimpleUpdateRefusals: the action's parameters are checked before any task.
func TestRedfishRigSimpleUpdateRefusals(t *testing.T) {
	rig := StartRedfish(t, RedfishOptions{})
	c := newRFClient(t, rig)
	c.basic = [2]string{rig.Username, rig.Password}
	for _, tc := range []struct {
		body map[string]any
		id   string
	}{
		{map[string]any{}, "Base.1.15.ActionParameterMissing"},
		{map[string]any{"ImageURI": "http://x/y", "TransferProtocol": "GOPHER"}, "Base.1.15.ActionParameterValueNotInList"},
		{map[string]any{"ImageURI": "http://x/y", "Targets": []string{"/redfish/v1/Chassis/1"}}, "Base.1.15.ActionParameterValueNotInList"},
		{map[string]any{"ImageURI": "http://x/y", "Force": true}, "Base.1.15.ActionParameterUnknown"},
	} {
		st, hdr, body := c.do("POST", rfSimpleUpdateTarget, tc.body, nil)
		if st != http.StatusBadRequest || rfMessageID(body) != tc.id || hdr.Get("Location") != "" {
			t.Errorf("%v: %d %s, want 400 %s", tc.body, st, rfMessageID(body), tc.id)
		}
	}
	if len(rig.Updates()) != 0 {
		t.Fatalf("refused requests started tasks: %v", rig.Updates())
	}
}

// TestRedfishRigUpdateFaults: a task that ends in Exception with its messages (and installs
// nothing), an image the BMC cannot fetch, and a BMC that restarts in the middle of the update,
// answering 503 and forgetting its sessions, before the task completes.
func TestRedfishRigUpdateFaults(t *testing.T) {
	rig := StartRedfish(t, RedfishOptions{UpdateTime: 200 * time.Millisecond})
	rig.AddFirmwareImage("http://i/bios-1.7.0.bin", "BIOS", "1.7.0")
	rig.AddFirmwareImage("http://i/bmc-25.bin", "BMC", "25.01.03")
	c := newRFClient(t, rig)
	c.basic = [2]string{rig.Username, rig.Password}

	rig.FailNextUpdate("Installation of image 'bios-1.7.0.bin' to 'BIOS' failed: signature check failed.")
	_, hdr, _ := c.do("POST", rfSimpleUpdateTarget, map[string]any{"ImageURI": "http://i/bios-1.7.0.bin"}, nil)
	_, states, last := pollMonitor(t, c, hdr.Get("Location"))
	if strings.Join(states, ",") != "Running,Exception" || !strings.Contains(taskMessages(last), "signature check failed") {
		t.Fatalf("failed task: states %v, last %v", states, last)
	}
	if v := inventoryVersion(t, c, "BIOS"); v != "1.6.7" {
		t.Fatalf("a failed update installed %q", v)
	}

	_, hdr, _ = c.do("POST", rfSimpleUpdateTarget, map[string]any{"ImageURI": "http://i/missing.bin"}, nil)
	_, states, last = pollMonitor(t, c, hdr.Get("Location"))
	if strings.Join(states, ",") != "Running,Exception" || !strings.Contains(taskMessages(last), "Transfer of image 'http://i/missing.bin'") {
		t.Fatalf("unknown image: states %v, last %v", states, last)
	}

	// A session token dies with the restart; basic credentials keep working after it.
	login := newRFClient(t, rig)
	st, lh, _ := login.do("POST", "/redfish/v1/SessionService/Sessions", map[string]any{"UserName": rig.Username, "Password": rig.Password}, nil)
	if st != http.StatusCreated {
		t.Fatalf("login: %d", st)
	}
	login.token = lh.Get("X-Auth-Token")
	rig.RebootDuringNextUpdate(500 * time.Millisecond)
	start := time.Now()
	_, hdr, _ = c.do("POST", rfSimpleUpdateTarget, map[string]any{"ImageURI": "http://i/bmc-25.bin"}, nil)
	statuses, states, _ := pollMonitor(t, c, hdr.Get("Location"))
	took := time.Since(start)
	n503 := 0
	for _, s := range statuses {
		if s == http.StatusServiceUnavailable {
			n503++
		}
	}
	// Halfway (100 ms), 500 ms of 503, then the other half: 700 ms in all.
	if n503 == 0 || strings.Join(states, ",") != "Running,Completed" || took < 700*time.Millisecond {
		t.Fatalf("reboot during update: statuses %v, states %v, took %s", statuses, states, took)
	}
	if v := inventoryVersion(t, c, "BMC"); v != "25.01.03" {
		t.Fatalf("BMC after the restart: %q", v)
	}
	if st, _, _ := login.do("GET", "/redfish/v1/Systems/1", nil, nil); st != http.StatusUnauthorized {
		t.Fatalf("a session from before the restart still works: %d", st)
	}
}
