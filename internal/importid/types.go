package importid

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
)

// Rack is a gpucluster_rack's import ID: NAME,row=R,position=P[,units=U][,power_kw=K].
type Rack struct {
	Name                 string
	Row, Position, Units int64
	PowerKW              *float64 // nil: no budget
}

// ParseRack reads a rack's import ID; an omitted units is fabric.DefaultRackUnits.
func ParseRack(id string) (Rack, error) {
	name, kv, err := Parse(id, "row", "position", "units", "power_kw")
	if err == nil && (kv["row"] == "" || kv["position"] == "") {
		err = fmt.Errorf("import ID %q needs row and position: NAME,row=R,position=P[,units=U][,power_kw=K]", id)
	}
	if err != nil {
		return Rack{}, err
	}
	r := Rack{Name: name, Units: fabric.DefaultRackUnits}
	for _, f := range []struct {
		key string
		dst *int64
	}{{"row", &r.Row}, {"position", &r.Position}, {"units", &r.Units}} {
		n, set, err := Int(kv, f.key)
		if err != nil {
			return Rack{}, err
		}
		if set {
			*f.dst = n
		}
	}
	if f, set, err := Float(kv, "power_kw"); err != nil {
		return Rack{}, err
	} else if set {
		r.PowerKW = &f
	}
	return r, nil
}

// PartitionSyntax is how a gpucluster_partition's import ID is written: members as in
// partitions.conf but separated by ';' (fabric.ParseMembers), because ',' separates attributes.
const PartitionSyntax = "NAME,pkey=0x....,members=MEMBER[=full|limited];...[,ipoib=true][,mtu=4096][,rate=400][,sl=N]"

// PartitionUFMSyntax is the import ID of a PKey UFM holds: the partition's name in Terraform and
// the P_Key, whose members, flags and QoS are read from the provider's UFM.
const PartitionUFMSyntax = "NAME,ufm=0x0101 (a PKey the provider's ufm holds, 0x0001-0x7ffe)"

// partitionSyntaxes is what an ID that is neither form is told.
const partitionSyntaxes = PartitionSyntax + "; or, where UFM runs the subnet manager, " + PartitionUFMSyntax

// Partition is a gpucluster_partition's import ID.
type Partition struct {
	Name, PKey string
	// UFM is the P_Key of the ufm= form (0x0001-0x7ffe), 0 for the other form: everything else
	// is then read from UFM.
	UFM       uint16
	Members   []fabric.Member
	IPoIB     bool
	MTU, Rate *int64 // nil: OpenSM's default
	SL        int64
}

// ParsePartition reads a partition's import ID. The errors are each a problem of the ID: one
// that keeps the rest from being read alone, else every bad number and the member list's error.
func ParsePartition(id string) (Partition, []error) {
	name, kv, err := Parse(id, "pkey", "members", "ipoib", "mtu", "rate", "sl", "ufm")
	if err == nil {
		if v, ok := kv["ufm"]; ok {
			return partitionUFM(id, name, v, len(kv))
		}
		err = Require(id, kv, partitionSyntaxes, "pkey", "members")
	}
	if err != nil {
		return Partition{}, []error{err}
	}
	p := Partition{Name: name, PKey: kv["pkey"]}
	if v, ok := kv["ipoib"]; ok {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return Partition{}, []error{fmt.Errorf("ipoib=%q is not true or false", v)}
		}
		p.IPoIB = b
	}
	var errs []error
	for _, f := range []struct {
		key string
		dst **int64
	}{{"mtu", &p.MTU}, {"rate", &p.Rate}} {
		if n, set, err := Int(kv, f.key); err != nil {
			errs = append(errs, err)
		} else if set {
			*f.dst = &n
		}
	}
	if n, _, err := Int(kv, "sl"); err != nil {
		errs = append(errs, err)
	} else {
		p.SL = n
	}
	if p.Members, err = fabric.ParseMembers(kv["members"]); err != nil {
		errs = append(errs, errors.New(err.Error()+": "+PartitionSyntax))
	}
	return p, errs
}

// partitionUFM reads the ufm= form: the name and a P_Key alone.
func partitionUFM(id, name, pkey string, keys int) (Partition, []error) {
	if keys > 1 {
		return Partition{}, []error{fmt.Errorf("import ID %q: ufm= reads the PKey's members, flags and QoS from UFM and takes no other attribute: %s", id, PartitionUFMSyntax)}
	}
	t := strings.ToLower(pkey)
	v, err := strconv.ParseUint(strings.TrimPrefix(t, "0x"), 16, 16)
	if !strings.HasPrefix(t, "0x") || len(t) < 3 || len(t) > 6 || err != nil {
		return Partition{}, []error{fmt.Errorf("import ID %q: ufm=%q is not a P_Key, 0x and 1 to 4 hex digits: %s", id, pkey, PartitionUFMSyntax)}
	}
	if v == 0 || v >= 0x7fff {
		return Partition{}, []error{fmt.Errorf("import ID %q: ufm=%s is out of range: P_Keys are 0x0001-0x7ffe (0x7fff is UFM's management PKey, never imported; membership is per member, never the 0x8000 bit): %s", id, pkey, PartitionUFMSyntax)}
	}
	return Partition{Name: name, UFM: uint16(v)}, nil
}

// cableSyntax is how a gpucluster_cable's import ID is written.
const cableSyntax = "DEVICE:PORT <-> DEVICE:PORT[,kind=K][,length_m=M], e.g. 'leaf01:33 <-> gpu001/mlx5_0:1,kind=fiber-mm,length_m=5'"

// Cable is a gpucluster_cable's import ID: its label (fabric.CableLabel), then the optional kind
// and length.
type Cable struct {
	A, B    fabric.End
	Kind    *string  // nil: the fabric picks it
	LengthM *float64 // nil: the fabric estimates it
}

// ParseCable reads a cable's import ID.
func ParseCable(id string) (Cable, error) {
	label, kv, err := Parse(id, "kind", "length_m")
	var c Cable
	if err == nil {
		c.A, c.B, err = fabric.ParseCableLabel(label)
	}
	if err == nil {
		// The same ends as an identity's: a port cabled to itself is no cable.
		if msg := fabric.CheckCableEnds(c.A, c.B); msg != "" {
			err = errors.New(msg)
		}
	}
	if err != nil {
		return Cable{}, fmt.Errorf("%s; write it as %s", err, cableSyntax)
	}
	c.Kind = String(kv, "kind")
	if f, set, err := Float(kv, "length_m"); err != nil {
		return Cable{}, err
	} else if set {
		c.LengthM = &f
	}
	return c, nil
}

// FloorCable is the import of a cable on the floor (an import by identity, a list result): its
// ends as the floor has them, and a kind and a length only where discovery gave one; otherwise
// the fabric picks and estimates them, as for an ID that leaves them out, so that the floor's
// cables and imported IDs make the same resource.
func FloorCable(c *fabric.Cable) Cable {
	out := Cable{A: c.A, B: c.B}
	if c.Kind != "" {
		kind := c.Kind
		out.Kind = &kind
	}
	if c.LengthM > 0 {
		length := c.LengthM
		out.LengthM = &length
	}
	return out
}

// CableIdentity reads the label of a cable's import identity: a label alone, whose two ends
// must be able to carry a cable (fabric.CheckCableEnds).
func CableIdentity(label string) (a, b fabric.End, err error) {
	a, b, err = fabric.ParseCableLabel(label)
	if err == nil {
		if msg := fabric.CheckCableEnds(a, b); msg != "" {
			err = errors.New(msg)
		}
	}
	if err != nil {
		return a, b, fmt.Errorf("%w; a cable's label is \"<a.device>:<a.port> <-> <b.device>:<b.port>\", e.g. \"leaf01:33 <-> gpu001/mlx5_0:1\"", err)
	}
	return a, b, nil
}
