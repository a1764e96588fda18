package acpcheck

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/acpkit/acpkit/acp"
)

var (
	srcVersion = Source{"protocol/v1/initialization#protocol-version", "If the Agent supports the requested version, it MUST respond with the same version. Otherwise, the Agent MUST respond with the latest version it supports."}
	srcInitRes = Source{"protocol/v1/initialization; schema InitializeResponse", "The Agent MUST respond with the chosen protocol version and the capabilities it supports."}
	srcInfo    = Source{"protocol/v1/initialization#implementation-information", "Both Clients and Agents SHOULD provide information about their implementation in the clientInfo and agentInfo fields respectively."}
	srcNew     = Source{"protocol/v1/session-setup#creating-a-session", "The Agent MUST respond with a unique Session ID that identifies this conversation."}
	srcCwd     = Source{"protocol/v1/session-setup#working-directory", "The cwd (current working directory) parameter establishes the primary file system context for the session. This directory: MUST be an absolute path."}
	srcMCPReq  = Source{"schema NewSessionRequest; protocol/v1/session-setup#creating-a-session", `"required": ["cwd", "mcpServers"]. Clients create a new session by calling the session/new method with: the working directory for the session; a list of MCP servers the Agent should connect to.`}
	srcUnknown = Source{"schema ErrorCode; JSON-RPC 2.0 §5", "-32002: Resource not found. / When a rpc call is made, the Server MUST reply with a Response."}
)

var sessionChecks = []checkDef{
	{
		Check: Check{ID: "initialize.version", Level: Must, Source: srcVersion,
			Doc: "initialize for version 1 is answered with version 1"},
		conn: connFresh, run: checkVersion(1),
	},
	{
		Check: Check{ID: "initialize.future-version", Level: Must, Source: srcVersion,
			Doc: "initialize for version 1000 is answered with a version the agent supports, 1 or 2, not an error"},
		conn: connFresh, run: checkVersion(1000),
	},
	{
		Check: Check{ID: "initialize.result", Level: Must, Source: srcInitRes,
			Doc: "initialize's result is valid against the schema, read as leniently as the schema allows"},
		conn: connFresh, run: checkInitResult,
	},
	{
		Check: Check{ID: "initialize.agent-info", Level: Should, Source: srcInfo,
			Doc: "initialize's result names the agent and its version in agentInfo"},
		conn: connV1, run: checkAgentInfo,
	},
	{
		Check: Check{ID: "session.new", Level: Must, Source: srcNew,
			Doc: "session/new in an absolute cwd with no MCP server is answered with a session id"},
		conn: connV1, run: checkNewSession,
	},
	{
		Check: Check{ID: "session.unique-ids", Level: Must, Source: srcNew,
			Doc: "three sessions created at once get three different ids"},
		conn: connV1, run: checkUniqueIDs,
	},
	{
		Check: Check{ID: "session.cwd-absolute", Level: Must, Source: srcCwd,
			Doc: "session/new with a relative cwd is refused -32602"},
		conn: connV1, run: checkRelativeCwd,
	},
	{
		Check: Check{ID: "session.mcp-servers-required", Level: Should, Source: srcMCPReq,
			Doc: "session/new without mcpServers is refused -32602"},
		conn: connV1, run: checkMCPServersRequired,
	},
	{
		Check: Check{ID: "session.unknown-id", Level: Must, Source: srcUnknown,
			Doc: "session/prompt for a session that does not exist is answered with an error"},
		conn: connV1, run: checkUnknownSession,
	},
}

func checkVersion(asked int) func(context.Context, *checker) verdict {
	return func(ctx context.Context, k *checker) verdict {
		raw, err := k.p.request(ctx, acp.Initialize.Name, v1InitializeParams(asked))
		if err != nil {
			return failf("initialize for version %d: %v", asked, err)
		}
		// A v2 agent may answer with v2's result: read the version alone.
		r, err := acp.DecodeResult[struct {
			ProtocolVersion int `json:"protocolVersion" acp:"required"`
		}](raw)
		if err != nil {
			return failf("initialize for version %d: %v", asked, err)
		}
		switch {
		case asked == 1 && r.ProtocolVersion != 1:
			return failf("initialize for version 1 answered version %d", r.ProtocolVersion)
		case asked > 2 && r.ProtocolVersion != 1 && r.ProtocolVersion != 2:
			return failf("initialize for version %d answered version %d, which is no version of ACP", asked, r.ProtocolVersion)
		}
		return passf("answered version %d", r.ProtocolVersion)
	}
}

func checkInitResult(ctx context.Context, k *checker) verdict {
	raw, err := k.p.request(ctx, acp.Initialize.Name, v1InitializeParams(1))
	if err != nil {
		return failf("initialize: %v", err)
	}
	r, err := acp.DecodeResult[acp.InitializeResult](raw)
	if err != nil {
		return failf("%v: %s", err, quote(raw))
	}
	return passf("capabilities: %s", capabilitySummary(r.AgentCapabilities))
}

// capabilitySummary lists what an agent advertises, for a reason.
func capabilitySummary(c acp.AgentCapabilities) string {
	var s []string
	p := c.PromptCapabilities
	for name, on := range map[string]bool{"image": p.Image, "audio": p.Audio, "embeddedContext": p.EmbeddedContext, "loadSession": c.LoadSession, "mcp http": c.MCPCapabilities.HTTP, "mcp sse": c.MCPCapabilities.SSE} {
		if on {
			s = append(s, name)
		}
	}
	if sc := c.SessionCapabilities; sc != nil {
		for name, on := range map[string]bool{"list": sc.List != nil, "resume": sc.Resume != nil, "close": sc.Close != nil, "delete": sc.Delete != nil} {
			if on {
				s = append(s, "session "+name)
			}
		}
	}
	slices.Sort(s)
	if len(s) == 0 {
		return "the baseline only"
	}
	return fmt.Sprint(s)
}

func checkAgentInfo(_ context.Context, k *checker) verdict {
	info := k.init.v1.AgentInfo
	if info == nil || info.Name == "" || info.Version == "" {
		return failf("agentInfo is %+v", info)
	}
	return passf("%s %s", info.Name, info.Version)
}

func checkNewSession(ctx context.Context, k *checker) verdict {
	id, err := newSession(ctx, k.p, k.cwd())
	if err != nil {
		return failf("%v", err)
	}
	return passf("session %s", id)
}

func checkUniqueIDs(ctx context.Context, k *checker) verdict {
	ids := make([]string, 3)
	errs := make([]error, 3)
	done := make(chan int, 3)
	for i := range ids {
		go func() {
			ids[i], errs[i] = newSession(ctx, k.p, k.cwd())
			done <- i
		}()
	}
	for range ids {
		<-done
	}
	if err := errors.Join(errs...); err != nil {
		return failf("%v", err)
	}
	if ids[0] == ids[1] || ids[1] == ids[2] || ids[0] == ids[2] {
		return failf("session/new answered the ids %q", ids)
	}
	return passf("")
}

func checkRelativeCwd(ctx context.Context, k *checker) verdict {
	raw, err := k.p.request(ctx, acp.SessionNew.Name, newSessionParams("acpcheck/relative"))
	if code, ok := errorCode(err); !ok || code != acp.CodeInvalidParams {
		return failf(`session/new with "cwd": "acpcheck/relative": want error -32602, got %s`, describe(raw, err))
	}
	return passf("")
}

func checkMCPServersRequired(ctx context.Context, k *checker) verdict {
	raw, err := k.p.request(ctx, acp.SessionNew.Name, map[string]any{"cwd": k.cwd()})
	if code, ok := errorCode(err); !ok || code != acp.CodeInvalidParams {
		return failf("session/new without mcpServers: want error -32602, got %s", describe(raw, err))
	}
	return passf("")
}

func checkUnknownSession(ctx context.Context, k *checker) verdict {
	raw, err := k.p.request(ctx, acp.SessionPrompt.Name, map[string]any{"sessionId": "acpcheck-no-such-session", "prompt": text(k.p.prompt)})
	if _, ok := errorCode(err); !ok {
		return failf("session/prompt for an unknown session: want an error, got %s", describe(raw, err))
	}
	return passf("%v", err)
}
