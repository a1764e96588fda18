package acpcheck

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"sync"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/acp/acphttp"
	"github.com/tidwall/gjson"
)

// errNoRaw is the reason of a check that writes raw bytes, on a transport
// that carries only messages.
var errNoRaw = errors.New("the remote transports carry whole messages: this check writes raw bytes, which only stdio carries")

// peer is the suite's side of one connection to the agent: an acp.Conn
// served by the scripted editor, and the log of its wire.
type peer struct {
	n      int
	log    *wireLog
	conn   *acp.Conn
	ed     *editor
	raw    *lockedWriter // the agent's stdin; nil over a remote transport
	remote bool
	// split is set over Streamable HTTP, which carries the responses to
	// connection-level requests (session/new, session/load) on one stream
	// and a session's updates on another: their order on arrival says
	// nothing of the order they were sent in.
	split bool
	stop  func() error // ends the connection and the process behind it

	prompt, longPrompt string // Options.Prompt and LongPrompt

	closeOnce sync.Once
	closeErr  error
}

// open opens a new connection to the target.
func (s *suite) open(ctx context.Context) (*peer, error) {
	n := int(s.conns.Add(1))
	p := &peer{n: n, log: newWireLog(n, s.trace), prompt: s.opts.Prompt, longPrompt: s.opts.LongPrompt}
	p.ed = newEditor(p)
	spec := s.target
	if spec.remote == nil {
		proc, err := spec.start(ctx)
		if err != nil {
			return nil, fmt.Errorf("starting the agent: %w", err)
		}
		p.raw = &lockedWriter{w: proc, log: p.log}
		in := &recordingReader{r: proc, rec: lineRecorder{log: p.log, f: fromAgent}}
		p.conn = acp.NewConn(context.WithoutCancel(ctx), in, p.raw, p.ed, nil)
		p.stop = func() error {
			err := proc.Close()
			p.conn.Close()
			p.conn.Wait()
			return err
		}
	} else {
		o := spec.remote
		if o.HTTPClient == nil {
			return nil, errNoHTTPClient
		}
		hc := *o.HTTPClient
		hc.Jar, _ = cookiejar.New(nil) // never fails
		// The Conn shows the log each message as it reads or writes it,
		// so that the log holds the wire in its order, as over stdio.
		dial := &acphttp.DialOptions{HTTPClient: &hc, Header: o.Header, Conn: &acp.ConnOptions{
			OnRead:  func(msg []byte) { p.log.add(fromAgent, bytes.Clone(msg), false) },
			OnWrite: func(msg []byte) { p.log.add(fromClient, bytes.Clone(msg), false) },
		}}
		p.remote = true
		p.split = o.Transport == StreamableHTTP
		var err error
		if o.Transport == StreamableHTTP {
			p.conn, err = acphttp.DialStreamableHTTP(spec.url, p.ed, dial)
		} else {
			p.conn, err = acphttp.DialWebSocket(ctx, spec.url, p.ed, dial)
		}
		if err != nil {
			return nil, fmt.Errorf("dialling the agent: %w", err)
		}
		p.stop = func() error {
			p.conn.Close()
			p.conn.Wait()
			p.log.end()
			return nil
		}
	}
	s.peers.Lock()
	s.peers.list = append(s.peers.list, p)
	s.peers.all = append(s.peers.all, p)
	s.peers.Unlock()
	return p, nil
}

// close ends the connection; it is safe to call more than once.
func (p *peer) close() error {
	p.closeOnce.Do(func() { p.closeErr = p.stop() })
	return p.closeErr
}

// request sends a request and returns its raw result.
func (p *peer) request(ctx context.Context, method string, params any) (json.RawMessage, error) {
	return p.conn.Request(ctx, method, params)
}

// notify sends a notification.
func (p *peer) notify(ctx context.Context, method string, params any) error {
	return p.conn.Notify(ctx, method, params)
}

// call calls m and decodes its result as m's result type, as m.Call does.
func call[P, R any](ctx context.Context, p *peer, m acp.Method[P, R], params P) (R, error) {
	raw, err := p.request(ctx, m.Name, params)
	if err != nil {
		var zero R
		return zero, err
	}
	return acp.DecodeResult[R](raw)
}

// writeRaw writes line and a newline to the agent as they are, beside the
// Conn's messages.
func (p *peer) writeRaw(line string) error {
	if p.raw == nil {
		return errNoRaw
	}
	_, err := io.WriteString(p.raw, line+"\n")
	return err
}

// editor is the client the suite plays: it answers the agent's requests as
// a scripted editor would (permissions granted, files read from and
// written to memory). It is the Conn's acp.Handler.
type editor struct {
	p *peer

	mu        sync.Mutex
	files     map[string]string          // written with fs/write_text_file
	cancelled map[string]bool            // sessions whose turn the suite cancelled
	held      map[string]chan struct{}   // sessions whose permission requests wait
	asked     map[string]json.RawMessage // the last permission request per session
}

func newEditor(p *peer) *editor {
	return &editor{p: p, files: map[string]string{}, cancelled: map[string]bool{}, held: map[string]chan struct{}{}, asked: map[string]json.RawMessage{}}
}

// hold makes the session's permission requests wait unanswered until the
// suite cancels its turn.
func (e *editor) hold(session string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.held[session] == nil {
		e.held[session] = make(chan struct{})
	}
}

// startTurn forgets a cancellation before the session's next turn.
func (e *editor) startTurn(session string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	delete(e.cancelled, session)
}

// cancelTurn marks the session's turn cancelled: its permission requests,
// pending and later, are answered "cancelled", as ACP asks of a client
// that cancels.
func (e *editor) cancelTurn(session string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.cancelled[session] = true
	if c := e.held[session]; c != nil {
		close(c)
		delete(e.held, session)
	}
}

func (e *editor) HandleRequest(ctx context.Context, _ *acp.Conn, method string, params json.RawMessage) (any, error) {
	return e.answer(ctx, method, params)
}

// HandleNotification ignores the agent's notifications: the wire log
// holds them.
func (e *editor) HandleNotification(context.Context, *acp.Conn, string, json.RawMessage) {}

// answer answers one of the agent's requests.
func (e *editor) answer(ctx context.Context, method string, params json.RawMessage) (any, error) {
	session := gjson.GetBytes(params, "sessionId").String()
	switch method {
	case acp.SessionRequestPermission.Name:
		e.mu.Lock()
		e.asked[session] = params
		held := e.held[session]
		e.mu.Unlock()
		if held != nil {
			select {
			case <-held:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		e.mu.Lock()
		cancelled := e.cancelled[session]
		e.mu.Unlock()
		if cancelled {
			return json.RawMessage(`{"outcome":{"outcome":"cancelled"}}`), nil
		}
		return json.RawMessage(`{"outcome":{"outcome":"selected","optionId":` + allowOption(params) + `}}`), nil
	case acp.FSReadTextFile.Name:
		path := gjson.GetBytes(params, "path").String()
		e.mu.Lock()
		text, ok := e.files[path]
		e.mu.Unlock()
		if !ok {
			return nil, acp.Errorf(acp.CodeResourceNotFound, "Resource not found: %s", path)
		}
		return map[string]string{"content": text}, nil
	case acp.FSWriteTextFile.Name:
		e.mu.Lock()
		e.files[gjson.GetBytes(params, "path").String()] = gjson.GetBytes(params, "content").String()
		e.mu.Unlock()
		return struct{}{}, nil
	}
	return nil, acp.ErrMethodNotFound
}

// allowOption returns, as JSON, the id of the option that allows once (or
// always, or else the first), as an editor whose user says yes would.
func allowOption(params json.RawMessage) string {
	options := gjson.GetBytes(params, "options").Array()
	for _, kind := range []string{"allow_once", "allow_always"} {
		for _, o := range options {
			if o.Get("kind").String() == kind {
				return o.Get("optionId").Raw
			}
		}
	}
	if len(options) > 0 {
		return options[0].Get("optionId").Raw
	}
	return `""`
}

// httpClient is the client the remote checks make their own requests with.
func (s *suite) httpClient() *http.Client {
	return s.target.remote.HTTPClient
}
