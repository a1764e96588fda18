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
	if err := jsonscan.Check(data); err != nil {
		return JSONOutput{}, newSyntaxError(len(data), err)
	}
	if len(data) == 0 || data[0] != '{' {
		return JSONOutput{}, &SyntaxError{Length: len(data), Offset: 0, reason: "not a JSON object"}
	}
	m := members.GetAll(gjson.Parse(view(data)), "session_id", "response", "error", "stats")
	out := JSONOutput{SessionID: str(m[0]), Response: str(m[1]), Stats: objectCopy(m[3])}
	out.ErrorType, out.ErrorMessage = errorObject(m[2])
	switch code := members.Get(m[2], "code"); code.Type {
	case gjson.String:
		out.ErrorCode = str(code)
	case gjson.Number:
		out.ErrorCode = strings.Clone(code.Raw)
	}
	return out, nil
}
