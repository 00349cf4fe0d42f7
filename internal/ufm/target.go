package ufm

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/listed"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/partition"
)

// Kind is the partition target kind this package registers.
const Kind = "ufm"

func init() {
	partition.Register(Kind, "NVIDIA UFM runs the subnet manager: partitions go through UFM's PKey REST API", open)
}

// open is the kind's partition.Opener: settings is a Config.
func open(settings any) (partition.Target, error) {
	cfg, ok := settings.(Config)
	if !ok {
		return nil, fmt.Errorf("the ufm partition target takes a ufm.Config, not %T", settings)
	}
	c, err := New(cfg)
	if err != nil {
		return nil, err
	}
	return Target{Client: c}, nil
}

// Target applies partitions through one UFM.
type Target struct{ Client *Client }

var _ partition.Target = Target{}

// Kind implements partition.Target.
func (Target) Kind() string { return Kind }

// GUIDString writes a port GUID as UFM takes it: 16 lower-case hex digits, no 0x, no colons
// (ib-kubernetes GUIDToString).
func GUIDString(g partition.GUID) string { return fmt.Sprintf("%016x", uint64(g)) }

// Check refuses what UFM cannot hold as declared: a P_Key outside 0x0001-0x7ffe (UFM takes
// "between 0x0-0x7fff exclusive", and 0x7fff is its management PKey), OpenSM's port keywords
// (UFM takes GUIDs only), an MTU or rate with no UFM code, an SL outside 0-15.
func Check(parts []partition.Partition) error {
	var errs []error
	seen := map[uint16]bool{}
	for _, p := range parts {
		if p.PKey == 0 || p.PKey >= partition.DefaultPKey {
			errs = append(errs, fmt.Errorf("partition %q: P_Key 0x%04x is out of range: UFM takes 0x0001-0x7ffe (0x7fff is its management PKey; membership is per member, never the 0x8000 bit)", p.Name, p.PKey))
		}
		if seen[p.PKey] {
			errs = append(errs, fmt.Errorf("partition %q: P_Key 0x%04x is declared twice", p.Name, p.PKey))
		}
		seen[p.PKey] = true
		if p.MTU != 0 && p.MTU != 2048 && p.MTU != 4096 {
			errs = append(errs, fmt.Errorf("partition %q: MTU %d cannot be set through UFM, whose mtu_limit is \"2k or 4k\": use 2048 or 4096", p.Name, p.MTU))
		}
		if p.RateGbps != 0 && !rateAllowed(p.RateGbps) {
			errs = append(errs, fmt.Errorf("partition %q: rate %g Gb/s is not one UFM's rate_limit takes: use one of %s", p.Name, p.RateGbps, rateText()))
		}
		if p.SL < 0 || p.SL > 15 {
			errs = append(errs, fmt.Errorf("partition %q: SL %d must be 0-15", p.Name, p.SL))
		}
		for _, m := range p.Members {
			switch {
			case m.Keyword != "":
				errs = append(errs, fmt.Errorf("partition %q: member %s is an OpenSM keyword; UFM takes port GUIDs only", p.Name, m.Keyword))
			case m.GUID == 0:
				errs = append(errs, fmt.Errorf("partition %q: a member has no port GUID", p.Name))
			case m.Membership != partition.Full && m.Membership != partition.Limited:
				errs = append(errs, fmt.Errorf("partition %q: membership %q of %s must be full or limited", p.Name, m.Membership, m.GUID))
			}
		}
	}
	// One per partition and member, and a fabric may hold thousands: the first few, then a count.
	lines := make([]string, len(errs))
	for i, e := range errs {
		lines[i] = e.Error()
	}
	if len(lines) == 0 {
		return nil
	}
	return errors.New(listed.First(lines, listed.Few, "\n"))
}

// Defaults UFM gives a PKey created without QoS: the management PKey's values in NVIDIA's
// captured answers (mtu_limit 2, rate_limit 2.5, service_level 0; ncx-infra-controller-core).
// mtu_limit is in KiB, "2k or 4k" (ncx-infra-controller-core update_partition_qos comment; the
// REST API guide's example sends 2), so 2 is 2048 bytes and 4 is 4096, not the IBTA MTU code.
const (
	defaultMTULimit = 2
	defaultRate     = 2.5
)

// Rates is every rate_limit UFM takes, in Gb/s (ncx-infra-controller-core ufmclient
// update_partition_qos comment: "2.5, 10, 30, 5, 20, 40, 60, 80, 120, 14, 56, 112, 168, 25, 100,
// 200, 300"), ascending.
var Rates = []float64{2.5, 5, 10, 14, 20, 25, 30, 40, 56, 60, 80, 100, 112, 120, 168, 200, 300}

func rateAllowed(r float64) bool {
	for _, v := range Rates {
		if v == r {
			return true
		}
	}
	return false
}

func rateText() string {
	s := make([]string, len(Rates))
	for i, r := range Rates {
		s[i] = strconv.FormatFloat(r, 'g', -1, 64)
	}
	return strings.Join(s, ", ")
}

// Normalize writes a declared partition the way it reads back from UFM: an MTU or rate equal
// to UFM's default (2048 bytes, 2.5 Gb/s) is the default (0), members sorted by GUID, index0
// only with members. Planned and read-back values then compare equal when UFM holds what was
// declared.
func Normalize(p partition.Partition) partition.Partition {
	if p.MTU == defaultMTULimit*1024 {
		p.MTU = 0
	}
	if p.RateGbps == defaultRate {
		p.RateGbps = 0
	}
	p.Index0 = p.Index0 && len(p.Members) > 0
	p.Members = append([]partition.Member(nil), p.Members...)
	sort.Slice(p.Members, func(i, j int) bool { return p.Members[i].GUID < p.Members[j].GUID })
	return p
}

func qosOf(p partition.Partition) QoS {
	q := QoS{MTULimit: defaultMTULimit, RateLimit: defaultRate, ServiceLevel: p.SL}
	if p.MTU != 0 {
		q.MTULimit = p.MTU / 1024
	}
	if p.RateGbps != 0 {
		q.RateLimit = p.RateGbps
	}
	return q
}

// fromUFM converts a PKey UFM reports into the model. MTU and rate at UFM's defaults read back
// as 0 (the subnet manager's default), as they are declared; index0 is true when every member
// has it.
func fromUFM(k uint16, u PKey) (partition.Partition, error) {
	p := partition.Partition{Name: u.Partition, PKey: k, IPoIB: u.IPoIB}
	if u.QoS != nil {
		if u.QoS.MTULimit != defaultMTULimit {
			p.MTU = u.QoS.MTULimit * 1024
		}
		if u.QoS.RateLimit != defaultRate {
			p.RateGbps = u.QoS.RateLimit
		}
		p.SL = u.QoS.ServiceLevel
	}
	p.Index0 = len(u.GUIDs) > 0
	for _, g := range u.GUIDs {
		v, err := partition.ParseGUID(g.GUID)
		if err != nil {
			return p, fmt.Errorf("UFM PKey 0x%04x: %w", k, err)
		}
		m := g.Membership
		if m == "" {
			m = partition.Full // the API's default membership
		}
		p.Members = append(p.Members, partition.Member{GUID: v, Membership: m})
		p.Index0 = p.Index0 && g.Index0
	}
	sort.Slice(p.Members, func(i, j int) bool { return p.Members[i].GUID < p.Members[j].GUID })
	return p, nil
}

// Read implements partition.Target: GET resources/pkeys?guids_data=true (and ?qos_conf=true).
func (t Target) Read(ctx context.Context) ([]partition.Partition, error) {
	all, err := t.read(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]partition.Partition, 0, len(all))
	for k, p := range all {
		if k != partition.DefaultPKey {
			out = append(out, p)
		}
	}
	partition.Sort(out)
	return out, nil
}

func (t Target) read(ctx context.Context) (map[uint16]partition.Partition, error) {
	raw, err := t.Client.PKeys(ctx)
	if err != nil {
		return nil, err
	}
	out := map[uint16]partition.Partition{}
	for k, u := range raw {
		p, err := fromUFM(k, u)
		if err != nil {
			return nil, err
		}
		out[k] = p
	}
	return out, nil
}

// Apply implements partition.Target. Each step is computed from a fresh read of UFM, so a batch
// that failed half way is finished by running Apply again with the same arguments: nothing is
// done twice that would change the result. Order per PKey: create it if absent, add missing or
// changed members (one POST per membership), set QoS, then remove members no longer declared;
// last, owned PKeys no longer declared are deleted. Whatever happens, the result is read back.
func (t Target) Apply(ctx context.Context, want []partition.Partition, owned []uint16) ([]partition.Partition, error) {
	if err := Check(want); err != nil {
		return nil, err
	}
	err := t.apply(ctx, want, owned)
	keep := map[uint16]bool{}
	for _, p := range want {
		keep[p.PKey] = true
	}
	for _, k := range owned {
		keep[k] = true
	}
	got, rerr := t.read(ctx)
	if rerr != nil {
		return nil, errors.Join(err, fmt.Errorf("reading back what UFM holds: %w", rerr))
	}
	var out []partition.Partition
	for k, p := range got {
		if keep[k] && k != partition.DefaultPKey {
			out = append(out, p)
		}
	}
	partition.Sort(out)
	return out, err
}

func (t Target) apply(ctx context.Context, want []partition.Partition, owned []uint16) error {
	have, err := t.read(ctx)
	if err != nil {
		return err
	}
	c := t.Client
	wanted := map[uint16]bool{}
	for _, p := range want {
		wanted[p.PKey] = true
		cur, exists := have[p.PKey]
		q := qosOf(p)
		if !exists {
			if err := c.CreatePKey(ctx, p.PKey, p.Name, p.IPoIB, p.Index0, q); err != nil {
				return fmt.Errorf("creating partition %q (P_Key 0x%04x): %w", p.Name, p.PKey, err)
			}
			cur = partition.Partition{Name: p.Name, PKey: p.PKey, IPoIB: p.IPoIB, Index0: p.Index0, MTU: p.MTU, RateGbps: p.RateGbps, SL: p.SL}
		}
		flagsChanged := cur.IPoIB != p.IPoIB || (len(cur.Members) > 0 && cur.Index0 != p.Index0)
		curBy := map[partition.GUID]string{}
		for _, m := range cur.Members {
			curBy[m.GUID] = m.Membership
		}
		add := map[string][]string{}
		wantBy := map[partition.GUID]bool{}
		for _, m := range p.Members {
			wantBy[m.GUID] = true
			if flagsChanged || curBy[m.GUID] != m.Membership {
				add[m.Membership] = append(add[m.Membership], GUIDString(m.GUID))
			}
		}
		for _, ms := range []string{partition.Full, partition.Limited} {
			if len(add[ms]) == 0 {
				continue
			}
			if err := c.AddGUIDs(ctx, p.PKey, add[ms], ms, p.IPoIB, p.Index0); err != nil {
				return fmt.Errorf("adding %d %s member(s) to partition %q (P_Key 0x%04x): %w", len(add[ms]), ms, p.Name, p.PKey, err)
			}
		}
		if exists && qosOf(cur) != q {
			if err := c.SetQoS(ctx, p.PKey, q); err != nil {
				return fmt.Errorf("setting the QoS of partition %q (P_Key 0x%04x): %w", p.Name, p.PKey, err)
			}
		}
		var drop []string
		for _, m := range cur.Members {
			if !wantBy[m.GUID] {
				drop = append(drop, GUIDString(m.GUID))
			}
		}
		if len(drop) > 0 {
			if err := c.RemoveGUIDs(ctx, p.PKey, drop); err != nil {
				return fmt.Errorf("removing %d member(s) from partition %q (P_Key 0x%04x): %w", len(drop), p.Name, p.PKey, err)
			}
		}
		if len(p.Members) == 0 && len(drop) > 0 {
			// UFM may remove a PKey with its last member (NVIDIA's mock UFM says so): declared
			// empty, it is made again.
			if err := c.CreatePKey(ctx, p.PKey, p.Name, p.IPoIB, p.Index0, q); err != nil && !isStatus(err, 400) {
				return fmt.Errorf("re-creating empty partition %q (P_Key 0x%04x): %w", p.Name, p.PKey, err)
			}
		}
	}
	var gone []uint16
	for _, k := range owned {
		if !wanted[k] {
			gone = append(gone, k)
		}
	}
	return t.Remove(ctx, gone)
}

func isStatus(err error, code int) bool {
	var se *StatusError
	return errors.As(err, &se) && se.Status == code
}

// Remove implements partition.Target: DELETE resources/pkeys/<pkey> for each; never 0x7fff.
func (t Target) Remove(ctx context.Context, pkeys []uint16) error {
	var bad []string
	for _, k := range pkeys {
		if k == partition.DefaultPKey || k == 0 || k > partition.DefaultPKey {
			bad = append(bad, fmt.Sprintf("0x%04x", k))
		}
	}
	if len(bad) > 0 {
		return fmt.Errorf("refusing to remove P_Key %s: 0x7fff is UFM's management partition and P_Keys are 0x0001-0x7ffe", strings.Join(bad, ", "))
	}
	for _, k := range pkeys {
		if err := t.Client.DeletePKey(ctx, k); err != nil {
			return fmt.Errorf("removing P_Key 0x%04x: %w", k, err)
		}
	}
	return nil
}
