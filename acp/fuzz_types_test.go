package acp

import (
	"encoding/json"
	"errors"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// checkInvalidParams fails unless err is an invalid-params *Error naming a
// field.
func checkInvalidParams(t *testing.T, input []byte, err error) {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) || e.Code != CodeInvalidParams {
		t.Fatalf("%q: error %v is not an invalid-params *Error", input, err)
	}
	if len(e.Data) > 0 && !json.Valid(e.Data) {
		t.Fatalf("%q: error data %q is not valid JSON", input, e.Data)
	}
}

// FuzzDecodeSessionUpdate checks that decoding an update never panics, that
// failures are invalid-params errors, and that whatever decodes marshals to
// valid JSON that decodes again to the same variant.
func FuzzDecodeSessionUpdate(f *testing.F) {
	for _, tc := range sampleUpdates() {
		raw, err := json.Marshal(tc.update)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(raw)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		u, err := decodeSessionUpdate(data)
		if err != nil {
			checkInvalidParams(t, data, err)
			return
		}
		out, err := json.Marshal(u)
		if err != nil {
			t.Fatalf("%q decoded to %#v, which does not marshal: %v", data, u, err)
		}
		if !json.Valid(out) || !utf8.Valid(out) {
			t.Fatalf("%q re-marshalled to invalid JSON %q", data, out)
		}
		again, err := decodeSessionUpdate(out)
		if err != nil {
			t.Fatalf("%q re-marshalled to %q, which does not decode: %v", data, out, err)
		}
		if again.updateKind() != u.updateKind() {
			t.Fatalf("%q: variant %q became %q after a round trip", data, u.updateKind(), again.updateKind())
		}
	})
}

// FuzzDecodeParams checks the session/new and session/prompt decoders the
// same way: no panic, invalid-params errors only, and re-marshalled values
// decode again.
func FuzzDecodeParams(f *testing.F) {
	f.Add([]byte(`{"cwd":"/w","mcpServers":[{"name":"a","command":"/a","args":["x"],"env":[{"name":"K","value":"V"}]},{"type":"http","name":"h","url":"u","headers":[]}],"systemPrompt":""}`))
	f.Add([]byte(`{"sessionId":"s","prompt":[{"type":"text","text":"hi"},{"type":"resource","resource":{"uri":"u","blob":"AA=="}},{"type":"new"}]}`))
	f.Add([]byte(`{"cwd":"/w","cwd":null,"prompt":[null]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		if p, err := DecodeParams[NewSessionParams](data); err != nil {
			checkInvalidParams(t, data, err)
		} else {
			out, err := json.Marshal(p)
			if err != nil || !json.Valid(out) || !utf8.Valid(out) {
				t.Fatalf("%q: session/new params re-marshal to %q, %v", data, out, err)
			}
			if _, err := DecodeParams[NewSessionParams](out); err != nil {
				t.Fatalf("%q re-marshalled to %q, which does not decode: %v", data, out, err)
			}
		}
		if p, err := DecodeParams[PromptParams](data); err != nil {
			checkInvalidParams(t, data, err)
		} else {
			out, err := json.Marshal(p)
			if err != nil || !json.Valid(out) || !utf8.Valid(out) {
				t.Fatalf("%q: prompt params re-marshal to %q, %v", data, out, err)
			}
			if _, err := DecodeParams[PromptParams](out); err != nil {
				t.Fatalf("%q re-marshalled to %q, which does not decode: %v", data, out, err)
			}
		}
	})
}

// FuzzDecodeGoose checks goose's two readers, DecodeGooseSessionNotification
// and ParseGooseMeta, on the same input: no panic, failures are
// invalid-params errors, and what decodes survives a round trip through
// its builder. The seed corpus is in testdata/fuzz/FuzzDecodeGoose.
func FuzzDecodeGoose(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		n, err := DecodeGooseSessionNotification(data)
		if err != nil {
			checkInvalidParams(t, data, err)
		} else {
			line, err := MarshalGooseSessionUpdate(n.SessionID, n.Update)
			if err != nil {
				t.Fatalf("%q decoded to %#v, which does not marshal: %v", data, n, err)
			}
			m := Classify(line)
			if m.Kind != KindNotification || m.Method != GooseSessionUpdate.Name {
				t.Fatalf("%q re-marshalled to %q, classified as %v %q", data, line, m.Kind, m.Method)
			}
			again, err := DecodeGooseSessionNotification(m.Params)
			if err != nil {
				t.Fatalf("%q re-marshalled to %q, which does not decode: %v", data, line, err)
			}
			if _, unknown := n.Update.(UnknownGooseUpdate); unknown {
				// Kept raw, so only compaction may differ.
				if again.Update.gooseUpdateKind() != n.Update.gooseUpdateKind() || again.SessionID != n.SessionID {
					t.Fatalf("%q: %#v became %#v", data, n, again)
				}
			} else if diff := cmp.Diff(n, again); diff != "" {
				t.Fatalf("%q: round trip (-first +second):\n%s", data, diff)
			}
		}

		meta, ok := ParseGooseMeta(data)
		if !ok {
			if meta.ActiveRunID != nil || meta.QueuedSteer != nil {
				t.Fatalf("%q: not ok, yet %#v", data, meta)
			}
			return
		}
		raw, err := meta.Marshal()
		if err != nil {
			t.Fatalf("%q: %#v does not marshal: %v", data, meta, err)
		}
		again, ok := ParseGooseMeta(raw)
		if !ok {
			t.Fatalf("%q: %#v marshalled to %s, which does not parse", data, meta, raw)
		}
		if diff := cmp.Diff(meta.ActiveRunID, again.ActiveRunID); diff != "" {
			t.Fatalf("%q: activeRunId round trip (-first +second):\n%s", data, diff)
		}
		if (meta.QueuedSteer == nil) != (again.QueuedSteer == nil) {
			t.Fatalf("%q: queuedSteer %s became %s", data, meta.QueuedSteer, again.QueuedSteer)
		}
	})
}

// decodeSessionUpdate decodes one update object, as the update member of a
// session/update is decoded, with member paths relative to the update.
func decodeSessionUpdate(raw []byte) (Update, error) {
	u, err := decodeUpdate(raw, "")
	if err != nil {
		return nil, invalidParams(err)
	}
	return u, nil
}
