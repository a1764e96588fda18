package acp

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strconv"

	"github.com/acpkit/acpkit/internal/jsonscan"
	"github.com/acpkit/acpkit/internal/wire"
)

// This file holds the encoder of the hot messages (session/update chunks,
// session/prompt and its result), which write their JSON straight into
// the line, without encoding/json. What they write is what encoding/json
// would write (but that a json.RawMessage is only compacted, as
// encodeLine copies one, not re-escaped), and is valid by construction:
// its strings are escaped here, from Go strings, so the line needs no
// second pass to be checked. Only bytes the package did not encode itself
// (a json.RawMessage such as _meta, the output of a MarshalJSON,
// encoding/json's encoding of a type that holds either) make the encoder
// mark the value unchecked, and encodeLine then validates the whole value
// as it validates any other.

// jsonAppender is implemented by the package's types that encode
// themselves with an encoder.
type jsonAppender interface {
	appendJSON(e *encoder) error
}

// encoder appends one JSON value to b.
type encoder struct {
	b []byte
	// unchecked is set once b holds bytes this file did not write:
	// encoding/json validates what MarshalJSON methods and raw messages
	// produce, but not their UTF-8 nor their depth.
	unchecked bool
}

// marshalAppender is MarshalJSON for a type that has an appendJSON.
func marshalAppender(a jsonAppender) ([]byte, error) {
	var e encoder
	if err := a.appendJSON(&e); err != nil {
		return nil, err
	}
	return e.b, nil
}

// member appends the name of a member that is not the object's first,
// with its comma and colon; name needs no escaping.
func (e *encoder) member(name string) {
	e.b = append(e.b, ',', '"')
	e.b = append(e.b, name...)
	e.b = append(e.b, '"', ':')
}

// str appends s as a JSON string.
func (e *encoder) str(s string) {
	e.b = wire.AppendString(e.b, s)
}

// optStr appends the member name:s unless s is "" (omitempty).
func (e *encoder) optStr(name, s string) {
	if s != "" {
		e.member(name)
		e.str(s)
	}
}

// raw appends raw, one JSON value from the caller, without the white
// space outside its strings.
func (e *encoder) raw(raw []byte) error {
	e.unchecked = true
	if !bytes.ContainsAny(raw, " \t\r\n") {
		e.b = append(e.b, raw...)
		return nil
	}
	if !jsonscan.Valid(raw) {
		return ErrNotJSON
	}
	e.b = wire.AppendCompact(e.b, raw)
	return nil
}

// meta appends the _meta member, unless raw is empty (omitempty).
func (e *encoder) meta(raw json.RawMessage) error {
	if len(raw) == 0 {
		return nil
	}
	e.member("_meta")
	return e.raw(raw)
}

// value appends v's encoding: with its appendJSON when it has one, and
// otherwise with its MarshalJSON or encoding/json, unchecked. A nil
// pointer is null, as encoding/json encodes it, not a call of its value
// methods, which would panic.
func (e *encoder) value(v any) error {
	if isNilPointer(v) {
		e.b = append(e.b, "null"...)
		return nil
	}
	if a, ok := v.(jsonAppender); ok {
		return a.appendJSON(e)
	}
	var enc []byte
	var err error
	if m, ok := v.(json.Marshaler); ok {
		enc, err = m.MarshalJSON()
	} else {
		enc, err = json.Marshal(v)
	}
	if err != nil {
		return err
	}
	return e.raw(enc)
}

// isNilPointer reports whether v is a nil pointer, whose value methods
// would panic: encoding/json encodes it as null.
func isNilPointer(v any) bool {
	rv := reflect.ValueOf(v)
	return rv.Kind() == reflect.Pointer && rv.IsNil()
}

// annotations appends the annotations member, unless a is nil.
func (e *encoder) annotations(a *Annotations) error {
	if a == nil {
		return nil
	}
	e.member("annotations")
	return e.value(a)
}

// tagged opens an object with its discriminator, key:tag.
func (e *encoder) tagged(key, tag string) {
	e.b = append(e.b, '{', '"')
	e.b = append(e.b, key...)
	e.b = append(e.b, '"', ':')
	e.str(tag)
}

// close ends an object.
func (e *encoder) close() { e.b = append(e.b, '}') }

func (c TextContent) appendJSON(e *encoder) error {
	e.tagged("type", c.contentType())
	e.member("text")
	e.str(c.Text)
	return e.blockTail(c.Annotations, c.Meta)
}

// blockTail appends the members that end every content block, and the
// block's closing brace.
func (e *encoder) blockTail(a *Annotations, meta json.RawMessage) error {
	if err := e.annotations(a); err != nil {
		return err
	}
	if err := e.meta(meta); err != nil {
		return err
	}
	e.close()
	return nil
}

func (c ImageContent) appendJSON(e *encoder) error {
	e.tagged("type", c.contentType())
	e.member("data")
	e.str(c.Data)
	e.member("mimeType")
	e.str(c.MimeType)
	e.optStr("uri", c.URI)
	return e.blockTail(c.Annotations, c.Meta)
}

func (c AudioContent) appendJSON(e *encoder) error {
	e.tagged("type", c.contentType())
	e.member("data")
	e.str(c.Data)
	e.member("mimeType")
	e.str(c.MimeType)
	return e.blockTail(c.Annotations, c.Meta)
}

func (c ResourceLink) appendJSON(e *encoder) error {
	e.tagged("type", c.contentType())
	e.member("uri")
	e.str(c.URI)
	e.member("name")
	e.str(c.Name)
	e.optStr("title", c.Title)
	e.optStr("description", c.Description)
	e.optStr("mimeType", c.MimeType)
	if c.Size != nil {
		e.member("size")
		e.b = strconv.AppendInt(e.b, *c.Size, 10)
	}
	return e.blockTail(c.Annotations, c.Meta)
}

func (c EmbeddedResource) appendJSON(e *encoder) error {
	e.tagged("type", c.contentType())
	e.member("resource")
	r := c.Resource
	e.b = append(e.b, `{"uri":`...)
	e.str(r.URI)
	e.optStr("mimeType", r.MimeType)
	if r.Text != nil {
		e.member("text")
		e.str(*r.Text)
	}
	if r.Blob != nil {
		e.member("blob")
		e.str(*r.Blob)
	}
	if err := e.meta(r.Meta); err != nil {
		return err
	}
	e.close()
	return e.blockTail(c.Annotations, c.Meta)
}

// appendJSON appends the chunk with "sessionUpdate":kind. A nil Content
// is sent as null, as encoding/json sends a nil interface.
func (c ContentChunk) appendJSON(e *encoder, kind string) error {
	e.tagged(updateTag, kind)
	e.member("content")
	if c.Content == nil {
		e.b = append(e.b, "null"...)
	} else if err := e.value(c.Content); err != nil {
		return err
	}
	e.optStr("messageId", c.MessageID)
	if err := e.meta(c.Meta); err != nil {
		return err
	}
	e.close()
	return nil
}

func (u UserMessageChunk) appendJSON(e *encoder) error {
	return ContentChunk(u).appendJSON(e, u.updateKind())
}

func (u AgentMessageChunk) appendJSON(e *encoder) error {
	return ContentChunk(u).appendJSON(e, u.updateKind())
}

func (u AgentThoughtChunk) appendJSON(e *encoder) error {
	return ContentChunk(u).appendJSON(e, u.updateKind())
}

// appendJSON encodes the notification for [MarshalNotification]; a nil
// Update is an error, since the schema requires it.
func (n SessionNotification) appendJSON(e *encoder) error {
	if n.Update == nil {
		return errNilUpdate
	}
	e.b = append(e.b, `{"sessionId":`...)
	e.str(n.SessionID)
	e.member("update")
	if err := e.value(n.Update); err != nil {
		return err
	}
	if err := e.meta(n.Meta); err != nil {
		return err
	}
	e.close()
	return nil
}

// appendJSON encodes the params; nil Prompt is sent as [], as
// [ContentBlocks.MarshalJSON] sends it.
func (p PromptParams) appendJSON(e *encoder) error {
	e.b = append(e.b, `{"sessionId":`...)
	e.str(p.SessionID)
	e.member("prompt")
	if err := p.Prompt.appendJSON(e); err != nil {
		return err
	}
	if err := e.meta(p.Meta); err != nil {
		return err
	}
	e.close()
	return nil
}

func (b ContentBlocks) appendJSON(e *encoder) error {
	e.b = append(e.b, '[')
	for i, block := range b {
		if i > 0 {
			e.b = append(e.b, ',')
		}
		if err := e.value(block); err != nil {
			return err
		}
	}
	e.b = append(e.b, ']')
	return nil
}

func (r PromptResult) appendJSON(e *encoder) error {
	e.b = append(e.b, `{"stopReason":`...)
	e.str(string(r.StopReason))
	if r.Usage != nil {
		e.member("usage")
		if err := e.value(r.Usage); err != nil {
			return err
		}
	}
	if err := e.meta(r.Meta); err != nil {
		return err
	}
	e.close()
	return nil
}
