package catalog

import (
	"fmt"
	"log/slog"
)

// Redacted is what every formatting path of a Value prints instead of the value.
const Redacted = "[REDACTED]"

// Value is one catalog value. It cannot be printed: String, GoString, Format
// (every verb, %#v and %+v included), MarshalJSON, MarshalText and LogValue all
// return the redaction marker, so a stray fmt.Print, json.Marshal or slog call
// leaks nothing.
//
// The plaintext sits behind a pointer to a non-struct type: fmt prints such
// pointers as addresses at every depth and for every verb (a pointer to a
// struct would be printed as &{...} by a verb that is bad for pointers, such
// as %s on a struct holding a Value in an unexported field), so even
// reflection-based printing shows no value bytes.
//
// Parse stores the values of a block in one string: a Value holds a pointer
// to it and the value's position (n == 0: the whole string), so a large
// catalog needs no string header per value.
type Value struct {
	p      *valueData
	off, n uint32
}

// valueData must not be a struct, array, slice or map: see Value.
type valueData string

// NewValue wraps s.
func NewValue(s string) Value {
	d := valueData(s)
	return Value{p: &d}
}

// blockValue returns the value d[off:off+n] of a block; n > 0.
func blockValue(d *valueData, off, n int) Value {
	return Value{p: d, off: uint32(off), n: uint32(n)}
}

// reveal returns the plaintext. It is unexported on purpose: only the
// compiler in this package reads values.
func (v Value) reveal() string {
	if v.p == nil {
		return ""
	}
	if v.n == 0 {
		return string(*v.p)
	}
	return string(*v.p)[v.off : v.off+v.n]
}

// IsZero reports whether v holds no value.
func (v Value) IsZero() bool { return v.p == nil }

// Len returns the length of the value in bytes. Lengths are not secret enough
// to hide and lint messages use them.
func (v Value) Len() int { return len(v.reveal()) }

func (Value) String() string   { return Redacted }
func (Value) GoString() string { return Redacted }

// Format implements fmt.Formatter for every verb.
func (Value) Format(f fmt.State, _ rune) { _, _ = f.Write([]byte(Redacted)) }

func (Value) MarshalJSON() ([]byte, error) { return []byte(`"` + Redacted + `"`), nil }
func (Value) MarshalText() ([]byte, error) { return []byte(Redacted), nil }

// LogValue implements slog.LogValuer.
func (Value) LogValue() slog.Value { return slog.StringValue(Redacted) }
