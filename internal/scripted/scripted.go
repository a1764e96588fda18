// Package scripted plays the client side of a recorded two-direction
// Claude Code transcript (see claudetest.Record) through a claude.Session:
// for each line the recorded client wrote, it makes the Session call that
// writes the same line. The tests of package claude compare what the
// Session writes with the recording, and the tests of examples/fakeclaude
// drive the fake CLI with it.
package scripted

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/acpkit/acpkit/claude"
	"github.com/acpkit/acpkit/claude/claudetest"
	"github.com/acpkit/acpkit/internal/lines"
)

// ErrNotSent is wrapped by the error of [Client.Act] for a recorded line
// that the Session refuses to write: a probe outside the protocol, such as
// a line of an unknown type or an answer to a request never made.
var ErrNotSent = errors.New("scripted: the session does not write this line")

// Client drives a claude.Session along a transcript. It is not safe for
// concurrent use.
type Client struct {
	Session  *claude.Session
	requests map[string]claude.Request // the CLI's requests seen, by id
	ids      map[string]string         // recorded request ids -> the Session's
}

// New returns a Client for s.
func New(s *claude.Session) *Client {
	return &Client{Session: s, requests: map[string]claude.Request{}, ids: map[string]string{}}
}

// Observe records the CLI's requests among events, which [Client.Act]
// answers when the transcript does.
func (c *Client) Observe(events []claude.Event) {
	for _, e := range events {
		if r, ok := e.(claude.Request); ok {
			c.requests[r.RequestID()] = r
		}
	}
}

// ID returns the Session's id for the recorded request id, or recorded
// itself when the Session made no such request.
func (c *Client) ID(recorded string) string {
	if id, ok := c.ids[recorded]; ok {
		return id
	}
	return recorded
}

// Expected returns the recorded client line as the Session should write
// it: with the Session's request id, newline added.
func (c *Client) Expected(recorded []byte) []byte {
	return append(c.Rewrite(recorded), '\n')
}

// Rewrite returns a recorded line of either direction with the request id
// it carries, as a control_request or as the answer of a control_response,
// replaced by the Session's id for it. Other lines come back unchanged.
func (c *Client) Rewrite(recorded []byte) []byte {
	var m struct {
		Type      string `json:"type"`
		RequestID string `json:"request_id"`
		Response  struct {
			RequestID string `json:"request_id"`
		} `json:"response"`
	}
	if json.Unmarshal(recorded, &m) != nil {
		return recorded
	}
	id := m.RequestID
	if m.Type == "control_response" {
		id = m.Response.RequestID
	}
	if id == "" || c.ID(id) == id {
		return bytes.Clone(recorded)
	}
	old, _ := json.Marshal(id)
	ours, _ := json.Marshal(c.ID(id))
	return bytes.Replace(recorded, old, ours, 1)
}

type line struct {
	Type      string          `json:"type"`
	RequestID string          `json:"request_id"`
	Message   json.RawMessage `json:"message"`
	Request   json.RawMessage `json:"request"`
	Response  json.RawMessage `json:"response"`
}

// Act makes the Session call that writes the recorded client line.
func (c *Client) Act(recorded []byte) error {
	var l line
	if err := json.Unmarshal(recorded, &l); err != nil {
		return fmt.Errorf("scripted: recorded line: %w", err)
	}
	switch l.Type {
	case "user":
		return c.user(l.Message)
	case "control_request":
		return c.request(l.RequestID, l.Request)
	case "control_response":
		return c.response(l.Response)
	}
	return fmt.Errorf("%w: a line of type %q", ErrNotSent, l.Type)
}

func (c *Client) user(message json.RawMessage) error {
	var m struct {
		Content json.RawMessage `json:"content"`
	}
	if err := json.Unmarshal(message, &m); err != nil {
		return err
	}
	var text string
	if json.Unmarshal(m.Content, &text) == nil {
		return c.Session.SendText(text)
	}
	var raws []json.RawMessage
	if err := json.Unmarshal(m.Content, &raws); err != nil {
		return err
	}
	blocks := make([]claude.Block, len(raws))
	for i, raw := range raws {
		var b struct {
			Type   string `json:"type"`
			Text   string `json:"text"`
			Source struct {
				Type      string `json:"type"`
				MediaType string `json:"media_type"`
				Data      string `json:"data"`
			} `json:"source"`
		}
		if err := json.Unmarshal(raw, &b); err != nil {
			return err
		}
		switch {
		case b.Type == "text":
			blocks[i] = claude.TextBlock(b.Text)
		case b.Type == "image" && b.Source.Type == "base64":
			data, err := base64.StdEncoding.DecodeString(b.Source.Data)
			if err != nil {
				return err
			}
			blocks[i] = claude.ImageBlock(b.Source.MediaType, data)
		default:
			blocks[i] = claude.RawBlock(raw)
		}
	}
	return c.Session.Send(blocks...)
}

func (c *Client) request(recordedID string, request json.RawMessage) error {
	var params map[string]json.RawMessage
	if err := json.Unmarshal(request, &params); err != nil {
		return err
	}
	var subtype string
	if err := json.Unmarshal(params["subtype"], &subtype); err != nil {
		return err
	}
	var id string
	var err error
	switch subtype {
	case "initialize":
		id, err = c.Session.Initialize(claude.InitializeOptions{})
	case "interrupt":
		id, err = c.Session.Interrupt()
	case "set_permission_mode":
		var mode string
		if err := json.Unmarshal(params["mode"], &mode); err != nil {
			return err
		}
		id, err = c.Session.SetPermissionMode(mode)
	case "set_model":
		var model *string
		if err := json.Unmarshal(params["model"], &model); err != nil {
			return err
		}
		id, err = c.Session.SetModel(deref(model))
	default:
		delete(params, "subtype")
		var rest json.RawMessage
		if len(params) > 0 {
			if rest, err = json.Marshal(params); err != nil {
				return err
			}
		}
		id, err = c.Session.Call(subtype, rest)
	}
	if err != nil {
		return err
	}
	c.ids[recordedID] = id
	return nil
}

func (c *Client) response(response json.RawMessage) error {
	var resp struct {
		Subtype   string          `json:"subtype"`
		RequestID string          `json:"request_id"`
		Response  json.RawMessage `json:"response"`
		Error     string          `json:"error"`
	}
	if err := json.Unmarshal(response, &resp); err != nil {
		return err
	}
	r, ok := c.requests[resp.RequestID]
	if !ok {
		r = claude.UnknownRequest{ID: resp.RequestID}
	}
	var err error
	switch p, isPermission := r.(claude.PermissionRequest); {
	case resp.Subtype == "error":
		err = c.Session.RespondError(r, resp.Error)
	case isPermission:
		err = c.permission(p, resp.Response)
	default:
		err = c.Session.Respond(r, resp.Response)
	}
	if errors.Is(err, claude.ErrNotPending) || errors.Is(err, claude.ErrCancelled) {
		return fmt.Errorf("%w: %w", ErrNotSent, err)
	}
	return err
}

func (c *Client) permission(r claude.PermissionRequest, answer json.RawMessage) error {
	var a struct {
		Behavior     string          `json:"behavior"`
		UpdatedInput json.RawMessage `json:"updatedInput"`
		Message      string          `json:"message"`
		Interrupt    bool            `json:"interrupt"`
	}
	if err := json.Unmarshal(answer, &a); err != nil {
		return err
	}
	switch a.Behavior {
	case "allow":
		input := a.UpdatedInput
		if bytes.Equal(input, r.Input) {
			input = nil // the Session sends the CLI's own input
		}
		return c.Session.Allow(r, input)
	case "deny":
		return c.Session.Deny(r, a.Message, a.Interrupt)
	}
	return c.Session.Respond(r, answer)
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// Play is the client of a whole transcript, in step with it: for each
// record, it writes what the recorded client wrote (through the Session,
// or raw for a line the Session refuses to write), reads the line the CLI
// should have written and checks that it is the recorded one, ids
// rewritten, or closes stdin. It returns the events read, and the first
// difference as an error. stdin must be the writer the Session writes to.
// After the records, it reads stdout to its end, which must hold nothing
// more.
func (c *Client) Play(records []claudetest.Record, stdin io.WriteCloser, stdout io.Reader) ([]claude.Event, error) {
	lr := lines.NewReader(stdout, 64<<20)
	var all []claude.Event
	for i, rec := range records {
		switch rec.Dir {
		case claudetest.DirIn:
			err := c.Act([]byte(rec.Line))
			if errors.Is(err, ErrNotSent) {
				_, err = io.WriteString(stdin, rec.Line+"\n")
			}
			if err != nil {
				return all, fmt.Errorf("record %d: %w", i+1, err)
			}
		case claudetest.DirOut:
			line, err := lr.Next()
			if err != nil {
				return all, fmt.Errorf("record %d: reading the CLI: %w", i+1, err)
			}
			if want := c.Rewrite([]byte(rec.Line)); !bytes.Equal(line, want) {
				return all, fmt.Errorf("record %d: the CLI wrote\n%s\nwant\n%s", i+1, line, want)
			}
			events, err := c.Session.Feed(line, nil)
			if err != nil {
				return all, fmt.Errorf("record %d: %w", i+1, err)
			}
			c.Observe(events)
			all = append(all, events...)
		case claudetest.DirStdinClosed:
			if err := stdin.Close(); err != nil {
				return all, err
			}
		}
	}
	if line, err := lr.Next(); err != io.EOF {
		return all, fmt.Errorf("after the transcript, the CLI wrote %q (%v)", line, err)
	}
	return all, nil
}
