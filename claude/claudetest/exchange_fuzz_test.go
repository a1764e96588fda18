package claudetest

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"
	"unicode/utf8"
)

func FuzzReadRecords(f *testing.F) {
	f.Add([]byte(`{"dir":"in","t":1,"line":"{\"type\":\"user\"}"}` + "\n" + `{"dir":"exit","t":2,"code":0,"signal":null}`))
	f.Add([]byte(`{"dir":"out","line":"{"}`))
	f.Add([]byte(`{"dir":"stdin_closed","dir":"in"}`))
	f.Add([]byte("\n\n{}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		recs, err := ReadRecords(bytes.NewReader(data))
		if err != nil {
			if !errors.Is(err, ErrTranscript) {
				t.Fatalf("error %v does not wrap ErrTranscript", err)
			}
			return
		}
		for _, r := range recs {
			switch r.Dir {
			case DirIn, DirOut:
				if !json.Valid([]byte(r.Line)) {
					t.Fatalf("record %+v has an invalid line", r)
				}
			case DirStdinClosed, DirExit:
			default:
				t.Fatalf("record %+v has an unknown dir", r)
			}
		}
	})
}

// FuzzRewriteAnswer checks that rewriting the request id an answer carries
// keeps the line valid and changes nothing else the fake compares.
func FuzzRewriteAnswer(f *testing.F) {
	f.Add([]byte(`{"type":"control_response","response":{"subtype":"success","request_id":"req_1_ab","response":{}}}`), "req_1")
	f.Add([]byte(`{"type":"control_response","response":{"request_id":"a","request_id":"b"}}`), "\"\n")
	f.Add([]byte(`{"type":"control_response","response":{"request_id":"\u0061"}}`), "x")
	f.Add([]byte(`{"type":"user"}`), "x")
	f.Fuzz(func(t *testing.T, line []byte, id string) {
		if !json.Valid(line) {
			return
		}
		_, before := requestIDs(line)
		out := rewriteAnswer(line, id)
		if !json.Valid(out) {
			t.Fatalf("rewriteAnswer(%s, %q) = %s, invalid", line, id, out)
		}
		if Kind(out) != Kind(line) {
			t.Fatalf("kind changed: %s -> %s", line, out)
		}
		// An answer to a request names the new id afterwards.
		if _, after := requestIDs(out); before != "" && utf8.ValidString(id) && after != id {
			t.Fatalf("rewriteAnswer(%s, %q) answers %q", line, id, after)
		}
	})
}
