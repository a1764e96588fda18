package claude

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/acpkit/acpkit/internal/jsonscan"
	"github.com/acpkit/acpkit/internal/members"
	"github.com/tidwall/gjson"
)

// ErrInvalidInput is wrapped by the error of a [Session] method asked to
// write a line the CLI would not accept: an empty message, a raw value that
// is not a JSON object, a block without a type. Nothing is written then,
// since one malformed line on its standard input kills the CLI.
var ErrInvalidInput = errors.New("claude: invalid input for the CLI")

// Block is one content block of a user turn ([Session.Send]). Make one with
// [TextBlock], [ImageBlock] or [RawBlock]; the zero Block is invalid.
type Block struct {
	kind      blockKind
	text      string
	mediaType string
	data      []byte
	raw       json.RawMessage
}

type blockKind uint8

const (
	blockInvalid blockKind = iota
	blockText
	blockImage
	blockRaw
)

// TextBlock returns a text block. The text must not be empty.
func TextBlock(text string) Block { return Block{kind: blockText, text: text} }

// ImageBlock returns an image block holding data, an image of the given
// media type ("image/png", "image/jpeg", "image/gif", "image/webp"). It is
// sent base64-encoded, as the API expects. data is not copied: do not
// change it until the turn has been sent.
func ImageBlock(mediaType string, data []byte) Block {
	return Block{kind: blockImage, mediaType: mediaType, data: data}
}

// RawBlock returns a block sent exactly as given (compacted): any content
// block the API accepts, such as a document. It must be a JSON object with
// a string "type" member. raw is not copied.
func RawBlock(raw json.RawMessage) Block { return Block{kind: blockRaw, raw: raw} }

// marshal returns the block's JSON.
func (b Block) marshal() (json.RawMessage, error) {
	switch b.kind {
	case blockText:
		if b.text == "" {
			return nil, fmt.Errorf("%w: empty text block", ErrInvalidInput)
		}
		return marshalLine(struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}{"text", b.text})
	case blockImage:
		if b.mediaType == "" || len(b.data) == 0 {
			return nil, fmt.Errorf("%w: image block without a media type or data", ErrInvalidInput)
		}
		type source struct {
			Type      string `json:"type"`
			MediaType string `json:"media_type"`
			Data      string `json:"data"`
		}
		return marshalLine(struct {
			Type   string `json:"type"`
			Source source `json:"source"`
		}{"image", source{"base64", b.mediaType, base64.StdEncoding.EncodeToString(b.data)}})
	case blockRaw:
		obj, err := object(b.raw, "block")
		if err != nil {
			return nil, err
		}
		if !hasStringMember(obj, "type") {
			return nil, fmt.Errorf("%w: block without a string \"type\"", ErrInvalidInput)
		}
		return obj, nil
	}
	return nil, fmt.Errorf("%w: zero Block", ErrInvalidInput)
}

// object validates raw as one JSON object and returns it compacted, so that
// no newline inside it can split the line.
func object(raw json.RawMessage, what string) (json.RawMessage, error) {
	raw = bytes.TrimSpace(raw)
	if err := jsonscan.Check(raw); err != nil {
		return nil, fmt.Errorf("%w: %s is not JSON: %v", ErrInvalidInput, what, err)
	}
	if len(raw) == 0 || raw[0] != '{' {
		return nil, fmt.Errorf("%w: %s is not a JSON object", ErrInvalidInput, what)
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrInvalidInput, what, err)
	}
	return buf.Bytes(), nil
}

// hasStringMember reports whether a valid object's member called name
// (its last occurrence) is a string.
func hasStringMember(obj []byte, name string) bool {
	return members.Get(gjson.Parse(members.View(obj)), name).Type == gjson.String
}

// marshalLine encodes v as JSON without a trailing newline and without
// escaping <, > and &, which the CLI reads as they are.
func marshalLine(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidInput, err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte{'\n'}), nil
}

// userLine is the line of a user turn, members in the order the official
// SDKs write them. The CLI ignores the session id sent and uses its own.
type userLine struct {
	Type            string      `json:"type"`
	Message         userMessage `json:"message"`
	ParentToolUseID *string     `json:"parent_tool_use_id"`
	SessionID       string      `json:"session_id"`
}

type userMessage struct {
	Role    string `json:"role"`
	Content any    `json:"content"` // a string, or []json.RawMessage
}

func userText(text string) ([]byte, error) {
	if text == "" {
		return nil, fmt.Errorf("%w: empty message", ErrInvalidInput)
	}
	return finish(userLine{Type: "user", Message: userMessage{"user", text}, SessionID: "default"})
}

func userBlocks(blocks []Block) ([]byte, error) {
	if len(blocks) == 0 {
		return nil, fmt.Errorf("%w: a turn without blocks", ErrInvalidInput)
	}
	content := make([]json.RawMessage, len(blocks))
	for i, b := range blocks {
		raw, err := b.marshal()
		if err != nil {
			return nil, fmt.Errorf("block %d: %w", i, err)
		}
		content[i] = raw
	}
	return finish(userLine{Type: "user", Message: userMessage{"user", content}, SessionID: "default"})
}

// controlRequestLine is a control request the client sends.
type controlRequestLine struct {
	Type      string          `json:"type"`
	RequestID string          `json:"request_id"`
	Request   json.RawMessage `json:"request"`
}

// requestBody builds the "request" object: subtype first, then the members
// of params (an object, or nil for none).
func requestBody(subtype string, params json.RawMessage) (json.RawMessage, error) {
	if subtype == "" {
		return nil, fmt.Errorf("%w: empty control request subtype", ErrInvalidInput)
	}
	head, err := marshalLine(struct {
		Subtype string `json:"subtype"`
	}{subtype})
	if err != nil {
		return nil, err
	}
	if params == nil {
		return head, nil
	}
	obj, err := object(params, "request parameters")
	if err != nil {
		return nil, err
	}
	if members.Get(gjson.Parse(members.View(obj)), "subtype").Exists() {
		return nil, fmt.Errorf("%w: request parameters hold a subtype", ErrInvalidInput)
	}
	return joinObjects(head, obj), nil
}

// joinObjects returns the JSON object of a's members, then b's: a and b
// are compact objects, and a is not empty.
func joinObjects(a, b json.RawMessage) json.RawMessage {
	if len(b) == 2 { // {}
		return a
	}
	// {"subtype":"x"} + ,"a":1} from {"a":1}
	return append(append(a[:len(a)-1:len(a)-1], ','), b[1:]...)
}

func requestLine(id string, body json.RawMessage) ([]byte, error) {
	return finish(controlRequestLine{Type: "control_request", RequestID: id, Request: body})
}

// controlResponseLine answers a request of the CLI.
type controlResponseLine struct {
	Type     string `json:"type"`
	Response any    `json:"response"`
}

type successBody struct {
	Subtype   string          `json:"subtype"`
	RequestID string          `json:"request_id"`
	Response  json.RawMessage `json:"response"`
}

type errorBody struct {
	Subtype   string `json:"subtype"`
	RequestID string `json:"request_id"`
	Error     string `json:"error"`
}

func successLine(id string, payload json.RawMessage) ([]byte, error) {
	obj, err := object(payload, "response payload")
	if err != nil {
		return nil, err
	}
	return finish(controlResponseLine{"control_response", successBody{"success", id, obj}})
}

func errorLine(id, message string) ([]byte, error) {
	if message == "" {
		return nil, fmt.Errorf("%w: empty error message", ErrInvalidInput)
	}
	return finish(controlResponseLine{"control_response", errorBody{"error", id, message}})
}

// finish encodes a whole line, checks it once more as the CLI will read
// it, and ends it with a newline.
func finish(v any) ([]byte, error) {
	line, err := marshalLine(v)
	if err != nil {
		return nil, err
	}
	if err := jsonscan.Check(line); err != nil || bytes.IndexByte(line, '\n') >= 0 {
		return nil, fmt.Errorf("%w: encoded line is not one JSON object", ErrInvalidInput) // unreachable
	}
	return append(line, '\n'), nil
}
