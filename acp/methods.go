package acp

import (
	"encoding/json"

	"github.com/acpkit/acpkit/internal/wire"
)

// ProtocolVersion is the latest ACP protocol version this package speaks.
// ACP versions are integers; version 1 is the first stable one.
const ProtocolVersion = 1

// NegotiateVersion returns the protocol version an agent answers initialize
// with: the client's version when this package supports it, else the latest
// version it supports ([ProtocolVersion]), which the client may then reject
// by disconnecting. Only version 1 is supported.
func NegotiateVersion(clientVersion int) int {
	if clientVersion == ProtocolVersion { // the only version supported
		return clientVersion
	}
	return ProtocolVersion
}

// SessionSetModel is the legacy session/set_model, which switches a
// session's model. It is written by hand: no edition of ACP's schema has
// it, as it predates session/set_config_option, but clients still send
// it. Unstable: it may be removed from the protocol.
var SessionSetModel = Method[SetSessionModelParams, SetSessionModelResult]{Name: "session/set_model"}

// SetSessionModelParams are the params of [SessionSetModel]
// (session/set_model).
type SetSessionModelParams struct {
	SessionID string          `json:"sessionId"`
	ModelID   string          `json:"modelId"`
	Meta      json.RawMessage `json:"_meta,omitempty"`
}

func (p *SetSessionModelParams) decodeFields(f *wire.Fields) {
	f.String("sessionId", &p.SessionID, wire.Required)
	f.String("modelId", &p.ModelID, wire.Required)
	f.Meta(&p.Meta)
}

func (p SetSessionModelParams) appendJSON(e *wire.Encoder) {
	e.Open()
	e.Key("sessionId")
	e.String(p.SessionID)
	e.Key("modelId")
	e.String(p.ModelID)
	e.Meta(p.Meta)
	e.Close()
}

// UnmarshalJSON decodes p with the rules of [DecodeParams]; null leaves p
// unchanged.
func (p *SetSessionModelParams) UnmarshalJSON(data []byte) error {
	return wire.UnmarshalParams(data, p, (*SetSessionModelParams).decodeFields)
}

// SetSessionModelResult is the result of [SessionSetModel]
// (session/set_model).
type SetSessionModelResult struct {
	Meta json.RawMessage `json:"_meta,omitempty"`
}

func (r *SetSessionModelResult) decodeFields(f *wire.Fields) { f.Meta(&r.Meta) }

func (r SetSessionModelResult) appendJSON(e *wire.Encoder) {
	e.Open()
	e.Meta(r.Meta)
	e.Close()
}

// methods lists every method value of the package.
var methods = append(schemaMethods[:len(schemaMethods):len(schemaMethods)], SessionSetModel)

// knownMethods maps the name of each method value to itself, so that
// [Classify] returns the same string for every line naming it, without
// allocating.
var knownMethods = func() map[string]string {
	m := make(map[string]string, len(methods))
	for _, v := range methods {
		m[v.name()] = v.name()
	}
	return m
}()
