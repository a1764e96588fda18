package goose

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/acpkit/acpkit/acp"
	"github.com/google/go-cmp/cmp"
)

// FuzzDecodeGoose checks goose's two readers, SessionNotification's
// decoder and ParseMeta, on the same input: no panic, failures are
// invalid-params errors, and what decodes survives a round trip through
// its builder. The seed corpus is in testdata/fuzz/FuzzDecodeGoose.
func FuzzDecodeGoose(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		n, err := acp.DecodeParams[SessionNotification](data)
		if err != nil {
			var e *acp.Error
			if !errors.As(err, &e) || e.Code != acp.CodeInvalidParams || len(e.Data) > 0 && !json.Valid(e.Data) {
				t.Fatalf("%q: error %v is not an invalid-params *Error", data, err)
			}
		} else {
			line, err := notificationLine(n)
			if err != nil {
				t.Fatalf("%q decoded to %#v, which does not marshal: %v", data, n, err)
			}
			m := acp.Classify(line)
			if m.Kind != acp.KindNotification || m.Method != SessionUpdate.Name {
				t.Fatalf("%q re-marshalled to %q, classified as %v %q", data, line, m.Kind, m.Method)
			}
			again, err := acp.DecodeParams[SessionNotification](m.Params)
			if err != nil {
				t.Fatalf("%q re-marshalled to %q, which does not decode: %v", data, line, err)
			}
			if _, unknown := n.Update.(UnknownUpdate); unknown {
				// Kept raw, so only compaction may differ.
				if again.Update.kind() != n.Update.kind() || again.SessionID != n.SessionID {
					t.Fatalf("%q: %#v became %#v", data, n, again)
				}
			} else if diff := cmp.Diff(n, again); diff != "" {
				t.Fatalf("%q: round trip (-first +second):\n%s", data, diff)
			}
		}

		meta, ok := ParseMeta(data)
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
		again, ok := ParseMeta(raw)
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
