package codextest_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/acpkit/acpkit/codex/codextest"
	"github.com/acpkit/acpkit/internal/lines"
)

// FuzzReadAppServerTranscript checks that reading a transcript never
// panics, that a refused one is refused with ErrAppServerTranscript, and
// that every record of an accepted one has the line its direction needs.
func FuzzReadAppServerTranscript(f *testing.F) {
	data, err := os.ReadFile(filepath.Join("..", "testdata", "appserver", "interrupt.ndjson"))
	if err != nil {
		f.Fatal(err)
	}
	first, _, _ := strings.Cut(string(data), "\n")
	f.Add(first + "\n" + `{"dir":"server","t_ms":3,"raw":"oops"}` + "\n" + `{"dir":"exit"}`)
	f.Add(`{"dir":"client","t_ms":1,"msg":{"id":1}}` + "\n\n" + `{"dir":"server","msg":"x"}`)
	f.Add(`{"dir":"client","msg":{},"msg":null}`)
	f.Fuzz(func(t *testing.T, text string) {
		recs, err := codextest.ReadAppServerTranscript(strings.NewReader(text))
		if err != nil {
			var tooLong *lines.TooLongError
			if !errors.Is(err, codextest.ErrAppServerTranscript) && !errors.As(err, &tooLong) {
				t.Fatalf("error %v is not ErrAppServerTranscript", err)
			}
			return
		}
		for i, r := range recs {
			switch r.Dir {
			case codextest.DirClient, codextest.DirServer:
				if r.Msg == nil && (r.Dir == codextest.DirClient || r.Raw == "") {
					t.Fatalf("record %d: a %s record without its line", i+1, r.Dir)
				}
			case codextest.DirExit:
			default:
				t.Fatalf("record %d: direction %q accepted", i+1, r.Dir)
			}
		}
	})
}

// FuzzServeLenientAppServer checks that the lenient fake, given any
// transcript and any client input, never panics or hangs: it refuses a
// transcript that cannot serve with ErrAppServerTranscript, and otherwise
// answers until the end of the input, writing only JSON objects.
func FuzzServeLenientAppServer(f *testing.F) {
	transcript, err := os.ReadFile(filepath.Join("..", "testdata", "appserver", "command-approval-accept.ndjson"))
	if err != nil {
		f.Fatal(err)
	}
	thread := `"threadId":"00000000-0000-7000-8000-000000000001"`
	f.Add(string(transcript), `{"id":1,"method":"initialize"}
{"id":2,"method":"thread/start"}
{"id":3,"method":"turn/start","params":{`+thread+`}}
{"id":0,"result":{"decision":"cancel"}}
{"id":4,"method":"turn/start","params":{`+thread+`}}
{"id":5,"method":"turn/interrupt","params":{`+thread+`}}
{"id":6,"method":"thread/resume","params":{"threadId":"x"}}
{"id":[],"method":7}
not json`)
	f.Add(`{"dir":"client","msg":{"id":1,"method":"initialize"}}
{"dir":"server","msg":{"id":1,"result":{}}}
{"dir":"client","msg":{"id":2,"method":"thread/start"}}
{"dir":"server","msg":{"id":2,"result":{"thread":{"id":"t"}}}}
{"dir":"client","msg":{"id":3,"method":"turn/start","params":{"threadId":"t"}}}
{"dir":"server","msg":{"id":3,"result":{"turn":{"id":"u"}}}}
{"dir":"server","msg":{"id":0,"method":"ask","params":{}}}
{"dir":"server","msg":{"method":"turn/completed","params":{"turn":{"id":"u"}}}}`,
		`{"id":1,"method":"initialize"}`+"\n"+`{"id":2,"method":"thread/start"}`+"\n"+`{"id":3,"method":"turn/start","params":{`+thread+`}}`+"\n"+`{"id":0,"result":{}}`)
	f.Fuzz(func(t *testing.T, transcript, client string) {
		recs, err := codextest.ReadAppServerTranscript(strings.NewReader(transcript))
		if err != nil {
			return
		}
		var out bytes.Buffer
		synctest.Test(t, func(t *testing.T) {
			err = codextest.ServeLenientAppServer(t.Context(), recs, strings.NewReader(client), &out, codextest.LenientOptions{})
		})
		if err != nil && !errors.Is(err, codextest.ErrAppServerTranscript) {
			var tooLong *lines.TooLongError
			if !errors.As(err, &tooLong) {
				t.Fatalf("ServeLenientAppServer: %v", err)
			}
		}
		for line := range strings.Lines(out.String()) {
			if !json.Valid([]byte(line)) || !strings.HasPrefix(line, "{") {
				t.Fatalf("wrote a line that is not a JSON object: %q", line)
			}
		}
	})
}
