package claudetest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/acpkit/acpkit/internal/lines"
	"github.com/acpkit/acpkit/internal/members"
	"github.com/tidwall/gjson"
)

// Directions of a [Record].
const (
	DirIn          = "in"           // a line the client wrote to the CLI
	DirOut         = "out"          // a line the CLI wrote to the client
	DirStdinClosed = "stdin_closed" // the client closed the CLI's input
	DirExit        = "exit"         // the CLI exited
)

// Record is one record of a two-direction transcript (a .ndjson file), the
// format in which ../shared/captures records the CLI in streaming-input
// mode: every line in both directions, in order, then the end of the
// client's input and the CLI's exit.
//
//	{"dir":"in","t":3,"line":"{\"type\":\"control_request\",…}"}
//	{"dir":"out","t":375,"line":"{\"type\":\"control_response\",…}"}
//	{"dir":"stdin_closed","t":586}
//	{"dir":"exit","t":644,"code":0,"signal":null}
type Record struct {
	// Dir is [DirIn], [DirOut], [DirStdinClosed] or [DirExit].
	Dir string `json:"dir"`
	// T is when the record happened, in milliseconds since the CLI
	// started.
	T int64 `json:"t"`
	// Line is the line without its newline, for DirIn and DirOut.
	Line string `json:"line,omitempty"`
	// Code is the exit status, for DirExit; Signal the signal that ended
	// the process, "" when none.
	Code   int    `json:"code,omitempty"`
	Signal string `json:"signal,omitempty"`
}

// ErrTranscript is wrapped by the errors of [ReadRecords] for a transcript
// that is not in the format.
var ErrTranscript = errors.New("claudetest: malformed transcript")

// ReadRecords reads a two-direction transcript: one JSON [Record] per
// line, blank lines skipped. It fails on a record that is not one, names a
// direction it does not know, or lacks the line its direction needs; the
// error says which line (1-based, blank lines counted) and wraps
// [ErrTranscript].
func ReadRecords(r io.Reader) ([]Record, error) {
	lr := lines.NewReader(r, 1<<30)
	var out []Record
	for n := 1; ; n++ {
		line, err := lr.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("claudetest: reading transcript: %w", err)
		}
		var rec Record
		dec := json.NewDecoder(bytes.NewReader(line))
		if err := dec.Decode(&rec); err != nil {
			return nil, fmt.Errorf("%w: record %d: %v", ErrTranscript, len(out)+1, err)
		}
		switch rec.Dir {
		case DirIn, DirOut:
			if rec.Line == "" || !json.Valid([]byte(rec.Line)) {
				return nil, fmt.Errorf("%w: record %d: %s record without a JSON line", ErrTranscript, len(out)+1, rec.Dir)
			}
		case DirStdinClosed, DirExit:
		default:
			return nil, fmt.Errorf("%w: record %d: unknown dir %q", ErrTranscript, len(out)+1, rec.Dir)
		}
		out = append(out, rec)
	}
}

// Kind describes a line of the streaming-input protocol by its type and,
// for control messages, the subtype that matters: "user",
// "control_request/interrupt", "control_response/success",
// "control_cancel_request". It is what the fake CLI compares, loosely, with
// the line a transcript expects. A line that is not a JSON object gives
// "".
func Kind(line []byte) string {
	line = bytes.TrimSpace(line)
	if len(line) == 0 || line[0] != '{' || !json.Valid(line) {
		return ""
	}
	root := gjson.ParseBytes(line)
	typ := members.Get(root, "type")
	if typ.Type != gjson.String {
		return "(no type)"
	}
	var sub gjson.Result
	switch typ.Str {
	case "control_request":
		sub = members.Get(members.Get(root, "request"), "subtype")
	case "control_response":
		sub = members.Get(members.Get(root, "response"), "subtype")
	default:
		return typ.Str
	}
	if sub.Type != gjson.String {
		return typ.Str + "/(no subtype)"
	}
	return typ.Str + "/" + sub.Str
}

// requestIDs returns the id a control_request line carries (its
// "request_id"), and the one a control_response answers (its
// "response.request_id"); "" for what the line does not hold.
func requestIDs(line []byte) (request, answers string) {
	root := gjson.ParseBytes(line)
	switch members.Get(root, "type").Str {
	case "control_request":
		return members.Get(root, "request_id").Str, ""
	case "control_response":
		return "", members.Get(members.Get(root, "response"), "request_id").Str
	}
	return "", ""
}

// rewriteAnswer returns line, a control_response, answering id instead of
// the request id it holds; line itself when it is anything else.
func rewriteAnswer(line []byte, id string) []byte {
	root := gjson.ParseBytes(line)
	if members.Get(root, "type").Str != "control_response" {
		return line
	}
	old := members.Get(members.Get(root, "response"), "request_id")
	if old.Type != gjson.String || old.Index <= 0 || old.Index+len(old.Raw) > len(line) ||
		string(line[old.Index:old.Index+len(old.Raw)]) != old.Raw {
		return line
	}
	out := make([]byte, 0, len(line)+len(id))
	out = append(out, line[:old.Index]...)
	quoted, _ := json.Marshal(id) // a string always marshals
	out = append(out, quoted...)
	return append(out, line[old.Index+len(old.Raw):]...)
}
