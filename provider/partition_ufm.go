package provider

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/partition"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/ufm"
)

// gpucluster_partition and UFM: where UFM runs the subnet manager, an existing PKey is imported
// (by ID NAME,ufm=0x0101, or by identity { name } with a name the list gives) and listed
// (list_partition.go) as UFM holds it: its pkey, its members by port GUID with their membership,
// ipoib, and the QoS (mtu, rate, sl). The state then says what UFM holds, so the plan that
// imports it shows no change when the configuration says the same, and the difference otherwise.
// The partition is applied by the fabric that lists it (subnet_manager.kind = "ufm"), which from
// that apply on owns the PKey: its refresh shows drift in `ufm_partitions`, its destroy removes
// it. 0x7fff, UFM's management PKey, is never listed nor imported: the provider neither creates
// nor removes it, and ufm.Check refuses it as a declared partition.

// ufmHeld reads the PKeys the provider's UFM holds, 0x7fff left out, sorted by P_Key.
func ufmHeld(ctx context.Context, data *Data) ([]partition.Partition, error) {
	if data == nil || data.UFM == nil {
		return nil, fmt.Errorf("the provider has no ufm: set the provider's ufm = { url, username and password, or token } to import or list UFM's PKeys")
	}
	c, err := ufm.New(*data.UFM)
	if err != nil {
		return nil, err
	}
	return ufm.Target{Client: c}.Read(ctx)
}

// ufmPartitionModel is a gpucluster_partition holding what UFM holds for p, under name. A value
// the resource cannot say is an error naming it (a rate that is not a whole IBTA path rate); one
// it leaves out is a warning (index0, which gpucluster_partition has no attribute for).
func ufmPartitionModel(name string, p partition.Partition, diags *diag.Diagnostics) partitionModel {
	members := make([]attr.Value, len(p.Members))
	for i, m := range p.Members {
		members[i] = types.ObjectValueMust(memberAttrTypes, map[string]attr.Value{
			"hca": types.StringNull(), "guid": types.StringValue(m.GUID.String()), "membership": types.StringValue(m.Membership),
		})
	}
	n := types.StringValue(name)
	m := partitionModel{ID: n, Name: n, PKey: types.StringValue(fmt.Sprintf("0x%04x", p.PKey)),
		Members: types.ListValueMust(memberObjType, members),
		IPoIB:   types.BoolValue(p.IPoIB), MTU: types.Int64Null(), Rate: types.Int64Null(), SL: types.Int64Value(int64(p.SL))}
	if p.MTU != 0 {
		m.MTU = types.Int64Value(int64(p.MTU))
	}
	if p.RateGbps != 0 {
		if r := int(p.RateGbps); float64(r) != p.RateGbps || fabric.CheckRate(r) != "" {
			diags.AddError("UFM's rate cannot be imported",
				fmt.Sprintf("UFM holds P_Key 0x%04x with rate_limit %g Gb/s, which gpucluster_partition's rate cannot say (one of %s). "+
					"Set the PKey's rate on UFM to one of those (or to UFM's default, 2.5) and import again.", p.PKey, p.RateGbps, fabric.PartitionRateList()))
		} else {
			m.Rate = types.Int64Value(int64(r))
		}
	}
	if p.Index0 {
		diags.AddWarning("UFM's index0 is not kept",
			fmt.Sprintf("UFM holds P_Key 0x%04x with index0 = true; gpucluster_partition has no index0, so the fabric that applies "+
				"this partition sets it to false on its members.", p.PKey))
	}
	if len(p.Members) == 0 {
		diags.AddWarning("UFM's PKey has no member",
			fmt.Sprintf("UFM holds P_Key 0x%04x with no GUID; gpucluster_partition needs at least one member, so the configuration must add one.", p.PKey))
	}
	return m
}

// heldText lists held PKeys for a message: "0x0101 (tenant_a), 0x0102 (pkey_0x0102)", at most 20.
func heldText(held []partition.Partition) string {
	if len(held) == 0 {
		return "none but the management PKey 0x7fff"
	}
	names := ufm.ImportNames(held)
	var s []string
	for _, p := range held {
		s = append(s, fmt.Sprintf("0x%04x (%s)", p.PKey, names[p.PKey]))
	}
	sort.Strings(s)
	if len(s) > 20 {
		s = append(s[:20], fmt.Sprintf("and %d more", len(s)-20))
	}
	return strings.Join(s, ", ")
}

// importUFMByKey is the state of an import by ID NAME,ufm=PKEY.
func importUFMByKey(ctx context.Context, data *Data, name string, k uint16, diags *diag.Diagnostics) (partitionModel, bool) {
	if msg := fabric.CheckPartitionName(name); msg != "" {
		diags.AddError("Invalid import ID", fmt.Sprintf("name %q: %s", name, msg))
		return partitionModel{}, false
	}
	held, err := ufmHeld(ctx, data)
	if err != nil {
		diags.AddError("Cannot read UFM's PKeys", err.Error())
		return partitionModel{}, false
	}
	for _, p := range held {
		if p.PKey == k {
			return ufmPartitionModel(name, p, diags), !diags.HasError()
		}
	}
	diags.AddError("No such PKey on UFM", fmt.Sprintf("UFM holds no P_Key 0x%04x. It holds: %s.", k, heldText(held)))
	return partitionModel{}, false
}

// importUFMByName is the state of an import by identity { name } when the provider has a ufm:
// the PKey listed under that name (ufm.ImportNames). found is false when UFM holds none, and the
// import then takes the name alone as for an OpenSM partition, with a warning.
func importUFMByName(ctx context.Context, data *Data, name string, diags *diag.Diagnostics) (m partitionModel, found bool) {
	held, err := ufmHeld(ctx, data)
	if err != nil {
		diags.AddError("Cannot read UFM's PKeys", err.Error())
		return partitionModel{}, false
	}
	p, ok := ufm.Find(held, name)
	if !ok {
		diags.AddWarning("No PKey of that name on UFM",
			fmt.Sprintf("UFM lists no PKey as %q (it holds: %s), so the import takes the name alone and the first apply records the rest, "+
				"as for an OpenSM partition. To import a UFM PKey, use the name `terraform query` lists, or the import ID %q.",
				name, heldText(held), name+",ufm=0x...."))
		return partitionModel{}, false
	}
	return ufmPartitionModel(name, p, diags), true
}
