// Package serveacp serves an ACP agent remotely for the example programs:
// it listens on an address, serves package acphttp's Server at /acp over
// HTTP/1.1 and cleartext HTTP/2, and shuts down gracefully. It holds what
// a program needs from the OS (a listener, a token file, the clock), so
// that acphttp stays pure and the programs stay thin.
package serveacp

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
	// TOKEN". Without it, Addr must be a loopback address.
	TokenFile string
	// Agent serves each connection.
	Agent acp.Handler
	// Logger receives the server's logs; it also says where it listens.
	Logger *slog.Logger
	// MaxMessageBytes bounds one message from a client; 0 is acphttp's
	// default.
	MaxMessageBytes int
	// Conn configures each connection's acp.Conn; nil gives its defaults.
	Conn *acp.ConnOptions
}

// Clock is the real time, for acphttp's limits.
type Clock struct{}

// AfterFunc is time.AfterFunc.
func (Clock) AfterFunc(d time.Duration, f func()) func() bool { return time.AfterFunc(d, f).Stop }

// Serve serves cfg.Agent at http://Addr/acp until ctx ends, then shuts
// down gracefully: prompts in progress are answered "cancelled" (within
// ShutdownGrace) and the streams and sockets closed. It logs the URL it
// serves at Info as "serving ACP" with url=….
func Serve(ctx context.Context, cfg Config) error {
	auth, err := authenticator(cfg.TokenFile, cfg.Addr)
	if err != nil {
		return err
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	srv, err := acphttp.NewServer(func(*acphttp.Connection) acp.Handler { return cfg.Agent }, &acphttp.ServerOptions{Authenticate: auth, Clock: Clock{}, Logger: log, Conn: cfg.Conn, MaxMessageBytes: cfg.MaxMessageBytes})
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
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
