package acphttp

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/cookiejar"
	"sync"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/internal/lines"
	"github.com/coder/websocket"
)

// DialOptions configures a client's connection to a remote agent.
// HTTPClient is required.
type DialOptions struct {
	// HTTPClient makes every request: the upgrade, or each POST, GET and
	// DELETE, which [DialStreamableHTTP] sends over a clone of its
	// *http.Transport, its connection's own. Its Jar keeps the server's
	// cookies (an affinity cookie, say) for the connection, as the RFD
	// requires; a client without one gets a new jar for each connection,
	// which the connection forgets when it ends. Pass a Jar to keep
	// affinity across reconnects.
	HTTPClient *http.Client
	// Header is sent with every request: authentication, typically
	// "Authorization: Bearer …".
	Header http.Header
	// MaxMessageBytes bounds one message from the server: 0 means
	// [DefaultMaxMessageBytes]. A longer one is skipped, and answered as
	// [acp.Conn] answers a line too long (see
	// [acp.ConnOptions].MaxLineLength): a response fails the request it
	// answers with an error matching [acp.ErrLineTooLong]. The
	// connection goes on.
	MaxMessageBytes int
	// Conn configures the returned [acp.Conn]; nil gives its defaults.
	// Its MaxLineLength is replaced by MaxMessageBytes.
	Conn *acp.ConnOptions
}

func (o *DialOptions) resolve() (DialOptions, error) {
	var d DialOptions
	if o != nil {
		d = *o
	}
	if d.HTTPClient == nil {
		return d, errors.New("acphttp: DialOptions needs an HTTPClient")
	}
	if d.HTTPClient.Jar == nil {
		hc := *d.HTTPClient
		hc.Jar, _ = cookiejar.New(nil) // never fails without options
		d.HTTPClient = &hc
	}
	if d.MaxMessageBytes <= 0 {
		d.MaxMessageBytes = DefaultMaxMessageBytes
	}
	var co acp.ConnOptions
	if d.Conn != nil {
		co = *d.Conn
	}
	co.MaxLineLength = d.MaxMessageBytes
	d.Conn = &co
	return d, nil
}

// DialWebSocket connects to the agent at url (ws:// or wss://, or
// http:// and https://) over the RFD's WebSocket profile and returns the
// connection, whose peer is served by client (nil answers every request
// with [acp.ErrMethodNotFound]). The first request must be initialize. ctx
// bounds the upgrade only; the connection lasts until it is closed or the
// server closes it. An upgrade the server answers with another status
// than 101 fails with a [*StatusError]: 401 ([ErrUnauthorized]) for
// credentials it refuses, 403 ([ErrForbidden]) from a page of another
// origin. Close sends close code 1000; Wait returns nil when the server
// closes with 1000 or 1001, and otherwise an error from which
// [websocket.CloseStatus] reads the code.
//
// ACP v1 does not resume a connection. To reconnect, as the RFD gives
// it: dial a new connection (with the same Header, and an HTTPClient
// whose Jar kept the affinity cookie), send initialize, check
// agentCapabilities.loadSession (or sessionCapabilities.resume), then
// session/load or session/resume each session. Messages sent while
// disconnected are not replayed.
func DialWebSocket(ctx context.Context, url string, client acp.Handler, opts *DialOptions) (*acp.Conn, error) {
	o, err := opts.resolve()
	if err != nil {
		return nil, err
	}
	ws, resp, err := websocket.Dial(ctx, url, &websocket.DialOptions{HTTPClient: o.HTTPClient, HTTPHeader: o.Header})
	if err != nil {
		if resp != nil && resp.StatusCode != http.StatusSwitchingProtocols {
			return nil, newStatusError(resp) // the library keeps 1 KiB of its body
		}
		return nil, err
	}
	ws.SetReadLimit(-1) // readMessage bounds what it keeps, and goes on
	c := &wsClient{ws: ws, max: o.MaxMessageBytes}
	return acp.NewConn(context.WithoutCancel(ctx), c, c, client, o.Conn), nil
}

// wsClient is the MessageReader and writer of a client's WebSocket.
type wsClient struct {
	ws   *websocket.Conn
	max  int // bytes of one message
	buf  *bytes.Buffer
	lr   io.LimitedReader // readMessage's, kept so that a message costs no allocation
	once sync.Once
}

func (c *wsClient) Read([]byte) (int, error) {
	return 0, errors.New("acphttp: Read on a MessageReader")
}

// ReadMessage returns the next text frame; binary frames are skipped, as
// the RFD says. A message over the maximum is skipped and reported as a
// *lines.TooLongError, which the Conn answers.
func (c *wsClient) ReadMessage() ([]byte, error) {
	if c.buf == nil {
		c.buf = bufs.Get().(*bytes.Buffer)
	}
	for {
		c.buf.Reset()
		typ, r, err := c.ws.Reader(context.Background())
		if err == nil && typ != websocket.MessageText {
			_, err = io.Copy(io.Discard, r)
			if err == nil {
				continue
			}
		}
		var tooLong *lines.TooLongError
		if err == nil {
			tooLong, err = readMessage(&c.lr, r, c.buf, c.max)
		}
		if err != nil {
			c.putBuf()
			switch websocket.CloseStatus(err) {
			case websocket.StatusNormalClosure, websocket.StatusGoingAway:
				return nil, io.EOF
			}
			return nil, err
		}
		if tooLong != nil {
			return nil, tooLong
		}
		return c.buf.Bytes(), nil
	}
}

func (c *wsClient) putBuf() {
	if c.buf != nil && c.buf.Cap() <= keepBuf {
		c.buf.Reset()
		bufs.Put(c.buf)
	}
	c.buf = nil
}

func (c *wsClient) Write(line []byte) (int, error) {
	if err := c.ws.Write(context.Background(), websocket.MessageText, bytes.TrimSuffix(line, []byte("\n"))); err != nil {
		return 0, err
	}
	return len(line), nil
}

// Close closes the socket with code 1000.
func (c *wsClient) Close() error {
	c.once.Do(func() { c.ws.Close(websocket.StatusNormalClosure, "") })
	return nil
}
