package acp

import (
	"testing"

	"github.com/acpkit/acpkit/internal/schematest"
)

// The schema-driven tests (internal/schematest) run over the schema files
// vendored under schema/ (see its README).

// layer is the package's schema layer, as the schema-driven tests see it.
var layer = schematest.Layer{
	Dir:             "schema",
	Methods:         layerMethods(),
	HandWritten:     map[string]string{SessionSetModel.Name: "legacy, in no edition of the schema"},
	Codecs:          codecs,
	NotRoundTripped: notRoundTripped,
	AlternativeKeys: alternativeKeys,
	InvalidField:    InvalidField,
}

func layerMethods() []schematest.Method {
	var out []schematest.Method
	for _, m := range methods {
		params, result := m.types()
		out = append(out, schematest.Method{Name: m.name(), Notification: result == nil, Params: params, Result: result})
	}
	return out
}

func TestSchemaMethods(t *testing.T)   { layer.CheckMethods(t) }
func TestSchemaStability(t *testing.T) { layer.CheckStability(t) }
func TestSchemaRoundTrip(t *testing.T) { layer.CheckRoundTrip(t) }

// TestSchemaUnionTypes checks that every variant of the schema's tagged
// unions read as interfaces has a variant type.
func TestSchemaUnionTypes(t *testing.T) {
	layer.CheckUnionTags(t, map[string]schematest.Union{
		"SessionUpdate": {Key: "sessionUpdate", Unknown: func(raw []byte) (bool, error) {
			u, err := decodeUpdate(raw, "update")
			_, unknown := u.(UnknownUpdate)
			return unknown, err
		}},
		"ContentBlock": {Key: "type", Unknown: func(raw []byte) (bool, error) {
			c, err := decodeContentBlock(raw, "content")
			_, u := c.(UnknownContent)
			return u, err
		}},
		"ToolCallContent": {Key: "type", Unknown: unionIsUnknown(readToolCallContent, func(v ToolCallContent) bool { _, u := v.(UnknownToolCallContent); return u })},
		"McpServer":       {Key: "type", Unknown: unionIsUnknown(readMCPServer, func(v MCPServer) bool { _, u := v.(UnknownMCPServer); return u })},
		"StateUpdate":     {Key: "state", Unknown: unionIsUnknown(readStateUpdate, func(v StateUpdate) bool { _, u := v.(OtherStateUpdate); return u })},
		"ElicitationPropertySchema": {Key: "type", Unknown: unionIsUnknown(readElicitationPropertySchema, func(v ElicitationPropertySchema) bool {
			_, u := v.(UnknownPropertySchema)
			return u
		})},
		"MultiSelectItems": {Key: "type", Unknown: unionIsUnknown(readMultiSelectItems, func(v MultiSelectItems) bool { _, u := v.(UnknownMultiSelectItems); return u })},
	})
}

func unionIsUnknown[T any](read func(*wireFields) T, unknown func(T) bool) func([]byte) (bool, error) {
	return func(raw []byte) (bool, error) {
		v, err := readUnionValue(raw, read)
		return unknown(v), err
	}
}

func methodCodec[P, R any](m Method[P, R]) schematest.Codec {
	return schematest.Codec{
		Params: func(raw []byte) ([][]byte, error) {
			p, err := DecodeParams[P](raw)
			if err != nil {
				return nil, err
			}
			return schematest.Encodings(p, "params", func() ([]byte, error) { return MarshalRequest(IntID(1), m.Name, p) })
		},
		Result: func(raw []byte) ([][]byte, error) {
			r, err := DecodeResult[R](raw)
			if err != nil {
				return nil, err
			}
			return schematest.Encodings(r, "result", func() ([]byte, error) { return MarshalResponse(IntID(1), r) })
		},
	}
}

func notificationCodec[P any](n Notification[P]) schematest.Codec {
	return schematest.Codec{Params: func(raw []byte) ([][]byte, error) {
		p, err := DecodeParams[P](raw)
		if err != nil {
			return nil, err
		}
		return schematest.Encodings(p, "params", func() ([]byte, error) { return MarshalNotification(n.Name, p) })
	}}
}

// codecs maps each method of the package to its codec: the table from the
// schema's x-method names to the Go types. A notification is keyed by its
// name and " notification", since mcp/message is both.
var codecs = map[string]schematest.Codec{
	Initialize.Name:                                   methodCodec(Initialize),
	Authenticate.Name:                                 methodCodec(Authenticate),
	Logout.Name:                                       methodCodec(Logout),
	AuthStatus.Name:                                   methodCodec(AuthStatus),
	ProvidersList.Name:                                methodCodec(ProvidersList),
	ProvidersSet.Name:                                 methodCodec(ProvidersSet),
	ProvidersDisable.Name:                             methodCodec(ProvidersDisable),
	SessionNew.Name:                                   methodCodec(SessionNew),
	SessionLoad.Name:                                  methodCodec(SessionLoad),
	SessionResume.Name:                                methodCodec(SessionResume),
	SessionList.Name:                                  methodCodec(SessionList),
	SessionDelete.Name:                                methodCodec(SessionDelete),
	SessionClose.Name:                                 methodCodec(SessionClose),
	SessionArchive.Name:                               methodCodec(SessionArchive),
	SessionUnarchive.Name:                             methodCodec(SessionUnarchive),
	SessionStatus.Name:                                methodCodec(SessionStatus),
	SessionSetTitle.Name:                              methodCodec(SessionSetTitle),
	SessionSetMode.Name:                               methodCodec(SessionSetMode),
	SessionSetConfigOption.Name:                       methodCodec(SessionSetConfigOption),
	SessionPrompt.Name:                                methodCodec(SessionPrompt),
	SessionCancel.Name + " notification":              notificationCodec(SessionCancel),
	SessionFork.Name:                                  methodCodec(SessionFork),
	SessionSetModel.Name:                              methodCodec(SessionSetModel),
	SessionUpdate.Name + " notification":              notificationCodec(SessionUpdate),
	SessionRequestPermission.Name:                     methodCodec(SessionRequestPermission),
	FSReadTextFile.Name:                               methodCodec(FSReadTextFile),
	FSWriteTextFile.Name:                              methodCodec(FSWriteTextFile),
	TerminalCreate.Name:                               methodCodec(TerminalCreate),
	TerminalOutput.Name:                               methodCodec(TerminalOutput),
	TerminalRelease.Name:                              methodCodec(TerminalRelease),
	TerminalWaitForExit.Name:                          methodCodec(TerminalWaitForExit),
	TerminalKill.Name:                                 methodCodec(TerminalKill),
	ElicitationCreate.Name:                            methodCodec(ElicitationCreate),
	ElicitationComplete.Name + " notification":        notificationCodec(ElicitationComplete),
	AuthStatusUpdate.Name + " notification":           notificationCodec(AuthStatusUpdate),
	MCPMessage.Name:                                   methodCodec(MCPMessage),
	MCPMessageNotification.Name + " notification":     notificationCodec(MCPMessageNotification),
	CancelRequest.Name + " notification":              notificationCodec(CancelRequest),
	ProxyInitialize.Name:                              methodCodec(ProxyInitialize),
	ProxySuccessor.Name:                               methodCodec(ProxySuccessor),
	ProxySuccessorNotification.Name + " notification": notificationCodec(ProxySuccessorNotification),
}

// notRoundTripped lists the schema types no method's params or result
// reaches, with the reason the test leaves them out. The test fails when
// a type of the schema is neither reached nor listed, and when a listed
// type is reached or gone.
var notRoundTripped = map[string]string{
	"AgentRequest":       "the union of requests: the envelope, read by Classify",
	"AgentResponse":      "the union of responses: the envelope, read by Classify",
	"AgentNotification":  "the union of notifications: the envelope, read by Classify",
	"ClientRequest":      "the union of requests: the envelope, read by Classify",
	"ClientResponse":     "the union of responses: the envelope, read by Classify",
	"ClientNotification": "the union of notifications: the envelope, read by Classify",
	"ProxyRequest":       "the union of requests: the envelope, read by Classify",
	"ProxyResponse":      "the union of responses: the envelope, read by Classify",
	"ProxyNotification":  "the union of notifications: the envelope, read by Classify",
	"ExtRequest":         "an extension method's params: opaque to the package",
	"ExtResponse":        "an extension method's result: opaque to the package",
	"ExtNotification":    "an extension notification's params: opaque to the package",
}

// alternativeKeys maps the paths of members that tell a union's
// alternatives apart by being present to the member the decoder may name
// instead when one is absent: the other alternative's, which it then
// reads.
var alternativeKeys = map[string]string{
	"CreateElicitationRequest .requestId": ".sessionId", // a request scope, or a session scope
	"MessageMcpResponse .error":           ".result",    // an inner error, or an inner result
}
