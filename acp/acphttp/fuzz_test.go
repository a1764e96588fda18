package acphttp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/acpkit/acpkit/internal/lines"
	"github.com/google/go-cmp/cmp"
	"github.com/tidwall/gjson"
)

// FuzzSSE reads an event stream from a server, as a client does: it must
// never panic, never return more than the maximum, and give the data of
// every complete event as the standard's parser would, an event over the
// maximum as its length and head.
func FuzzSSE(f *testing.F) {
	for _, s := range []string{
		"data: {}\n\n",
		"data: a\ndata: b\n\n: comment\n\ndata:c\r\n\r\n",
		"\xef\xbb\xbfdata: x\r\rdata: y\n",
		"event: e\nid: 1\nretry: 5\ndata\n\n",
		"data: " + strings.Repeat("x", 100) + "\n\ndata: after\n\n",
		"data: " + strings.Repeat("x", 60) + "\ndata: " + strings.Repeat("y", 10) + "\n\n",
	} {
		f.Add([]byte(s), 3)
	}
	f.Fuzz(func(t *testing.T, stream []byte, chunk int) {
		const max = 64
		r := newSSEReader(&chunked{b: stream, n: chunk}, max)
		var got []string
		for {
			data, err := r.Next()
			if err == io.EOF {
				break
			}
			if tooLong, ok := err.(*lines.TooLongError); ok {
				if tooLong.Max != max {
					t.Fatalf("%v: max %d", tooLong, tooLong.Max)
				}
				got = append(got, fmt.Sprintf("too long: %d bytes, head %q", tooLong.Length, tooLong.Head))
				continue
			}
			if err != nil {
				t.Fatalf("Next: %v", err)
			}
			if len(data) > max {
				t.Fatalf("an event of %d bytes, more than %d", len(data), max)
			}
			got = append(got, string(data))
		}
		var want []string
		for _, data := range referenceSSE(stream) {
			if len(data) > max {
				want = append(want, fmt.Sprintf("too long: %d bytes, head %q", len(data), data[:min(len(data), lines.HeadLength)]))
				continue
			}
			want = append(want, string(data))
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("events (-want +got):\n%s", diff)
		}
	})
}

// referenceSSE parses a whole stream as the HTML standard describes it,
// simply: split into lines at CRLF, CR or LF, then fields.
func referenceSSE(stream []byte) [][]byte {
	s := strings.TrimPrefix(string(stream), "\xef\xbb\xbf")
	var lines []string
	for {
		i := strings.IndexAny(s, "\r\n")
		if i < 0 {
			break // a last line without its end is dropped
		}
		lines = append(lines, s[:i])
		if s[i] == '\r' && i+1 < len(s) && s[i+1] == '\n' {
			i++
		}
		s = s[i+1:]
	}
	var events [][]byte
	var data []byte
	have := false
	for _, line := range lines {
		if line == "" {
			if have {
				events = append(events, data)
			}
			data, have = nil, false
			continue
		}
		if line[0] == ':' {
			continue
		}
		name, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		if name != "data" {
			continue
		}
		if have {
			data = append(data, '\n')
		}
		data = append(data, value...)
		have = true
	}
	return events
}

// chunked reads b n bytes at a time, at least one.
type chunked struct {
	b []byte
	n int
}

func (c *chunked) Read(p []byte) (int, error) {
	if len(c.b) == 0 {
		return 0, io.EOF
	}
	n := min(len(p), len(c.b), max(c.n%17, 1))
	copy(p, c.b[:n])
	c.b = c.b[n:]
	return n, nil
}

// FuzzInspect reads a client's message as the transport does: it must
// not panic, and the session it reads must be the one encoding/json
// decodes, unless it refuses the message as ambiguous.
func FuzzInspect(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"session/prompt","params":{"sessionId":"a","prompt":[]}}`,
		`{"jsonrpc":"2.0","id":1,"method":"session/prompt","params":{"sessionId":"a","sessionId":"b"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"session/prompt","params":{"sessionId":"a","SESSIONID":"b"}}`,
		`{"jsonrpc":"2.0","method":"session/cancel","params":{"session\u0049d":"b"}}`,
		`{"jsonrpc":"2.0","id":"x","result":{}}`,
		`[1,2]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, msg []byte) {
		m := inspect(msg)
		if m.kind == kindInvalid || m.ambiguous || !json.Valid(msg) {
			return
		}
		var v struct {
			Params struct {
				SessionID string `json:"sessionId"`
			} `json:"params"`
		}
		if json.Unmarshal(msg, &v) != nil {
			return
		}
		if m.kind != kindResponse && v.Params.SessionID != m.session {
			t.Errorf("the transport reads session %q, encoding/json %q", m.session, v.Params.SessionID)
		}
	})
}

// FuzzConnectionID adds the connection id to initialize responses: the
// result must stay valid JSON, with the id in it, and nothing else
// changed.
func FuzzConnectionID(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1}}`,
		`{"jsonrpc":"2.0","id":0,"result":{}}`,
		`{"jsonrpc":"2.0","id":0,"result":{ }}`,
		`{"jsonrpc":"2.0","id":0,"error":{"code":1,"message":"x"}}`,
		`{"jsonrpc":"2.0","id":0,"result":{"connectionId":"mine"}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, resp []byte) {
		if !gjson.ValidBytes(resp) || !json.Valid(resp) {
			return
		}
		out := withConnectionID(resp, "CID")
		if !json.Valid(out) {
			t.Fatalf("%s became %s", resp, out)
		}
		res := gjson.GetBytes(resp, "result")
		if !res.IsObject() || res.Get("connectionId").Exists() || bytes.Equal(out, resp) {
			return
		}
		var before, after map[string]any
		json.Unmarshal([]byte(res.Raw), &before)
		json.Unmarshal([]byte(gjson.GetBytes(out, "result").Raw), &after)
		if after["connectionId"] != "CID" || len(after) != len(before)+1 {
			t.Errorf("%s became %s", resp, out)
		}
	})
}

// FuzzHeaders reads the headers the server routes on, and the Origin it
// checks.
func FuzzHeaders(f *testing.F) {
	f.Add("Upgrade", "websocket, h2c", "text/event-stream;q=1, */*")
	f.Add("upgrade", "WebSocket", "TEXT/*")
	f.Fuzz(func(t *testing.T, name, upgrade, accept string) {
		h := http.Header{}
		h.Add(name, upgrade)
		h.Add("Accept", accept)
		headerHasToken(h, "Upgrade", "websocket")
		acceptsEventStream(h)
		h.Set("Origin", upgrade)
		s := &Server{opts: ServerOptions{OriginPatterns: []string{accept}}}
		s.originAllowed(&http.Request{Host: name, Header: h})
	})
}
