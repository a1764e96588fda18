package acphttp

import (
	"strings"

	"github.com/tidwall/gjson"
)

// kind is what an inbound message is, as far as the transport needs to
// know: the Conn behind it checks the rest.
type kind int

const (
	kindInvalid kind = iota // not a JSON object; the Conn answers it
	kindRequest
	kindNotification
	kindResponse
)

// message is what the transport reads of a message a client sent.
type message struct {
	kind   kind
	id     string // the raw id of a request or response
	method string
	// session is params.sessionId. ambiguous is set when params hold more
	// than one member that a decoder could take for it (a repeated name,
	// or one in another case, which encoding/json matches), or one that is
	// not a string, or when the message has a member that encoding/json
	// would take for id, method or params. Such a message is refused: the
	// transport and the agent must not read two different sessions from
	// it.
	session   string
	ambiguous bool
}

// inspect reads msg's id, method and params.sessionId as the acp package
// does: names unescaped, and of a repeated name the last wins.
func inspect(msg []byte) message {
	var m message
	root := gjson.ParseBytes(msg)
	if !root.IsObject() {
		return m
	}
	var id, method, params, result, errv gjson.Result
	root.ForEach(func(k, v gjson.Result) bool {
		for _, name := range [...]string{"id", "method", "params"} {
			if k.Str != name && strings.EqualFold(k.Str, name) {
				m.ambiguous = true // encoding/json would read it as name
			}
		}
		switch k.Str {
		case "id":
			id = v
		case "method":
			method = v
		case "params":
			params = v
		case "result":
			result = v
		case "error":
			errv = v
		}
		return true
	})
	switch {
	case method.Exists():
		if method.Type != gjson.String {
			return m
		}
		m.method = method.Str
		m.kind = kindNotification
		if id.Exists() {
			m.kind = kindRequest
			m.id = id.Raw
		}
	case id.Exists() && (result.Exists() || errv.Exists()):
		m.kind = kindResponse
		m.id = id.Raw
		return m
	default:
		return m
	}
	if params.IsObject() {
		n := 0
		params.ForEach(func(k, v gjson.Result) bool {
			if !strings.EqualFold(k.Str, "sessionId") {
				return true
			}
			n++
			if k.Str != "sessionId" || v.Type != gjson.String {
				m.ambiguous = true
			}
			m.session = v.Str
			return true
		})
		if n > 1 {
			m.ambiguous = true
		}
	}
	return m
}

// sessionMethods are the client's requests and notifications that act on
// one session, and so must carry Acp-Session-Id over Streamable HTTP: the
// official SDK's list.
var sessionMethods = map[string]bool{
	"session/cancel":            true,
	"session/close":             true,
	"session/delete":            true,
	"session/fork":              true,
	"session/load":              true,
	"session/prompt":            true,
	"session/resume":            true,
	"session/set_config_option": true,
	"session/set_mode":          true,
	"session/set_model":         true,
}

// attachMethods attach a session the connection does not yet hold: the
// agent decides whether the client may have it.
func attachMethod(method string) bool {
	return method == "session/load" || method == "session/resume"
}

// createMethod reports whether a successful response to method names a
// new session, in result.sessionId.
func createMethod(method string) bool {
	return method == "session/new" || method == "session/fork"
}
