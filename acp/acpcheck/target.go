package acpcheck

import (
	"context"
	"errors"
	"io"
	"net/http"
	"time"
)

// A Target is the agent the suite checks, and how to reach it: over stdio
// ([Stdio]) or at a URL ([Remote]). The suite opens several connections
// to it, each with a fresh initialize, so that a check that breaks one
// leaves the others alone. Package
// [github.com/acpkit/acpkit/acp/acpcheck/acpcheckos] makes the Targets
// that need the operating system: an agent started as a command, and a
// URL dialled with a real HTTP client.
type Target interface {
	// String names the target in the report.
	String() string
	target() *targetSpec
}

// targetSpec is what every Target is: its kinds differ in how they open a
// connection.
type targetSpec struct {
	name   string
	clock  Clock
	start  func(ctx context.Context) (Process, error) // stdio
	remote *RemoteOptions                             // remote
	url    string
}

func (s *targetSpec) String() string      { return s.name }
func (s *targetSpec) target() *targetSpec { return s }

// A Process is one run of an agent that speaks ACP on its standard input
// and output: the suite writes to it and reads from it, and Close ends it.
type Process interface {
	// Read reads the agent's standard output.
	io.Reader
	// Write writes to the agent's standard input.
	io.Writer
	// Close closes the agent's standard input, which asks it to exit, and
	// makes it exit if it does not do so promptly; it returns once the
	// agent has exited and a Read in progress has returned. It is called
	// once.
	Close() error
}

// A Clock times the suite's limits (each check's [Options].Timeout). It
// has the shape of [github.com/acpkit/acpkit/acp/acphttp.Clock], so one
// value serves both.
type Clock interface {
	// AfterFunc calls f in its own goroutine after d; stop cancels the
	// call and reports whether it did.
	AfterFunc(d time.Duration, f func()) (stop func() bool)
}

// Stdio returns a Target reached over stdio: start runs the agent once for
// each connection the suite opens, and name (its command line, say) names
// it in the report. clock times the checks when [Options].Clock is nil;
// it may be nil too, which leaves them bounded by their context alone.
// Its checks include those of framing, which read the agent's output
// byte by byte.
func Stdio(name string, start func(ctx context.Context) (Process, error), clock Clock) Target {
	return &targetSpec{name: name, clock: clock, start: start}
}

// Transport is a profile of ACP's remote transport.
type Transport string

// The remote transports of the "Streamable HTTP & WebSocket Transport"
// RFD, as package acphttp dials them.
const (
	WebSocket      Transport = "websocket"
	StreamableHTTP Transport = "streamable-http"
)

// RemoteOptions says how to reach a remote agent.
type RemoteOptions struct {
	// Transport is the profile the suite's connections use; both are
	// served at one URL, so the remote checks probe both whatever it is.
	// Empty means WebSocket.
	Transport Transport
	// HTTPClient makes every request; it is required. Its Jar, if any, is
	// replaced on each connection, which gets a jar of its own.
	HTTPClient *http.Client
	// Header is sent with every request of the suite's connections: the
	// credentials, typically "Authorization: Bearer TOKEN". The check of
	// authentication sends the requests without it.
	Header http.Header
	// Clock times the checks when [Options].Clock is nil; nil leaves them
	// bounded by their context alone.
	Clock Clock
}

// Remote returns a Target at url, an http:// or https:// address of an
// ACP endpoint (/acp by convention), dialled as opts says with package
// acphttp's clients. Besides the protocol's checks, its suite holds the
// remote transport's: authentication, origin, isolation between
// connections, and the statuses the RFD gives its refusals. Checks that
// write bytes a message cannot carry (framing, malformed JSON) are
// skipped.
func Remote(url string, opts RemoteOptions) Target {
	if opts.Transport == "" {
		opts.Transport = WebSocket
	}
	return &targetSpec{name: url + " (" + string(opts.Transport) + ")", clock: opts.Clock, remote: &opts, url: url}
}

// errNoHTTPClient is the setup error of a Remote target without one.
var errNoHTTPClient = errors.New("acpcheck: RemoteOptions.HTTPClient is required")
