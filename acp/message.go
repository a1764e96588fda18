package acp

import (
	"github.com/acpkit/acpkit/internal/lines"
)

// A MessageReader is a reader that yields whole messages, such as one
// WebSocket text frame or one HTTP request body each, rather than a byte
// stream. A [Conn] whose reader is a MessageReader reads each message with
// ReadMessage instead of splitting the reader's bytes at newlines: a
// message may then hold newlines (JSON's white space), and the Conn keeps
// no line buffer of its own between messages. Its Read method is not
// called.
//
// The Conn treats a message as it treats a line: one longer than
// [ConnOptions].MaxLineLength is skipped and answered as a line too long
// is, and a blank one is skipped.
//
// The Conn also writes in whole messages, whatever its writer: every Write
// it makes is one message followed by "\n", from one goroutine at a time,
// so a writer may send each Write as one frame. It does not use the slice
// after Write returns.
type MessageReader interface {
	// ReadMessage returns the next message, which is valid only until the
	// next call, io.EOF when there are no more, or another error, which
	// ends the connection as a read error does.
	ReadMessage() ([]byte, error)
}

// nextLine returns the next message: the next line of c's reader, or the
// next message of a MessageReader.
func (c *Conn) nextLine() ([]byte, error) {
	mr, ok := c.r.(MessageReader)
	if !ok {
		return c.lr.Next()
	}
	for {
		msg, err := mr.ReadMessage()
		if err != nil {
			return nil, err
		}
		if len(msg) > c.lr.Max() {
			head := msg[:min(len(msg), lines.HeadLength)]
			return nil, &lines.TooLongError{Length: int64(len(msg)), Max: c.lr.Max(), Head: append([]byte(nil), head...)}
		}
		if !blank(msg) {
			return msg, nil
		}
	}
}

// blank reports whether msg is empty or only JSON white space.
func blank(msg []byte) bool {
	for _, b := range msg {
		if b != ' ' && b != '\t' && b != '\r' && b != '\n' {
			return false
		}
	}
	return true
}
