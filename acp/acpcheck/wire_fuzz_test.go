package acpcheck

import (
	"bytes"
	"testing"
)

// FuzzLineRecorder checks that the log of an agent's output holds its
// lines exactly, whatever the bytes and however the reads split them:
// every line in order, without its newline, and the bytes after the last
// newline as a partial line.
func FuzzLineRecorder(f *testing.F) {
	f.Add([]byte("{\"jsonrpc\":\"2.0\"}\n{}\n"), uint8(3))
	f.Add([]byte("no newline"), uint8(1))
	f.Add([]byte("\n\n\r\n\xff\xfe\n{"), uint8(2))
	f.Fuzz(func(t *testing.T, data []byte, chunk uint8) {
		log := newWireLog(1, nil)
		r := &recordingReader{r: bytes.NewReader(data), rec: lineRecorder{log: log, f: fromAgent}}
		buf := make([]byte, int(chunk%16)+1)
		for {
			if _, err := r.Read(buf); err != nil {
				break
			}
		}
		want := bytes.Split(data, []byte("\n"))
		last := want[len(want)-1]
		want = want[:len(want)-1]
		events := log.snapshot()
		if len(last) > 0 {
			want = append(want, last)
		}
		if len(events) != len(want) {
			t.Fatalf("%d lines logged, want %d", len(events), len(want))
		}
		for i, e := range events {
			if !bytes.Equal(e.line, want[i]) {
				t.Fatalf("line %d is %q, want %q", i, e.line, want[i])
			}
			if e.partial != (len(last) > 0 && i == len(events)-1) {
				t.Fatalf("line %d: partial %v", i, e.partial)
			}
		}
	})
}
