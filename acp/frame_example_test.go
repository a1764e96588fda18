package acp_test

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/acpkit/acpkit/acp"
)

// A FrameReader yields one message per line, skips blank lines, and reports
// an oversized line without losing the lines after it.
func ExampleFrameReader() {
	input := strings.NewReader(`{"jsonrpc":"2.0","method":"initialize","id":0}` + "\r\n" +
		"\n" +
		`{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"` + strings.Repeat("x", 100) + `"}}` + "\n" +
		`{"jsonrpc":"2.0","id":0,"result":{}}`) // no final newline

	fr := acp.NewFrameReader(input, 64) // a tiny maximum, for the example
	for {
		frame, err := fr.Next()
		if errors.Is(err, acp.ErrLineTooLong) {
			fmt.Println("skipped:", err)
			continue
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			fmt.Println("read error:", err)
			return
		}
		fmt.Printf("frame: %s\n", frame)
	}
	// Output:
	// frame: {"jsonrpc":"2.0","method":"initialize","id":0}
	// skipped: acp: line of 169 bytes exceeds the maximum of 64
	// frame: {"jsonrpc":"2.0","id":0,"result":{}}
}

// A FrameWriter puts each message on one line, compacting pretty-printed
// JSON and refusing anything that is not JSON.
func ExampleFrameWriter() {
	fw := acp.NewFrameWriter(os.Stdout)
	_ = fw.WriteFrame([]byte(`{
	"jsonrpc": "2.0",
	"method": "session/cancel",
	"params": {"sessionId": "sess 1"}
}`))
	err := fw.WriteFrame([]byte("not json"))
	fmt.Println(errors.Is(err, acp.ErrNotJSON))
	// Output:
	// {"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"sess 1"}}
	// true
}
