package gemini

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/acpkit/acpkit/internal/jsonscan"
	"github.com/acpkit/acpkit/internal/members"
	"github.com/tidwall/gjson"
)

// JSONOutput is what `gemini --output-format json` prints instead of a
// stream: one JSON object for the whole run, on standard output when the
// run succeeds, on standard error when it fails.
type JSONOutput struct {
	SessionID string
	// Response is the answer ("" when absent).
	Response string
	// ErrorType, ErrorMessage and ErrorCode come from the error object,
	// "" when there is none. ErrorCode is the code's JSON text: a number
	// (the exit status, as 53) or a string.
	ErrorType    string
	ErrorMessage string
	ErrorCode    string
	// Stats is the stats object, raw JSON as the CLI sent it, nil when
	// absent; read it with the usage package's ParseGeminiStats.
	Stats json.RawMessage
}

// ParseJSONOutput reads the object `gemini --output-format json` prints.
// Data that is not one JSON object gives a [*SyntaxError]. Unknown
// members are ignored; of a repeated name the last one counts. The result
// holds copies: data may be reused.
func ParseJSONOutput(data []byte) (JSONOutput, error) {
	data = bytes.TrimSpace(data)
	if off, why, ok := jsonscan.CheckObject(data); !ok {
		return JSONOutput{}, &SyntaxError{Length: len(data), Offset: off, reason: why}
	}
	m := members.GetAll(gjson.Parse(members.View(data)), "session_id", "response", "error", "stats")
	out := JSONOutput{SessionID: str(m[0]), Response: str(m[1]), Stats: members.Object(m[3])}
	out.ErrorType, out.ErrorMessage = errorObject(m[2])
	switch code := members.Get(m[2], "code"); code.Type {
	case gjson.String:
		out.ErrorCode = str(code)
	case gjson.Number:
		out.ErrorCode = strings.Clone(code.Raw)
	}
	return out, nil
}
