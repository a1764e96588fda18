// Package msghead reads what the first bytes of a JSON-RPC message show,
// for a message too long to read whole, of which the reader that skipped
// it kept only the head (see lines.TooLongError): whether it is a request
// or a response, and its id, so that the request is answered with its id
// and the response fails the request it answers.
//
// The id can be read only when it comes before the long member, as peers
// write it ("jsonrpc", "id", "method", then "params"; "id" before
// "result" or "error"). A message whose id comes after, or whose head is
// cut before its id or method, cannot be told apart: [Read] reports
// [Unknown], and a reply must carry a null id.
package msghead

import "github.com/acpkit/acpkit/internal/jsonscan"

// Kind is what a message's head shows it to be.
type Kind int

const (
	// Unknown: the head does not show a request or a response.
	Unknown Kind = iota
	// Request: the complete members of the head include "method" and
	// "id".
	Request
	// Response: the members before "result" or "error" are complete,
	// include "id" and not "method".
	Response
)

// A Head is what [Read] found.
type Head struct {
	Kind Kind
	// ID is the raw id, set for a Request or a Response: one valid JSON
	// value, a slice of the head (not checked to be a string, a number
	// or null). Of a repeated id, the last in the head wins.
	ID []byte
}

// Read reads b, the start of a message, as the start of a JSON object,
// member by member, until a member is cut off, the object ends, or
// "result" or "error" begins. Member names written with escapes are
// skipped, as Classify in package acp matches names as written.
func Read(b []byte) Head {
	i := jsonscan.SkipSpace(b, 0)
	if i == len(b) || b[i] != '{' {
		return Head{}
	}
	var id []byte
	method := false
	for i = jsonscan.SkipSpace(b, i+1); ; i = jsonscan.SkipSpace(b, i+1) {
		if startsMember(b[i:], "result") || startsMember(b[i:], "error") {
			if id != nil && !method {
				return Head{Kind: Response, ID: id}
			}
			break
		}
		key, escaped, val, next := jsonscan.Member(b, i, jsonscan.MaxDepth-1)
		if next < 0 {
			break
		}
		switch {
		case escaped:
		case string(key) == "id":
			id = val
		case string(key) == "method":
			method = true
		}
		if b[next] == '}' {
			break
		}
		i = next
	}
	if method && id != nil {
		return Head{Kind: Request, ID: id}
	}
	return Head{}
}

// startsMember reports whether b starts with the member name, unescaped,
// and its colon.
func startsMember(b []byte, name string) bool {
	if len(b) < len(name)+2 || b[0] != '"' || string(b[1:len(name)+1]) != name || b[len(name)+1] != '"' {
		return false
	}
	i := jsonscan.SkipSpace(b, len(name)+2)
	return i < len(b) && b[i] == ':'
}
