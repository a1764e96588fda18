package gemini

import (
	"errors"
	"strconv"

	"github.com/acpkit/acpkit/internal/jsonscan"
	"github.com/acpkit/acpkit/internal/members"
	"github.com/tidwall/gjson"
)

// This file holds what a client of the CLI's ACP mode (`gemini --acp`,
// an ACP agent on standard input and output) needs of the package: its
// command line, the token use it reports for a turn, and the API errors
// it answers a prompt with.

// ACPCommandLine returns the arguments that run the Gemini CLI as an ACP
// agent, `gemini --acp`, with options o. Resume is left out: in ACP mode
// the client loads a session with session/load. As with [CommandLine],
// every option with a value uses the "--name=value" form. args holds no
// program name.
func ACPCommandLine(o Options) []string {
	o.Resume = ""
	args, _ := CommandLine(o, "")
	args[0] = "--acp" // in place of --output-format
	return args
}

// Quota is the token use the CLI's ACP mode reports for a turn, in the
// _meta.quota member of its answer to session/prompt (a slash command it
// answers itself reports zeros).
type Quota struct {
	// Input and Output are the turn's tokens, over all its model calls.
	Input, Output uint64
	// Models are the tokens by model, in the CLI's order; after a tool
	// call, the turn's second call is listed under "auto". Nil when the
	// CLI lists none.
	Models []ModelQuota
}

// ModelQuota is a model's part of a [Quota].
type ModelQuota struct {
	Model         string
	Input, Output uint64
}

// ErrNoQuota is the error of [ParseQuota] for a _meta without a quota, or
// whose quota holds no token counts.
var ErrNoQuota = errors.New("gemini: no quota in the answer's _meta")

// ParseQuota reads the [Quota] in meta, the _meta member of the CLI's
// answer to session/prompt:
//
//	{"quota":{"token_count":{"input_tokens":N,"output_tokens":N},
//	  "model_usage":[{"model":"…","token_count":{…}}]}}
//
// A count that is not a non-negative integer reads as 0, and a model
// entry without a name is skipped; a _meta that is not JSON, or has no
// token_count, is [ErrNoQuota].
func ParseQuota(meta []byte) (Quota, error) {
	if !jsonscan.Valid(meta) {
		return Quota{}, ErrNoQuota
	}
	quota := members.Get(gjson.ParseBytes(meta), "quota")
	total := members.Get(quota, "token_count")
	if !total.IsObject() {
		return Quota{}, ErrNoQuota
	}
	q := Quota{}
	q.Input, q.Output = tokenCount(total)
	if models := members.Get(quota, "model_usage"); models.IsArray() {
		models.ForEach(func(_, m gjson.Result) bool {
			name := members.Get(m, "model")
			if name.Type == gjson.String && name.Str != "" {
				in, out := tokenCount(members.Get(m, "token_count"))
				q.Models = append(q.Models, ModelQuota{Model: name.Str, Input: in, Output: out})
			}
			return true
		})
	}
	return q, nil
}

// tokenCount reads a token_count object's input and output tokens.
func tokenCount(tc gjson.Result) (in, out uint64) {
	return count(members.Get(tc, "input_tokens")), count(members.Get(tc, "output_tokens"))
}

// count reads a non-negative integer; 0 for anything else.
func count(v gjson.Result) uint64 {
	if v.Type != gjson.Number {
		return 0
	}
	n, err := strconv.ParseUint(v.Raw, 10, 64)
	if err != nil {
		return 0
	}
	return n
}

// ACPAPIError reads the error the CLI's ACP mode answers a prompt with
// when the model's API failed: the JSON-RPC error's code is then the
// HTTP status (401, 429, 500, …), and its message the API's JSON error
// body ({"error":{"code":500,"message":"…"}}) or the CLI's own words (a
// quota's, which may give a retry time: see [ParseResetTime]). It returns
// the status and the words a person reads: the body's message, or the
// text as it is. ok is false for an error whose code is no HTTP status,
// one of JSON-RPC's or ACP's own.
func ACPAPIError(code int, message string) (e APIError, ok bool) {
	if code < 100 || code > 599 {
		return APIError{}, false
	}
	e = APIError{Status: code, Message: message}
	if jsonscan.Valid([]byte(message)) {
		if m := members.Get(members.Get(gjson.Parse(message), "error"), "message"); m.Type == gjson.String && m.Str != "" {
			e.Message = m.Str
		}
	}
	return e, true
}
