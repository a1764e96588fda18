package acp

import (
	"encoding/json"
	"errors"
	"testing"
	"unicode/utf8"
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
		if again.updateTag() != u.updateTag() {
			t.Fatalf("%q: variant %q became %q after a round trip", data, u.updateTag(), again.updateTag())
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

// decodeSessionUpdate decodes one update object, as the update member of a
// session/update is decoded, with member paths relative to the update.
func decodeSessionUpdate(raw []byte) (Update, error) {
	u, err := decodeUpdate(raw, "")
	if err != nil {
		return nil, invalidParams(err)
	}
	return u, nil
}

// FuzzSchemaCodecs checks the decoder and encoder of every method's
// params and result on the same bytes, as schematest.Layer.FuzzCodecs
// says.
func FuzzSchemaCodecs(f *testing.F) {
	layer.FuzzCodecs(f, func(err error) bool {
		return errors.Is(err, ErrNotJSON) // decoded, but nested too deep to fit in a line
	}, func(err error) bool {
		_, named := InvalidField(err)
		return named || errors.Is(err, ErrInvalidParams) || errors.Is(err, ErrInvalidResponse)
	})
}
