package acptest

import (
	"context"
	"errors"
	"io"

	"github.com/acpkit/acpkit/acp"
)

// NewPair returns two connected connections ([acp.Conn]): client, served
// by clientHandler, and agent, served by agentHandler. What one writes, the
// other reads, through an [io.Pipe] each way, so a write waits for the peer
// to read it as over a real pipe. Either handler may be nil. ctx bounds both
// connections, as for [acp.NewConn]. opts (which may be nil) applies to
// both sides; give them a Logger to see each side's diagnostics.
//
// closePair closes both connections, waits for their goroutines and
// handlers, and returns what the two connections' [acp.Conn.Wait] report,
// joined with [errors.Join] (nil after a clean close). Closing one side
// alone ends the other cleanly: it sees the end of its input.
func NewPair(ctx context.Context, clientHandler, agentHandler acp.Handler, opts *acp.ConnOptions) (client, agent *acp.Conn, closePair func() error) {
	toAgentR, toAgentW := io.Pipe()
	toClientR, toClientW := io.Pipe()
	client = acp.NewConn(ctx, toClientR, pipeWriter{toAgentW}, clientHandler, opts)
	agent = acp.NewConn(ctx, toAgentR, pipeWriter{toClientW}, agentHandler, opts)
	closePair = func() error {
		client.Close()
		agent.Close()
		return errors.Join(client.Wait(), agent.Wait())
	}
	return client, agent, closePair
}

// pipeWriter is one direction of a pair. Closing a Conn closes its reader,
// the other Conn's pipe, so that a write in progress fails with
// [io.ErrClosedPipe]: the other Conn would end with that error if it
// happened to write before it read the end of its input, which the
// closing Conn also gave it. What it writes then has no reader, as after
// a peer process exits, so the write is reported done and the other Conn
// ends cleanly at the end of its input.
type pipeWriter struct{ *io.PipeWriter }

func (w pipeWriter) Write(p []byte) (int, error) {
	n, err := w.PipeWriter.Write(p)
	if errors.Is(err, io.ErrClosedPipe) {
		return len(p), nil
	}
	return n, err
}
