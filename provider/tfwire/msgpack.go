package tfwire

import (
	"encoding/binary"
	"fmt"
)

// nullAttr returns the MessagePack object b (a request's config, as Terraform encodes it: a
// map of attribute name to value) with the value of its attribute name (an `as_built` floor) replaced by nil, without
// decoding anything else. A data source's validation has no use for an `as_built` floor, and
// decoding one with tftypes costs as much as the read that does use it (a floor of 2,048 HCAs:
// 0.12 s a request). Values are stepped over by their headers, as the MessagePack specification
// lays them out (https://github.com/msgpack/msgpack/blob/master/spec.md). ok is false when b is
// not a map or holds no `as_built`; then b is returned as it is.
func nullAttr(b []byte, name string) (out []byte, ok bool, err error) {
	if len(b) == 0 || !isMapCode(b[0]) {
		return b, false, nil
	}
	n, i, err := mapHeader(b, 0)
	if err != nil {
		return nil, false, err
	}
	for k := 0; k < n; k++ {
		key, next, err := readStr(b, i)
		if err != nil {
			return nil, false, err
		}
		end, err := skipValue(b, next)
		if err != nil {
			return nil, false, err
		}
		if key == name {
			out = make([]byte, 0, len(b)-(end-next)+1)
			out = append(append(append(out, b[:next]...), 0xc0), b[end:]...)
			return out, true, nil
		}
		i = end
	}
	return b, false, nil
}

// replaceAttrs returns the MessagePack object b (a map of attribute name to value) with the values
// of the attributes named in put replaced by put's bytes, every other byte copied as it is. Each
// attribute of put must be in b.
func replaceAttrs(b []byte, put map[string][]byte) ([]byte, error) {
	n, i, err := mapHeader(b, 0)
	if err != nil {
		return nil, err
	}
	size := len(b)
	for _, v := range put {
		size += len(v)
	}
	out := append(make([]byte, 0, size), b[:i]...)
	found := 0
	for k := 0; k < n; k++ {
		key, next, err := readStr(b, i)
		if err != nil {
			return nil, err
		}
		end, err := skipValue(b, next)
		if err != nil {
			return nil, err
		}
		if v, ok := put[key]; ok {
			out = append(append(out, b[i:next]...), v...)
			found++
		} else {
			out = append(out, b[i:end]...)
		}
		i = end
	}
	if found != len(put) {
		return nil, fmt.Errorf("msgpack: the object has %d of the %d attributes to replace", found, len(put))
	}
	return append(out, b[i:]...), nil
}

func need(b []byte, i, n int) error {
	if n < 0 || i+n > len(b) {
		return fmt.Errorf("msgpack: %d bytes wanted at offset %d of %d", n, i, len(b))
	}
	return nil
}

// uintAt reads the big-endian unsigned integer of width w (1, 2, 4 or 8 bytes) at i.
func uintAt(b []byte, i, w int) (uint64, error) {
	if err := need(b, i, w); err != nil {
		return 0, err
	}
	switch w {
	case 1:
		return uint64(b[i]), nil
	case 2:
		return uint64(binary.BigEndian.Uint16(b[i:])), nil
	case 4:
		return uint64(binary.BigEndian.Uint32(b[i:])), nil
	}
	return binary.BigEndian.Uint64(b[i:]), nil
}

// lenAt reads a length of width w (1, 2 or 4 bytes) at i.
func lenAt(b []byte, i, w int) (int, error) {
	n, err := uintAt(b, i, w)
	return int(n), err
}

func isMapCode(c byte) bool { return c >= 0x80 && c <= 0x8f || c == 0xde || c == 0xdf }

func isArrayCode(c byte) bool { return c >= 0x90 && c <= 0x9f || c == 0xdc || c == 0xdd }

func isStrCode(c byte) bool { return c >= 0xa0 && c <= 0xbf || c >= 0xd9 && c <= 0xdb }

// mapHeader reads a map header at i: its number of pairs and where the first key starts.
func mapHeader(b []byte, i int) (int, int, error) {
	return header(b, i, 0x80, 0xde, "map")
}

// arrayHeader reads an array header at i: its number of elements and where the first starts.
func arrayHeader(b []byte, i int) (int, int, error) {
	return header(b, i, 0x90, 0xdc, "array")
}

// header reads the header of a map or an array at i: its fix form (fix, the count in the low
// four bits) or its 16- and 32-bit forms (code16, code16+1).
func header(b []byte, i int, fix, code16 byte, kind string) (int, int, error) {
	if err := need(b, i, 1); err != nil {
		return 0, 0, err
	}
	switch c := b[i]; {
	case c >= fix && c <= fix+0x0f:
		return int(c & 0x0f), i + 1, nil
	case c == code16:
		n, err := lenAt(b, i+1, 2)
		return n, i + 3, err
	case c == code16+1:
		n, err := lenAt(b, i+1, 4)
		return n, i + 5, err
	}
	return 0, 0, fmt.Errorf("msgpack: no %s at offset %d", kind, i)
}

// readStr reads a string at i and returns it with the offset after it.
func readStr(b []byte, i int) (string, int, error) {
	if err := need(b, i, 1); err != nil {
		return "", 0, err
	}
	var n, at int
	var err error
	switch c := b[i]; {
	case c >= 0xa0 && c <= 0xbf:
		n, at = int(c&0x1f), i+1
	case c == 0xd9:
		n, err = lenAt(b, i+1, 1)
		at = i + 2
	case c == 0xda:
		n, err = lenAt(b, i+1, 2)
		at = i + 3
	case c == 0xdb:
		n, err = lenAt(b, i+1, 4)
		at = i + 5
	default:
		return "", 0, fmt.Errorf("msgpack: no string at offset %d", i)
	}
	if err == nil {
		err = need(b, at, n)
	}
	if err != nil {
		return "", 0, err
	}
	return string(b[at : at+n]), at + n, nil
}

// skipValue returns the offset after the value at i, nested arrays and maps included; it counts
// the values still to step over rather than recursing, so no depth of nesting can exhaust it.
func skipValue(b []byte, i int) (int, error) {
	for pending := 1; pending > 0; pending-- {
		if err := need(b, i, 1); err != nil {
			return 0, err
		}
		c := b[i]
		var size, lenWidth, n int // bytes after the code; or a length of lenWidth bytes, then n more
		switch {
		case c <= 0x7f, c >= 0xe0, c == 0xc0, c == 0xc2, c == 0xc3: // fixint, nil, bool
		case c >= 0x80 && c <= 0x8f: // fixmap
			pending += 2 * int(c&0x0f)
		case c >= 0x90 && c <= 0x9f: // fixarray
			pending += int(c & 0x0f)
		case c >= 0xa0 && c <= 0xbf: // fixstr
			size = int(c & 0x1f)
		case c == 0xc4, c == 0xd9: // bin8, str8
			lenWidth = 1
		case c == 0xc5, c == 0xda: // bin16, str16
			lenWidth = 2
		case c == 0xc6, c == 0xdb: // bin32, str32
			lenWidth = 4
		case c == 0xc7, c == 0xc8, c == 0xc9: // ext8, ext16, ext32: length, type byte, data
			lenWidth, size = 1<<(c-0xc7), 1
		case c == 0xca: // float32
			size = 4
		case c == 0xcb: // float64
			size = 8
		case c >= 0xcc && c <= 0xcf: // uint8..uint64
			size = 1 << (c - 0xcc)
		case c >= 0xd0 && c <= 0xd3: // int8..int64
			size = 1 << (c - 0xd0)
		case c >= 0xd4 && c <= 0xd8: // fixext1..16: type byte, data
			size = 1 + 1<<(c-0xd4)
		case c == 0xdc, c == 0xde: // array16, map16
			m, err := lenAt(b, i+1, 2)
			if err != nil {
				return 0, err
			}
			pending += m * (1 + int(c-0xdc)/2)
			size = 2
		case c == 0xdd, c == 0xdf: // array32, map32
			m, err := lenAt(b, i+1, 4)
			if err != nil {
				return 0, err
			}
			pending += m * (1 + int(c-0xdd)/2)
			size = 4
		default: // 0xc1, never used
			return 0, fmt.Errorf("msgpack: invalid code 0x%x at offset %d", c, i)
		}
		if lenWidth > 0 {
			var err error
			if n, err = lenAt(b, i+1, lenWidth); err != nil {
				return 0, err
			}
		}
		i += 1 + lenWidth + size + n
		if err := need(b, i, 0); err != nil {
			return 0, err
		}
	}
	return i, nil
}
