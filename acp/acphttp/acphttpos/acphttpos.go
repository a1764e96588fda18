package acphttpos

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/acp/acphttp"
)

// ShutdownGrace bounds how long a shutdown waits for prompts in progress
// to answer "cancelled" before the connections are closed anyway.
const ShutdownGrace = 5 * time.Second

// Config says what to serve, and where.
type Config struct {
	// Addr is the address to listen on, host:port; port 0 picks one.
	Addr string
	// TokenFile, if set, names a file whose contents, without surrounding
	// white space, every request must carry as "Authorization: Bearer
	// TOKEN"; every caller is then the same, anonymous [acphttp.Caller].
	// Without it, Addr must be a loopback address.
	TokenFile string
	// NewHandler makes the handler of each connection; see
	// [acphttp.NewServer]. It may return the same acp.Methods every time.
	NewHandler func(*acphttp.Connection) acp.Handler
	// Logger receives the server's logs, and says where it listens. Nil
	// means silent.
	Logger *slog.Logger
	// MaxMessageBytes bounds one message from a client; 0 is acphttp's
	// default.
	MaxMessageBytes int
	// Conn configures each connection's acp.Conn; nil gives its defaults.
	Conn *acp.ConnOptions
}

// Clock is the real time, for the limits of an [acphttp.Server].
type Clock struct{}

// AfterFunc is [time.AfterFunc]'s, returning its Timer's Stop.
func (Clock) AfterFunc(d time.Duration, f func()) (stop func() bool) {
	return time.AfterFunc(d, f).Stop
}

// Serve serves cfg.NewHandler's handlers at http://Addr/acp, over
// WebSocket and Streamable HTTP, until ctx ends, then shuts down
// gracefully: prompts in progress are answered "cancelled" (within
// ShutdownGrace) and the streams and sockets closed; it then returns nil.
// It returns an error when it cannot serve: a bad Addr, a token file it
// cannot read or that is empty, no token for an address other than
// loopback, or a listener that fails. It logs the URL it serves at Info,
// as "serving ACP" with url=….
func Serve(ctx context.Context, cfg Config) error {
	auth, err := authenticator(cfg.TokenFile, cfg.Addr)
	if err != nil {
		return err
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	srv, err := acphttp.NewServer(cfg.NewHandler, &acphttp.ServerOptions{Authenticate: auth, Clock: Clock{}, Logger: log, Conn: cfg.Conn, MaxMessageBytes: cfg.MaxMessageBytes})
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		srv.Close()
		return err
	}
	mux := http.NewServeMux()
	mux.Handle("/acp", srv)
	var protocols http.Protocols
	protocols.SetHTTP1(true)
	protocols.SetUnencryptedHTTP2(true)
	hs := &http.Server{
		Handler:           mux,
		Protocols:         &protocols,
		ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	log.Info("serving ACP", "url", "http://"+ln.Addr().String()+"/acp", "authentication", cfg.TokenFile != "")
	select {
	case err := <-served:
		srv.Close()
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), ShutdownGrace)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		log.Warn("shutting down ACP connections", "error", err)
	}
	if err := hs.Shutdown(sctx); err != nil {
		hs.Close()
	}
	<-served
	return nil
}

// authenticator reads the token file, or checks that an unauthenticated
// server listens only on loopback.
func authenticator(tokenFile, addr string) (acphttp.Authenticator, error) {
	if tokenFile == "" {
		host, _, err := net.SplitHostPort(addr)
		if err != nil {
			return nil, err
		}
		if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
			return nil, fmt.Errorf("serving on %s without a token would let anyone who reaches it run the agent: give a token file, or listen on a loopback address", addr)
		}
		return acphttp.NoAuthentication, nil
	}
	b, err := os.ReadFile(tokenFile)
	if err != nil {
		return nil, err
	}
	token := strings.TrimSpace(string(b))
	if token == "" {
		return nil, errors.New("the token file " + tokenFile + " is empty")
	}
	return acphttp.BearerToken(token), nil
}
