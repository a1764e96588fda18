package gemini_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/acpkit/acpkit/gemini"
)

// largeSession generates a session file of about size bytes in the shape
// the Gemini CLI 0.61.0 writes (see testdata/store): the metadata and the
// session context, then turn after turn of a prompt, the model's message
// written twice (once bare, once with its tool call and result), the tool
// response, the answer, and a $set of lastUpdated after each message.
func largeSession(size int) string {
	var b strings.Builder
	b.Grow(size + 64<<10)
	t0 := time.Date(2026, 12, 1, 21, 6, 0, 0, time.UTC)
	ts := func(ms int) string {
		return t0.Add(time.Duration(ms) * time.Millisecond).Format("2006-01-02T15:04:05.000Z")
	}
	fmt.Fprintf(&b, `{"sessionId":"181cb93b-9be0-4ddf-8212-3da9bd3ff8d1","projectHash":"%s","startTime":"%s","lastUpdated":"%s","kind":"main"}`+"\n",
		"4d1a0f6a3c5b2e1d0c9b8a7f6e5d4c3b2a1f0e9d8c7b6a5f4e3d2c1b0a9f8e7d", ts(0), ts(0))
	fmt.Fprintf(&b, `{"$set":{"messages":[{"id":"d049","timestamp":"%s","type":"user","content":[{"text":"<session_context>\nThis is the Gemini CLI.\n</session_context>"}]}],"lastUpdated":"%s"}}`+"\n", ts(1), ts(1))
	output := strings.Repeat("ok  \tgithub.com/acpkit/acpkit/gemini\t0.412s\n", 40)
	for i, k := 0, 2; b.Len() < size; i++ {
		set := func() {
			fmt.Fprintf(&b, `{"$set":{"lastUpdated":"%s"}}`+"\n", ts(k))
			k++
		}
		id := func(n int) string { return fmt.Sprintf("%08x-0000-4000-8000-%012x", i, n) }
		fmt.Fprintf(&b, `{"id":"%s","timestamp":"%s","type":"user","content":[{"text":"Turn %d: please look at the code."}]}`+"\n", id(1), ts(k), i)
		set()
		gem := fmt.Sprintf(`{"id":"%s","timestamp":"%s","type":"gemini","content":"","thoughts":[{"subject":"Looking","description":"I read the code first.","timestamp":"%s"}],"tokens":{"input":9641,"output":10,"cached":7230,"thoughts":0,"tool":0,"total":9651},"model":"gemini-3.8-flash"`, id(2), ts(k), ts(k))
		b.WriteString(gem + "}\n")
		set()
		call := fmt.Sprintf(`"call_%d"`, i)
		resp := fmt.Sprintf(`{"functionResponse":{"id":%s,"name":"run_shell_command","response":{"output":%q}}}`, call, output)
		fmt.Fprintf(&b, `%s,"toolCalls":[{"id":%s,"name":"run_shell_command","args":{"command":"go test ./...","description":"Run the tests"},"result":[%s],"status":"success","timestamp":"%s","resultDisplay":%q,"displayName":"Shell"}]}`+"\n", gem, call, resp, ts(k), output)
		fmt.Fprintf(&b, `{"id":"%s","timestamp":"%s","type":"user","content":[%s]}`+"\n", id(3), ts(k), resp)
		set()
		fmt.Fprintf(&b, `{"id":"%s","timestamp":"%s","type":"gemini","content":"All tests pass.","thoughts":[],"model":"gemini-3.8-flash"}`+"\n", id(4), ts(k))
		set()
	}
	return b.String()
}

// BenchmarkReadEntries reads a generated 20 MB session file record by
// record, as a stream.
func BenchmarkReadEntries(b *testing.B) {
	data := largeSession(20 << 20)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		n := 0
		for e, err := range gemini.ReadEntries(strings.NewReader(data)) {
			if err != nil {
				b.Fatal(err)
			}
			n += len(e.Events)
		}
		if n == 0 {
			b.Fatal("no events")
		}
	}
}

// BenchmarkConversation reads the same file as a replay does: every
// record applied to a Conversation, then its messages.
func BenchmarkConversation(b *testing.B) {
	data := largeSession(20 << 20)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		var c gemini.Conversation
		for e, err := range gemini.ReadEntries(strings.NewReader(data)) {
			if err != nil {
				b.Fatal(err)
			}
			c.Apply(e)
		}
		if len(c.Messages()) == 0 {
			b.Fatal("no messages")
		}
	}
}
