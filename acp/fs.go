package acp

import "encoding/json"

// This file holds the fs/* methods, with which an agent reads and writes
// files through the client, seeing the editor's unsaved changes.

// ReadTextFileParams are the params of fs/read_text_file, which an agent
// may send only if the client declared fs.readTextFile.
type ReadTextFileParams struct {
	SessionID string `json:"sessionId"`
	// Path is absolute.
	Path string `json:"path"`
	// Line is the 1-based line to start at; nil means the first.
	Line *uint64 `json:"line,omitempty"`
	// Limit is the maximum number of lines; nil means all.
	Limit *uint64         `json:"limit,omitempty"`
	Meta  json.RawMessage `json:"_meta,omitempty"`
}

// UnmarshalJSON decodes the params with the rules of [DecodeParams]; null
// leaves p unchanged.
func (p *ReadTextFileParams) UnmarshalJSON(data []byte) error { return unmarshalParams(data, p) }

func (p *ReadTextFileParams) decodeParams(f *fields) {
	f.str("sessionId", &p.SessionID, true)
	f.str("path", &p.Path, true)
	f.optUint("line", &p.Line)
	f.optUint("limit", &p.Limit)
	f.meta(&p.Meta)
}

// ReadTextFileResult is the result of fs/read_text_file.
type ReadTextFileResult struct {
	Content string          `json:"content" acp:"required"`
	Meta    json.RawMessage `json:"_meta,omitempty"`
}

// WriteTextFileParams are the params of fs/write_text_file, which an agent
// may send only if the client declared fs.writeTextFile.
type WriteTextFileParams struct {
	SessionID string `json:"sessionId"`
	// Path is absolute.
	Path    string          `json:"path"`
	Content string          `json:"content"`
	Meta    json.RawMessage `json:"_meta,omitempty"`
}

// UnmarshalJSON decodes the params with the rules of [DecodeParams]; null
// leaves p unchanged.
func (p *WriteTextFileParams) UnmarshalJSON(data []byte) error { return unmarshalParams(data, p) }

func (p *WriteTextFileParams) decodeParams(f *fields) {
	f.str("sessionId", &p.SessionID, true)
	f.str("path", &p.Path, true)
	f.str("content", &p.Content, true)
	f.meta(&p.Meta)
}
