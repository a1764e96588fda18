package acp

import (
	"encoding/json"

	"github.com/acpkit/acpkit/internal/wire"
)

// SetSessionConfigOptionParams are the params of [SessionSetConfigOption]
// (session/set_config_option). They are written by hand: the schema
// makes the value a union of a value id and of a boolean tagged with
// "type":"boolean", which reads best as two fields.
type SetSessionConfigOptionParams struct {
	SessionID string `json:"sessionId"`
	// ConfigID is the option to change.
	ConfigID string `json:"configId"`
	// Value is the id of one of a select option's values; unused when
	// BoolValue is set.
	Value string `json:"value"`
	// BoolValue is the new value of a boolean option, sent as
	// {"type":"boolean","value":…}, for a client that declared boolean
	// options; nil means the value is the id Value.
	BoolValue *bool           `json:"-"`
	Meta      json.RawMessage `json:"_meta,omitempty"`
}

// UnmarshalJSON decodes the params with the rules of [DecodeParams]; null
// leaves p unchanged.
func (p *SetSessionConfigOptionParams) UnmarshalJSON(data []byte) error {
	return wire.UnmarshalParams(data, p, (*SetSessionConfigOptionParams).decodeFields)
}

// MarshalJSON encodes Value as the value id, or BoolValue with
// "type":"boolean" when it is set.
func (p SetSessionConfigOptionParams) MarshalJSON() ([]byte, error) { return marshal(p) }

func (p *SetSessionConfigOptionParams) decodeFields(f *wire.Fields) {
	f.String("sessionId", &p.SessionID, wire.Required)
	f.String("configId", &p.ConfigID, wire.Required)
	// The type member names the value's shape; absent or any other type
	// means a value id, as in the schema.
	var typ string
	f.String("type", &typ, wire.Optional)
	if typ == ConfigOptionBoolean {
		var b bool
		if f.Bool("value", &b, wire.Required) {
			p.BoolValue = &b
		}
	} else {
		f.String("value", &p.Value, wire.Required)
	}
	f.Meta(&p.Meta)
}

func (p SetSessionConfigOptionParams) appendJSON(e *wire.Encoder) {
	e.Open()
	e.Key("sessionId")
	e.String(p.SessionID)
	e.Key("configId")
	e.String(p.ConfigID)
	if p.BoolValue != nil {
		e.Key("type")
		e.String(ConfigOptionBoolean)
		e.Key("value")
		e.Bool(*p.BoolValue)
	} else {
		e.Key("value")
		e.String(p.Value)
	}
	e.Meta(p.Meta)
	e.Close()
}
