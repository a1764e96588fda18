package acp

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"

	"github.com/acpkit/acpkit/internal/jsonscan"
	"github.com/acpkit/acpkit/internal/wire"
)

// ID is a JSON-RPC request id, kept byte-exact as the peer sent it: 0, "1",
// 1e3 and integers beyond int64 are all echoed in a reply exactly as they
// arrived, never re-formatted.
//
// The zero ID is absent (a notification has none). An ID whose raw bytes are
// null is present and null: a request may carry "id": null, and error replies
// to unreadable messages use it. An ID marshals to its raw bytes, and an
// absent ID marshals to null, which is what a reply to an id-less message
// must carry.
//
// An ID returned by [Classify] aliases the line it was read from; call
// [ID.Clone] to keep it after the line's buffer is reused.
type ID struct {
	raw []byte
}

// NullID is the present, null id used in replies to messages whose id could
// not be read.
var NullID = ID{raw: []byte("null")}

// IntID returns the id for the integer n.
func IntID(n int64) ID { return ID{raw: strconv.AppendInt(nil, n, 10)} }

// StringID returns the id for the string s, JSON-quoted.
func StringID(s string) ID {
	raw, _ := json.Marshal(s) // a string always marshals
	return ID{raw: raw}
}

// errBadID is returned by ParseID for anything but a JSON string, number or null.
var errBadID = errors.New("acp: id must be a JSON string, number or null")

// ParseID returns the id whose JSON encoding is raw: a string in valid
// UTF-8, a number or null, with no surrounding white space. The ID keeps
// its own copy of raw.
func ParseID(raw []byte) (ID, error) {
	// Valid allows white space around the value; an id must not carry any,
	// since replies splice its bytes into the line as they are. Valid also
	// checks UTF-8, as Classify does, so that no reply echoes an id into a
	// line the peer must reject.
	if len(raw) == 0 || isSpace(raw[len(raw)-1]) || !jsonscan.Valid(raw) {
		return ID{}, errBadID
	}
	switch c := raw[0]; {
	case c == '"', c == '-', c >= '0' && c <= '9', bytes.Equal(raw, []byte("null")):
		return ID{raw: bytes.Clone(raw)}, nil
	}
	return ID{}, errBadID
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// IsAbsent reports whether the message had no id at all (a notification).
func (id ID) IsAbsent() bool { return len(id.raw) == 0 }

// IsNull reports whether the id is present and JSON null.
func (id ID) IsNull() bool { return bytes.Equal(id.raw, []byte("null")) }

// Raw returns the id's JSON encoding as sent, or nil when absent. The slice
// aliases the ID's storage: do not modify it.
func (id ID) Raw() []byte { return id.raw }

// String returns the id's JSON encoding, or "" when absent. It is suitable
// as a map key.
func (id ID) String() string { return string(id.raw) }

// Equal reports whether two ids have the same bytes. 1 and 1.0 are different
// ids: JSON-RPC peers echo ids, they do not compare them numerically.
func (id ID) Equal(other ID) bool { return bytes.Equal(id.raw, other.raw) }

// Clone returns an ID that owns a copy of the bytes.
func (id ID) Clone() ID { return ID{raw: bytes.Clone(id.raw)} }

// MarshalJSON returns the raw bytes, or null when the id is absent.
func (id ID) MarshalJSON() ([]byte, error) {
	if len(id.raw) == 0 {
		return []byte("null"), nil
	}
	return id.raw, nil
}

// readID reads a JSON-RPC id member: a string, a number or null. A null
// id is present (a request may carry one), so unlike other members null is
// not read as absent.
func readID(f *wire.Fields, key string, m wire.Mode, dst *ID) bool {
	raw, ok := f.Lookup(key)
	switch {
	case f.Err() != nil:
		return false
	case !ok:
		if m&wire.Required != 0 {
			f.Fail(key, "is required")
		}
		return false
	}
	id, err := ParseID(raw)
	if err != nil {
		f.Invalid(key, m, "must be a string, a number or null")
		return false
	}
	*dst = id
	return true
}

// appendID writes id, null when absent. Its bytes need no check: ParseID,
// IntID and StringID make only valid ones.
func appendID(e *wire.Encoder, id ID) {
	if id.IsAbsent() {
		e.Null()
		return
	}
	e.Valid(id.raw)
}

// UnmarshalJSON keeps a copy of data if it is a valid id.
func (id *ID) UnmarshalJSON(data []byte) error {
	parsed, err := ParseID(wire.TrimSpace(data))
	if err != nil {
		return err
	}
	*id = parsed
	return nil
}
