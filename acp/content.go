package acp

import (
	"bytes"
	"encoding/json"
)

// ContentBlock is one piece of displayable content: in a prompt, in a
// message chunk, or in a tool call's output. It is one of [TextContent],
// [ImageContent], [AudioContent], [ResourceLink], [EmbeddedResource], or
// [UnknownContent] for a block type this package does not know. The set is
// closed: only package acp adds variants, so a type switch over them is
// complete.
//
// Each variant marshals with its "type" discriminator.
type ContentBlock interface {
	// contentType returns the block's "type" discriminator.
	contentType() string
}

// Role is the side of a conversation content is meant for.
type Role string

// The roles of [Annotations.Audience].
const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
)

// Annotations are optional hints telling a client how to use or display a
// content block.
type Annotations struct {
	// Audience lists who the content is for; empty means unspecified.
	Audience []Role `json:"audience,omitempty"`
	// Priority is the content's relative importance, 0 (least) to 1 (most);
	// nil means unspecified.
	Priority *float64 `json:"priority,omitempty"`
	// LastModified is an ISO 8601 timestamp; "" means unspecified.
	LastModified string          `json:"lastModified,omitempty"`
	Meta         json.RawMessage `json:"_meta,omitempty"`
}

// TextContent is text, which clients should render as Markdown. Every agent
// accepts it in prompts.
type TextContent struct {
	Text        string          `json:"text"`
	Annotations *Annotations    `json:"annotations,omitempty"`
	Meta        json.RawMessage `json:"_meta,omitempty"`
}

// ImageContent is an image. An agent accepts it in prompts only if it
// declared the image prompt capability.
type ImageContent struct {
	// Data is the base64-encoded image.
	Data     string `json:"data"`
	MimeType string `json:"mimeType"`
	// URI optionally names where the image came from.
	URI         string          `json:"uri,omitempty"`
	Annotations *Annotations    `json:"annotations,omitempty"`
	Meta        json.RawMessage `json:"_meta,omitempty"`
}

// AudioContent is audio. An agent accepts it in prompts only if it declared
// the audio prompt capability.
type AudioContent struct {
	// Data is the base64-encoded audio.
	Data        string          `json:"data"`
	MimeType    string          `json:"mimeType"`
	Annotations *Annotations    `json:"annotations,omitempty"`
	Meta        json.RawMessage `json:"_meta,omitempty"`
}

// ResourceLink refers to a resource the agent can read itself. Every agent
// accepts it in prompts.
type ResourceLink struct {
	URI         string `json:"uri"`
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	MimeType    string `json:"mimeType,omitempty"`
	// Size is the resource's size in bytes; nil means unknown.
	Size        *int64          `json:"size,omitempty"`
	Annotations *Annotations    `json:"annotations,omitempty"`
	Meta        json.RawMessage `json:"_meta,omitempty"`
}

// EmbeddedResource carries a resource's contents inline. An agent accepts
// it in prompts only if it declared the embeddedContext prompt capability.
type EmbeddedResource struct {
	Resource    ResourceContents `json:"resource"`
	Annotations *Annotations     `json:"annotations,omitempty"`
	Meta        json.RawMessage  `json:"_meta,omitempty"`
}

// ResourceContents is the contents of an embedded resource: text or, for
// binary data, a base64 blob. Exactly one of Text and Blob is set.
type ResourceContents struct {
	URI      string `json:"uri"`
	MimeType string `json:"mimeType,omitempty"`
	// Text is the contents of a text resource; nil for a blob.
	Text *string `json:"text,omitempty"`
	// Blob is the base64-encoded contents of a binary resource; nil for text.
	Blob *string         `json:"blob,omitempty"`
	Meta json.RawMessage `json:"_meta,omitempty"`
}

// UnknownContent is a content block whose type this package does not know,
// kept as received so it can be forwarded or inspected. Decoding one is
// never an error.
type UnknownContent struct {
	// Type is the block's "type" discriminator.
	Type string
	// Raw is the whole block as received, byte for byte.
	Raw json.RawMessage
}

func (TextContent) contentType() string      { return "text" }
func (ImageContent) contentType() string     { return "image" }
func (AudioContent) contentType() string     { return "audio" }
func (ResourceLink) contentType() string     { return "resource_link" }
func (EmbeddedResource) contentType() string { return "resource" }
func (u UnknownContent) contentType() string { return u.Type }

// MarshalJSON encodes the block with "type":"text".
func (c TextContent) MarshalJSON() ([]byte, error) { return marshalAppender(c) }

// MarshalJSON encodes the block with "type":"image".
func (c ImageContent) MarshalJSON() ([]byte, error) { return marshalAppender(c) }

// MarshalJSON encodes the block with "type":"audio".
func (c AudioContent) MarshalJSON() ([]byte, error) { return marshalAppender(c) }

// MarshalJSON encodes the block with "type":"resource_link".
func (c ResourceLink) MarshalJSON() ([]byte, error) { return marshalAppender(c) }

// MarshalJSON encodes the block with "type":"resource".
func (c EmbeddedResource) MarshalJSON() ([]byte, error) { return marshalAppender(c) }

// MarshalJSON returns Raw unchanged, or {"type":Type} when Raw is empty.
func (u UnknownContent) MarshalJSON() ([]byte, error) {
	if len(u.Raw) == 0 {
		return marshalTagged("type", u.Type, struct{}{})
	}
	return u.Raw, nil
}

// ContentBlocks is a list of content blocks, such as a prompt. It decodes
// each element into its variant; an unknown block type becomes an
// [UnknownContent], while a known type that breaks the schema is an error
// naming the element ("[1].text").
type ContentBlocks []ContentBlock

// MarshalJSON encodes the blocks as an array, [] when b is nil, since
// every member holding blocks is a required array.
func (b ContentBlocks) MarshalJSON() ([]byte, error) { return marshalAppender(b) }

// UnmarshalJSON decodes a JSON array of content blocks; null leaves b
// unchanged. A malformed block is an [*Error] with code
// [CodeInvalidParams] naming it, as from [DecodeParams].
func (b *ContentBlocks) UnmarshalJSON(data []byte) error {
	blocks, err := decodeBlockList(data, "", true)
	if err != nil {
		return invalidParams(err)
	}
	if blocks != nil {
		*b = blocks
	}
	return nil
}

// contentBlocks reads the array member key; it returns a non-nil slice when
// the member is present.
func (f *fields) contentBlocks(key string) ContentBlocks {
	if f.err != nil || !f.has(key) {
		return nil
	}
	blocks, err := decodeBlockList(f.get(key), f.sub(key), false)
	f.failWith(err)
	return blocks
}

// decodeBlockList decodes a JSON array of blocks; path names it in errors,
// and validate says whether raw still needs validating (see readValid).
// null yields nil, any array a non-nil slice.
func decodeBlockList(raw json.RawMessage, path string, validate bool) (ContentBlocks, error) {
	raw = trimSpace(raw)
	if string(raw) == "null" {
		return nil, nil
	}
	items := scanArray(raw, validate)
	if items == nil {
		return nil, &fieldError{path, "must be an array"}
	}
	out := make(ContentBlocks, 0, len(items))
	for i, item := range items {
		// Read with a relative path, built in full only for an error.
		c, err := contentBlockFrom(readValidObject(item, ""), item)
		if err != nil {
			return nil, underPath(err, indexPath(path, i))
		}
		out = append(out, c)
	}
	return out, nil
}

// contentBlock reads a required member holding one content block.
func (f *fields) contentBlock(key string, dst *ContentBlock) {
	if !f.require(key) {
		return
	}
	v := f.get(key)
	c, err := contentBlockFrom(readValidObject(v, ""), v)
	if err != nil {
		f.failWith(underPath(err, f.sub(key)))
	}
	*dst = c
}

// decodeContentBlock decodes one block; path names it in errors.
func decodeContentBlock(raw json.RawMessage, path string) (ContentBlock, error) {
	return contentBlockFrom(readObject(raw, path), raw)
}

// contentBlockFrom decodes the block f reads, whose bytes are raw.
func contentBlockFrom(f *fields, raw json.RawMessage) (ContentBlock, error) {
	var typ string
	f.tag("type", &typ)
	if f.err != nil {
		return nil, f.err
	}
	var block ContentBlock
	switch typ {
	case "text":
		var c TextContent
		f.str("text", &c.Text, true)
		f.annotations(&c.Annotations)
		f.meta(&c.Meta)
		block = c
	case "image":
		var c ImageContent
		f.str("data", &c.Data, true)
		f.str("mimeType", &c.MimeType, true)
		f.str("uri", &c.URI, false)
		f.annotations(&c.Annotations)
		f.meta(&c.Meta)
		block = c
	case "audio":
		var c AudioContent
		f.str("data", &c.Data, true)
		f.str("mimeType", &c.MimeType, true)
		f.annotations(&c.Annotations)
		f.meta(&c.Meta)
		block = c
	case "resource_link":
		var c ResourceLink
		f.str("uri", &c.URI, true)
		f.str("name", &c.Name, true)
		f.str("title", &c.Title, false)
		f.str("description", &c.Description, false)
		f.str("mimeType", &c.MimeType, false)
		if f.has("size") {
			var n int64
			f.value("size", &n, false)
			c.Size = &n
		}
		f.annotations(&c.Annotations)
		f.meta(&c.Meta)
		block = c
	case "resource":
		var c EmbeddedResource
		f.object("resource", true, func(r *fields) {
			r.str("uri", &c.Resource.URI, true)
			r.str("mimeType", &c.Resource.MimeType, false)
			r.optStr("text", &c.Resource.Text)
			r.optStr("blob", &c.Resource.Blob)
			if r.err == nil && c.Resource.Text == nil && c.Resource.Blob == nil {
				r.fail("text", "or \"blob\" is required")
			}
			r.meta(&c.Resource.Meta)
		})
		f.annotations(&c.Annotations)
		f.meta(&c.Meta)
		block = c
	default:
		return UnknownContent{Type: typ, Raw: bytes.Clone(raw)}, nil
	}
	if f.err != nil {
		return nil, f.err
	}
	return block, nil
}

// annotations reads the optional annotations member.
func (f *fields) annotations(dst **Annotations) {
	if f.err != nil || !f.has("annotations") {
		return
	}
	var a Annotations
	f.value("annotations", &a, false)
	*dst = &a
}

// marshalTagged encodes v, an object, with the member key:tag first. key is
// a constant of this package and needs no escaping.
func marshalTagged(key, tag string, v any) ([]byte, error) {
	body, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var e encoder
	e.b = make([]byte, 0, len(key)+len(tag)+len(body)+8)
	e.tagged(key, tag)
	if len(body) > 2 { // more than "{}"
		e.b = append(e.b, ',')
		return append(e.b, body[1:]...), nil
	}
	return append(e.b, '}'), nil
}
