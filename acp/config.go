package acp

import (
	"bytes"
	"encoding/json"
)

// This file holds session configuration options: the config_option_update
// session update and what session/new and session/set_config_option return.

// ConfigOptionUpdate reports the full set of session configuration options
// and their current values.
type ConfigOptionUpdate struct {
	ConfigOptions []SessionConfigOption `json:"configOptions"`
	Meta          json.RawMessage       `json:"_meta,omitempty"`
}

// SessionConfigOption is a session setting the user can change with
// session/set_config_option, such as the model or the mode.
type SessionConfigOption struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	// Category is a UX hint: "mode", "model", "model_config",
	// "thought_level", or a name starting with "_"; "" means none.
	Category string `json:"category,omitempty"`
	// Type is the kind of control: [ConfigOptionSelect] (CurrentValue and
	// Options), [ConfigOptionBoolean] (CurrentBool), or another kind kept in Raw.
	Type string `json:"type"`
	// CurrentValue is the id of the selected value of a select option.
	CurrentValue string `json:"currentValue"`
	// Options holds a select option's values as sent: an array of
	// {value, name, description?} or of groups {group, name, options}.
	Options json.RawMessage `json:"options"`
	// CurrentBool is the value of a boolean option.
	CurrentBool bool            `json:"-"`
	Meta        json.RawMessage `json:"_meta,omitempty"`
	// Raw is the whole option as received when Type is neither select nor
	// boolean; MarshalJSON sends it unchanged.
	Raw json.RawMessage `json:"-"`
}

// The kinds of [SessionConfigOption] this package reads member by member.
const (
	ConfigOptionSelect  = "select"
	ConfigOptionBoolean = "boolean"
)

// MarshalJSON encodes the option with the members of its Type: a select
// option's currentValue is its id and options an array (nil is sent as
// []), a boolean option's currentValue is true or false, and an option of
// another type is Raw unchanged.
func (o SessionConfigOption) MarshalJSON() ([]byte, error) {
	type common struct {
		ID          string `json:"id"`
		Name        string `json:"name"`
		Description string `json:"description,omitempty"`
		Category    string `json:"category,omitempty"`
		Type        string `json:"type"`
	}
	c := common{o.ID, o.Name, o.Description, o.Category, o.Type}
	switch o.Type {
	case ConfigOptionSelect:
		opts := o.Options
		if len(opts) == 0 {
			opts = json.RawMessage("[]")
		}
		return json.Marshal(struct {
			common
			CurrentValue string          `json:"currentValue"`
			Options      json.RawMessage `json:"options"`
			Meta         json.RawMessage `json:"_meta,omitempty"`
		}{c, o.CurrentValue, opts, o.Meta})
	case ConfigOptionBoolean:
		return json.Marshal(struct {
			common
			CurrentValue bool            `json:"currentValue"`
			Meta         json.RawMessage `json:"_meta,omitempty"`
		}{c, o.CurrentBool, o.Meta})
	}
	if len(o.Raw) == 0 {
		return json.Marshal(struct {
			common
			Meta json.RawMessage `json:"_meta,omitempty"`
		}{c, o.Meta})
	}
	return o.Raw, nil
}

// UnmarshalJSON decodes the option with the checks of [DecodeParams]; null
// leaves o unchanged.
func (o *SessionConfigOption) UnmarshalJSON(data []byte) error {
	if isNull(data) {
		return nil
	}
	var v SessionConfigOption
	f := readFields(data, "")
	if f.err == nil {
		decodeConfigOption(f, &v)
	}
	if f.err != nil {
		return invalidParams(f.err)
	}
	*o = v
	return nil
}

// MarshalJSON encodes the update with "sessionUpdate":"config_option_update";
// nil ConfigOptions is sent as [].
func (u ConfigOptionUpdate) MarshalJSON() ([]byte, error) {
	type plain ConfigOptionUpdate
	p := plain(u)
	p.ConfigOptions = nonNil(p.ConfigOptions)
	return marshalTagged(updateTag, u.updateKind(), p)
}

func decodeConfigOption(f *fields, o *SessionConfigOption) {
	f.str("id", &o.ID, true)
	f.str("name", &o.Name, true)
	f.str("description", &o.Description, false)
	f.str("category", &o.Category, false)
	f.str("type", &o.Type, true)
	switch o.Type {
	case ConfigOptionSelect:
		f.str("currentValue", &o.CurrentValue, true)
		f.raw("options", &o.Options)
		if f.err == nil && (o.Options == nil || o.Options[0] != '[') {
			f.fail("options", "must be an array")
		}
	case ConfigOptionBoolean:
		f.boolean("currentValue", &o.CurrentBool, true)
	default:
		// A kind this package does not know: keep it whole.
		if f.err == nil {
			o.Raw = bytes.Clone(f.src)
		}
	}
	f.meta(&o.Meta)
}
