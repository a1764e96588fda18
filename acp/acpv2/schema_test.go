package acpv2

import (
	"errors"
	"reflect"
	"testing"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/internal/schematest"
	"github.com/acpkit/acpkit/internal/wire"
)

// The schema-driven tests (internal/schematest) run over the schema files
// of ACP v2 under schema/ (see its README), as package acp's run over
// v1's.

// layer is the package's schema layer, as the schema-driven tests see it.
var layer = schematest.Layer{
	Dir:             "schema",
	Methods:         layerMethods(),
	Codecs:          codecs,
	NotRoundTripped: notRoundTripped,
	AlternativeKeys: map[string]string{
		"CreateElicitationRequest .requestId": ".sessionId", // a request scope, or a session scope
		"MessageMcpResponse .error":           ".result",    // an inner error, or an inner result
	},
	InvalidField: acp.InvalidField,
}

// layerMethods describes the method values of schemaMethods: their
// types are those of their Call (or Notify) method's params and results.
func layerMethods() []schematest.Method {
	var out []schematest.Method
	for _, v := range schemaMethods {
		rv := reflect.ValueOf(v)
		m := schematest.Method{Name: rv.FieldByName("Name").String()}
		if call := rv.MethodByName("Call"); call.IsValid() {
			m.Params, m.Result = call.Type().In(2), call.Type().Out(0)
		} else {
			m.Notification, m.Params = true, rv.MethodByName("Notify").Type().In(2)
		}
		out = append(out, m)
	}
	return out
}

func TestSchemaMethods(t *testing.T)   { layer.CheckMethods(t) }
func TestSchemaStability(t *testing.T) { layer.CheckStability(t) }
func TestSchemaRoundTrip(t *testing.T) { layer.CheckRoundTrip(t) }

// TestExperimental checks that every exported declaration's doc comment
// says that it is Experimental.
func TestExperimental(t *testing.T) { schematest.CheckDocsSay(t, "Experimental") }

// TestSchemaUnionTypes checks that every variant of the schema's tagged
// unions read as interfaces has a variant type.
func TestSchemaUnionTypes(t *testing.T) {
	layer.CheckUnionTags(t, map[string]schematest.Union{
		"SessionUpdate":             {Key: "sessionUpdate", Unknown: isUnknown(readUpdate, func(v Update) bool { _, u := v.(UnknownUpdate); return u })},
		"ContentBlock":              {Key: "type", Unknown: isUnknown(readContentBlock, func(v ContentBlock) bool { _, u := v.(UnknownContent); return u })},
		"ToolCallContent":           {Key: "type", Unknown: isUnknown(readToolCallContent, func(v ToolCallContent) bool { _, u := v.(UnknownToolCallContent); return u })},
		"McpServer":                 {Key: "type", Unknown: isUnknown(readMCPServer, func(v MCPServer) bool { _, u := v.(UnknownMCPServer); return u })},
		"StateUpdate":               {Key: "state", Unknown: isUnknown(readStateUpdate, func(v StateUpdate) bool { _, u := v.(OtherStateUpdate); return u })},
		"ElicitationPropertySchema": {Key: "type", Unknown: isUnknown(readElicitationPropertySchema, func(v ElicitationPropertySchema) bool { _, u := v.(UnknownPropertySchema); return u })},
		"MultiSelectItems":          {Key: "type", Unknown: isUnknown(readMultiSelectItems, func(v MultiSelectItems) bool { _, u := v.(UnknownMultiSelectItems); return u })},
		"RequestPermissionSubject":  {Key: "type", Unknown: isUnknown(readRequestPermissionSubject, func(v RequestPermissionSubject) bool { _, u := v.(UnknownPermissionSubject); return u })},
		"AvailableCommandInput":     {Key: "type", Unknown: isUnknown(readAvailableCommandInput, func(v AvailableCommandInput) bool { _, u := v.(UnknownCommandInput); return u })},
		"ReplayFrom":                {Key: "type", Unknown: isUnknown(readReplayFrom, func(v ReplayFrom) bool { _, u := v.(UnknownReplayFrom); return u })},
		"BackgroundWork":            {Key: "type", Unknown: isUnknown(readBackgroundWork, func(v BackgroundWork) bool { _, u := v.(UnknownBackgroundWork); return u })},
	})
}

func isUnknown[T any](read func(*wire.Fields) T, unknown func(T) bool) func([]byte) (bool, error) {
	return func(raw []byte) (bool, error) {
		v, err := wire.ReadUnion(raw, "value", read)
		return unknown(v), err
	}
}

// FuzzSchemaCodecs checks the decoder and encoder of every method's
// params and result on the same bytes, as schematest.Layer.FuzzCodecs
// says.
func FuzzSchemaCodecs(f *testing.F) {
	layer.FuzzCodecs(f, func(err error) bool {
		return errors.Is(err, acp.ErrNotJSON) // decoded, but nested too deep to fit in a line
	}, func(err error) bool {
		_, named := acp.InvalidField(err)
		return named || errors.Is(err, acp.ErrInvalidParams) || errors.Is(err, acp.ErrInvalidResponse)
	})
}

func methodCodec[P, R any](m acp.Method[P, R]) schematest.Codec {
	return schematest.Codec{
		Params: func(raw []byte) ([][]byte, error) {
			p, err := acp.DecodeParams[P](raw)
			if err != nil {
				return nil, err
			}
			return schematest.Encodings(p, "params", func() ([]byte, error) { return acp.MarshalRequest(acp.IntID(1), m.Name, p) })
		},
		Result: func(raw []byte) ([][]byte, error) {
			r, err := acp.DecodeResult[R](raw)
			if err != nil {
				return nil, err
			}
			return schematest.Encodings(r, "result", func() ([]byte, error) { return acp.MarshalResponse(acp.IntID(1), r) })
		},
	}
}

func notificationCodec[P any](n acp.Notification[P]) schematest.Codec {
	return schematest.Codec{Params: func(raw []byte) ([][]byte, error) {
		p, err := acp.DecodeParams[P](raw)
		if err != nil {
			return nil, err
		}
		return schematest.Encodings(p, "params", func() ([]byte, error) { return acp.MarshalNotification(n.Name, p) })
	}}
}

// codecs maps each method of the package to its codec: the table from the
// schema's x-method names to the Go types.
var codecs = map[string]schematest.Codec{
	Initialize.Name:                                   methodCodec(Initialize),
	AuthLogin.Name:                                    methodCodec(AuthLogin),
	AuthLogout.Name:                                   methodCodec(AuthLogout),
	AuthStatus.Name:                                   methodCodec(AuthStatus),
	ProvidersList.Name:                                methodCodec(ProvidersList),
	ProvidersSet.Name:                                 methodCodec(ProvidersSet),
	ProvidersDisable.Name:                             methodCodec(ProvidersDisable),
	SessionNew.Name:                                   methodCodec(SessionNew),
	SessionResume.Name:                                methodCodec(SessionResume),
	SessionList.Name:                                  methodCodec(SessionList),
	SessionDelete.Name:                                methodCodec(SessionDelete),
	SessionClose.Name:                                 methodCodec(SessionClose),
	SessionArchive.Name:                               methodCodec(SessionArchive),
	SessionUnarchive.Name:                             methodCodec(SessionUnarchive),
	SessionStatus.Name:                                methodCodec(SessionStatus),
	SessionSetTitle.Name:                              methodCodec(SessionSetTitle),
	SessionSetConfigOption.Name:                       methodCodec(SessionSetConfigOption),
	SessionPrompt.Name:                                methodCodec(SessionPrompt),
	SessionCancel.Name + " notification":              notificationCodec(SessionCancel),
	SessionFork.Name:                                  methodCodec(SessionFork),
	SessionUpdate.Name + " notification":              notificationCodec(SessionUpdate),
	SessionRequestPermission.Name:                     methodCodec(SessionRequestPermission),
	ToolCallCancel.Name:                               methodCodec(ToolCallCancel),
	TerminalCancel.Name:                               methodCodec(TerminalCancel),
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
// reaches, with the reason the test leaves them out.
var notRoundTripped = map[string]string{
	"AgentRequest":       "the union of requests: the envelope, read by acp.Classify",
	"AgentResponse":      "the union of responses: the envelope, read by acp.Classify",
	"AgentNotification":  "the union of notifications: the envelope, read by acp.Classify",
	"ClientRequest":      "the union of requests: the envelope, read by acp.Classify",
	"ClientResponse":     "the union of responses: the envelope, read by acp.Classify",
	"ClientNotification": "the union of notifications: the envelope, read by acp.Classify",
	"ProxyRequest":       "the union of requests: the envelope, read by acp.Classify",
	"ProxyResponse":      "the union of responses: the envelope, read by acp.Classify",
	"ProxyNotification":  "the union of notifications: the envelope, read by acp.Classify",
	"ExtRequest":         "an extension method's params: opaque to the package",
	"ExtResponse":        "an extension method's result: opaque to the package",
	"ExtNotification":    "an extension notification's params: opaque to the package",
}
