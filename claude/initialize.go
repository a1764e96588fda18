package claude

import (
	"encoding/json"
	"fmt"
	"slices"
	"time"
)

// InitializeOptions are the members of the initialize request
// ([Session.Initialize]), as the official Agent SDKs send them. The zero
// value sends what they send without options: {"hooks":null}. Fields left
// zero are not sent.
type InitializeOptions struct {
	// Hooks registers the client's hook callbacks by the event they run
	// at. The CLI then sends a [HookRequest] whose CallbackID is one of
	// the matchers' CallbackIDs each time a hook is due, and waits for the
	// answer. nil or empty registers none.
	Hooks map[HookEvent][]HookMatcher
	// SDKMCPServers names the MCP servers the client hosts in-process
	// ("sdkMcpServers"), whose messages the CLI sends as [MCPRequest]s.
	SDKMCPServers []string
	// JSONSchema is the JSON schema, a JSON object, that the turn's final
	// answer must follow (structured output, "jsonSchema"); nil for none.
	JSONSchema json.RawMessage
	// SystemPrompt replaces the CLI's system prompt; AppendSystemPrompt is
	// added to the end of it. "" for neither.
	SystemPrompt       string
	AppendSystemPrompt string
	// Agents defines subagents by name, each a JSON object as the CLI's
	// --agents flag takes: {"description":…,"prompt":…,"tools":[…],
	// "model":…}.
	Agents map[string]json.RawMessage
	// Skills limits the skills loaded into the system prompt to these
	// names; nil loads them all.
	Skills []string
	// ExcludeDynamicSections leaves the per-session sections out of the
	// preset system prompt, so that it can be cached across sessions.
	ExcludeDynamicSections bool
	// ForwardSubagentText asks the CLI to forward its subagents' text and
	// thinking, not only their tool calls.
	ForwardSubagentText bool
	// PromptSuggestions asks the CLI for suggested next prompts, and
	// AgentProgressSummaries for summaries of its subagents' progress.
	PromptSuggestions      bool
	AgentProgressSummaries bool
	// Extra holds members this type does not model, by name, each raw
	// JSON (nil for null), for a CLI newer than this package. A name the
	// fields above stand for, or "subtype", is refused with
	// [ErrInvalidInput].
	Extra map[string]json.RawMessage
}

// HookEvent is the point in the CLI's work a hook runs at. Values other
// than the constants below are passed through, for newer CLIs.
type HookEvent string

// Hook events.
const (
	HookPreToolUse         HookEvent = "PreToolUse"
	HookPostToolUse        HookEvent = "PostToolUse"
	HookPostToolUseFailure HookEvent = "PostToolUseFailure"
	HookUserPromptSubmit   HookEvent = "UserPromptSubmit"
	HookStop               HookEvent = "Stop"
	HookSubagentStart      HookEvent = "SubagentStart"
	HookSubagentStop       HookEvent = "SubagentStop"
	HookPreCompact         HookEvent = "PreCompact"
	HookNotification       HookEvent = "Notification"
	HookPermissionRequest  HookEvent = "PermissionRequest"
	HookSessionStart       HookEvent = "SessionStart"
	HookSessionEnd         HookEvent = "SessionEnd"
)

// HookMatcher is a set of hook callbacks that run for the calls a
// matcher selects.
type HookMatcher struct {
	// Matcher selects the calls: for the tool events a tool name or an
	// alternation ("Bash", "Write|Edit"); "" selects every call.
	Matcher string
	// CallbackIDs name the client's callbacks, which it chooses; the CLI
	// names one in each [HookRequest] it sends. The official SDKs number
	// them "hook_0", "hook_1", … across the whole request.
	CallbackIDs []string
	// Timeout bounds each callback's run; 0 leaves the CLI's default (60
	// seconds). It is sent in seconds.
	Timeout time.Duration
}

// initializeMembers are the names of the members InitializeOptions
// models, which Extra may not hold.
var initializeMembers = [...]string{
	"subtype", "hooks", "sdkMcpServers", "jsonSchema", "systemPrompt", "appendSystemPrompt",
	"agents", "skills", "excludeDynamicSections", "forwardSubagentText", "promptSuggestions",
	"agentProgressSummaries",
}

// initializeParams are the request's members besides its subtype, in the
// order the official SDKs write them.
type initializeParams struct {
	Hooks                  map[HookEvent][]hookMatcher `json:"hooks"` // null without hooks
	SDKMCPServers          []string                    `json:"sdkMcpServers,omitempty"`
	JSONSchema             json.RawMessage             `json:"jsonSchema,omitempty"`
	SystemPrompt           string                      `json:"systemPrompt,omitempty"`
	AppendSystemPrompt     string                      `json:"appendSystemPrompt,omitempty"`
	Agents                 map[string]json.RawMessage  `json:"agents,omitempty"`
	Skills                 []string                    `json:"skills,omitempty"`
	ExcludeDynamicSections bool                        `json:"excludeDynamicSections,omitempty"`
	ForwardSubagentText    bool                        `json:"forwardSubagentText,omitempty"`
	PromptSuggestions      bool                        `json:"promptSuggestions,omitempty"`
	AgentProgressSummaries bool                        `json:"agentProgressSummaries,omitempty"`
}

type hookMatcher struct {
	Matcher     *string  `json:"matcher"` // null selects every call
	CallbackIDs []string `json:"hookCallbackIds"`
	Timeout     float64  `json:"timeout,omitempty"` // seconds
}

// params returns the request's members besides its subtype, as one JSON
// object, or an error wrapping [ErrInvalidInput].
func (o InitializeOptions) params() (json.RawMessage, error) {
	p := initializeParams{
		SDKMCPServers:          o.SDKMCPServers,
		SystemPrompt:           o.SystemPrompt,
		AppendSystemPrompt:     o.AppendSystemPrompt,
		Skills:                 o.Skills,
		ExcludeDynamicSections: o.ExcludeDynamicSections,
		ForwardSubagentText:    o.ForwardSubagentText,
		PromptSuggestions:      o.PromptSuggestions,
		AgentProgressSummaries: o.AgentProgressSummaries,
	}
	for event, matchers := range o.Hooks {
		if event == "" {
			return nil, fmt.Errorf("%w: hooks for an empty event", ErrInvalidInput)
		}
		if len(matchers) == 0 {
			continue
		}
		if p.Hooks == nil {
			p.Hooks = map[HookEvent][]hookMatcher{}
		}
		for _, m := range matchers {
			if m.Timeout < 0 || slices.Contains(m.CallbackIDs, "") {
				return nil, fmt.Errorf("%w: %s hook with a negative timeout or an empty callback id", ErrInvalidInput, event)
			}
			hm := hookMatcher{CallbackIDs: m.CallbackIDs, Timeout: m.Timeout.Seconds()}
			if hm.CallbackIDs == nil {
				hm.CallbackIDs = []string{}
			}
			if m.Matcher != "" {
				hm.Matcher = &m.Matcher
			}
			p.Hooks[event] = append(p.Hooks[event], hm)
		}
	}
	if o.JSONSchema != nil {
		schema, err := object(o.JSONSchema, "JSON schema")
		if err != nil {
			return nil, err
		}
		p.JSONSchema = schema
	}
	if len(o.Agents) > 0 {
		p.Agents = make(map[string]json.RawMessage, len(o.Agents))
		for name, def := range o.Agents {
			obj, err := object(def, "agent "+name)
			if err != nil {
				return nil, err
			}
			p.Agents[name] = obj
		}
	}
	body, err := marshalLine(p)
	if err != nil || len(o.Extra) == 0 {
		return body, err
	}
	for name := range o.Extra {
		if slices.Contains(initializeMembers[:], name) {
			return nil, fmt.Errorf("%w: Extra holds %q, which InitializeOptions models", ErrInvalidInput, name)
		}
	}
	extra, err := marshalLine(o.Extra) // each value checked and compacted, by name
	if err != nil {
		return nil, err
	}
	return joinObjects(body, extra), nil
}
