package acpv2

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"

	"github.com/acpkit/acpkit/acp"
)

// A Client is a client's side of one connection, for a client that speaks
// both versions: it asks the agent for ACP v2 and falls back to v1 when
// the agent answers 1, as a v1 agent does, and serves what the agent
// sends with the v1 or the v2 handler accordingly. It is an
// [acp.Handler]:
//
//	client := acpv2.NewClient(v1Handler, v2Handler)
//	conn := acp.NewConn(ctx, agentStdout, agentStdin, client, nil)
//	agent, err := client.Initialize(ctx, conn, v2Params, v1Params)
//	if agent.Version == 1 { … acp.SessionNew.Call(ctx, conn, …) }
//
// Until Initialize has learnt the agent's version, a request from the
// agent is answered [acp.ErrMethodNotFound] and a notification dropped.
// Its methods are safe for concurrent use.
//
// Experimental: ACP v2 is a draft, and this follows it: it may change
// incompatibly, or be removed, in any release.
type Client struct {
	v1, v2  acp.Handler
	version atomic.Int32 // the agent's, once known; 0 before
}

// NewClient returns a Client serving what a v1 agent sends with v1 and
// what a v2 agent sends with v2; either may be nil, which answers every
// request [acp.ErrMethodNotFound] and ignores notifications, as for
// [acp.NewConn].
//
// Experimental: ACP v2 is a draft, and this follows it: it may change
// incompatibly, or be removed, in any release.
func NewClient(v1, v2 acp.Handler) *Client { return &Client{v1: v1, v2: v2} }

// Negotiated is what [Client.Initialize] found: the version the agent
// speaks and its initialize result in that version.
//
// Experimental: ACP v2 is a draft, and this follows it: it may change
// incompatibly, or be removed, in any release.
type Negotiated struct {
	// Version is 2, or 1 when the agent speaks only ACP v1.
	Version int
	// V2 is the agent's result when Version is 2, zero otherwise.
	V2 InitializeResult
	// V1 is the agent's result when Version is 1, zero otherwise.
	V1 acp.InitializeResult
}

// Initialize initializes conn, the connection c serves: it asks for ACP v2
// with v2 (its ProtocolVersion set to 2) and, when the agent answers
// version 1, initializes again in v1 with v1 (its ProtocolVersion set to
// 1), so that the v1 agent knows the client's v1 capabilities, and
// returns that result. An agent that answers another version, or a
// result that is not valid in its version, is an error (matching
// [acp.ErrInvalidResponse] for the latter); the caller should then close
// the connection. Other errors are those of [acp.Method.Call].
func (c *Client) Initialize(ctx context.Context, conn *acp.Conn, v2 InitializeParams, v1 acp.InitializeParams) (Negotiated, error) {
	v2.ProtocolVersion = ProtocolVersion
	raw, err := conn.Request(ctx, Initialize.Name, v2)
	if err != nil {
		return Negotiated{}, err
	}
	answered, err := acp.DecodeResult[struct {
		ProtocolVersion int `json:"protocolVersion" acp:"required"`
	}](raw)
	if err != nil {
		return Negotiated{}, err
	}
	switch answered.ProtocolVersion {
	case ProtocolVersion:
		r, err := acp.DecodeResult[InitializeResult](raw)
		if err != nil {
			return Negotiated{}, err
		}
		c.version.Store(ProtocolVersion)
		return Negotiated{Version: ProtocolVersion, V2: r}, nil
	case 1:
		c.version.Store(1)
		v1.ProtocolVersion = 1
		r, err := acp.Initialize.Call(ctx, conn, v1)
		if err != nil {
			return Negotiated{}, err
		}
		if r.ProtocolVersion != 1 {
			return Negotiated{}, fmt.Errorf("acpv2: the agent answered protocol version 1, then %d", r.ProtocolVersion)
		}
		return Negotiated{Version: 1, V1: r}, nil
	}
	return Negotiated{}, fmt.Errorf("acpv2: the agent answered protocol version %d, which this package does not speak", answered.ProtocolVersion)
}

// Version returns the agent's protocol version, 1 or 2, once
// [Client.Initialize] has learnt it, and 0 before.
func (c *Client) Version() int { return int(c.version.Load()) }

func (c *Client) handler() (acp.Handler, bool) {
	switch c.version.Load() {
	case ProtocolVersion:
		return c.v2, true
	case 1:
		return c.v1, true
	}
	return nil, false
}

// HandleRequest passes a request from the agent to the handler of its
// version.
func (c *Client) HandleRequest(ctx context.Context, conn *acp.Conn, method string, params json.RawMessage) (any, error) {
	h, ok := c.handler()
	if !ok || h == nil {
		return nil, acp.ErrMethodNotFound
	}
	return h.HandleRequest(ctx, conn, method, params)
}

// HandleNotification passes a notification from the agent to the handler
// of its version.
func (c *Client) HandleNotification(ctx context.Context, conn *acp.Conn, method string, params json.RawMessage) {
	if h, ok := c.handler(); ok && h != nil {
		h.HandleNotification(ctx, conn, method, params)
	}
}
