package acpcheck

import (
	"context"
	"fmt"

	"github.com/acpkit/acpkit/acp"
)

var (
	srcBaseline   = Source{"protocol/v1/initialization#prompt-capabilities", "As a baseline, all Agents MUST support ContentBlock::Text and ContentBlock::ResourceLink in session/prompt requests."}
	srcPromptCaps = Source{"protocol/v1/initialization#prompt-capabilities", "Optionally, they MAY support richer types of content by specifying the following capabilities: image (the prompt may include ContentBlock::Image), audio, embeddedContext (ContentBlock::Resource)."}
	srcPromptOnly = Source{"protocol/v1/prompt-turn#1-user-message; protocol/v1/initialization#capabilities", "Clients MUST restrict types of content according to the Prompt Capabilities established during initialization. / Clients and Agents MUST treat all capabilities omitted in the initialize request as UNSUPPORTED."}
	srcMCPStdio   = Source{"protocol/v1/session-setup#stdio", "All Agents MUST support connecting to MCP servers via stdio (standard input/output)."}
	srcMCPCaps    = Source{"protocol/v1/session-setup#mcp-servers", "HTTP and SSE transports are optional capabilities that can be checked during initialization. / Before using HTTP or SSE transports, Clients MUST verify the Agent's capabilities during initialization."}
	srcMethods    = Source{"protocol/v1/session-setup; protocol/v1/session-list; protocol/v1/session-delete", "If loadSession is false or not present, the Agent does not support loading sessions and Clients MUST NOT attempt to call session/load. (Likewise sessionCapabilities.list, resume, close and delete.)"}
	srcStop       = Source{"protocol/v1/prompt-turn#4-check-for-completion", "If there are no pending tool calls, the turn ends and the Agent MUST respond to the original session/prompt request with a StopReason."}
	srcCancel     = Source{"protocol/v1/prompt-turn#cancellation", "After all ongoing operations have been successfully aborted and pending updates have been sent, the Agent MUST respond to the original session/prompt request with the cancelled stop reason."}
	srcCancelPerm = Source{"protocol/v1/prompt-turn#cancellation", "The Client MUST respond to all pending session/request_permission requests with the cancelled outcome. / Agents MUST catch these errors and return the semantically meaningful cancelled stop reason."}
)

// A tiny PNG (one pixel) and WAV (no samples), for prompts.
const (
	pngBase64 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
	wavBase64 = "UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YQAAAAA="
)

// contentKind is a kind of prompt content that a capability governs.
type contentKind struct {
	name  string                            // its capability's name
	on    func(acp.PromptCapabilities) bool // whether the agent advertises it
	block func(cwd string) map[string]any
}

var contentKinds = []contentKind{
	{"image", func(c acp.PromptCapabilities) bool { return c.Image }, func(string) map[string]any {
		return map[string]any{"type": "image", "mimeType": "image/png", "data": pngBase64}
	}},
	{"audio", func(c acp.PromptCapabilities) bool { return c.Audio }, func(string) map[string]any {
		return map[string]any{"type": "audio", "mimeType": "audio/wav", "data": wavBase64}
	}},
	{"embeddedContext", func(c acp.PromptCapabilities) bool { return c.EmbeddedContext }, func(cwd string) map[string]any {
		return map[string]any{"type": "resource", "resource": map[string]any{"uri": fileURI(cwd, "notes.txt"), "mimeType": "text/plain", "text": "acpcheck notes\n"}}
	}},
}

// fileURI is the file: URI of name in dir.
func fileURI(dir, name string) string {
	return "file://" + dir + "/" + name
}

// mcpKind is a transport of MCP servers.
type mcpKind struct {
	name   string
	on     func(acp.MCPCapabilities) bool
	server map[string]any
}

var mcpKinds = []mcpKind{
	{"http", func(c acp.MCPCapabilities) bool { return c.HTTP }, map[string]any{"type": "http", "name": "acpcheck", "url": "http://127.0.0.1:9/mcp", "headers": []any{}}},
	{"sse", func(c acp.MCPCapabilities) bool { return c.SSE }, map[string]any{"type": "sse", "name": "acpcheck", "url": "http://127.0.0.1:9/sse", "headers": []any{}}},
}

// promptChecks are the capability and prompt turn checks.
func promptChecks() []checkDef {
	checks := []checkDef{
		{
			Check: Check{ID: "prompt.stop-reason", Level: Must, Source: srcStop,
				Doc: "a text prompt is answered with one of v1's stop reasons"},
			conn: connV1, run: checkPromptBlocks("text", nil),
		},
		{
			Check: Check{ID: "capability.prompt-resource-link", Level: Must, Source: srcBaseline,
				Doc: "a prompt of text and a resource link is answered with a stop reason"},
			conn: connV1, run: checkPromptBlocks("resource_link", func(cwd string) map[string]any {
				return map[string]any{"type": "resource_link", "uri": fileURI(cwd, "README.md"), "name": "README.md"}
			}),
		},
	}
	for _, c := range contentKinds {
		checks = append(checks,
			checkDef{
				Check: Check{ID: "capability.prompt-" + c.name, Level: Must, Source: srcPromptCaps,
					Doc: fmt.Sprintf("when the agent advertises promptCapabilities.%s, a prompt holding such content is answered with a stop reason", c.name)},
				conn: connV1, run: checkContent(c, true),
			},
			checkDef{
				Check: Check{ID: "capability.prompt-" + c.name + "-unadvertised", Level: Should, Source: srcPromptOnly,
					Doc: fmt.Sprintf("when the agent does not advertise promptCapabilities.%s, a prompt holding such content is refused with an error, not silently ignored", c.name)},
				conn: connV1, run: checkContent(c, false),
			})
	}
	checks = append(checks, checkDef{
		Check: Check{ID: "capability.mcp-stdio", Level: Must, Source: srcMCPStdio,
			Doc: "session/new with a stdio MCP server is answered with a session"},
		conn: connV1, run: checkMCPStdio,
	})
	for _, m := range mcpKinds {
		checks = append(checks,
			checkDef{
				Check: Check{ID: "capability.mcp-" + m.name, Level: Must, Source: srcMCPCaps,
					Doc: fmt.Sprintf("when the agent advertises mcpCapabilities.%s, session/new with such an MCP server (unreachable) is answered with a session", m.name)},
				conn: connV1, run: checkMCP(m, true),
			},
			checkDef{
				Check: Check{ID: "capability.mcp-" + m.name + "-unadvertised", Level: Should, Source: srcMCPCaps,
					Doc: fmt.Sprintf("when the agent does not advertise mcpCapabilities.%s, session/new with such an MCP server is refused with an error", m.name)},
				conn: connV1, run: checkMCP(m, false),
			})
	}
	checks = append(checks,
		checkDef{
			Check: Check{ID: "capability.methods-unadvertised", Level: Should, Source: srcMethods,
				Doc: "each session method the agent does not advertise (load, list, resume, close, delete) is refused with an error"},
			conn: connV1, run: checkUnadvertisedMethods,
		},
		checkDef{
			Check: Check{ID: "cancel.stop-reason", Level: Must, Source: srcCancel,
				Doc: "session/cancel sent once the turn shows itself running is answered with stop reason cancelled"},
			conn: connV1, run: checkCancel,
		},
		checkDef{
			Check: Check{ID: "cancel.permission", Level: Must, Source: srcCancelPerm,
				Doc: "when the agent asks permission during a turn, cancelling the turn (the pending request answered cancelled) ends it with stop reason cancelled"},
			conn: connV1, run: checkCancelPermission,
		})
	return checks
}

func checkPromptBlocks(kind string, block func(cwd string) map[string]any) func(context.Context, *checker) verdict {
	return func(ctx context.Context, k *checker) verdict {
		sid, err := newSession(ctx, k.p, k.cwd())
		if err != nil {
			return failf("%v", err)
		}
		blocks := text(k.p.prompt)
		if block != nil {
			blocks = append(blocks, block(k.cwd()))
		}
		r, err := prompt(ctx, k.p, sid, blocks)
		if err := validTurn(r, err); err != nil {
			return failf("a prompt of text and %s: %v", kind, err)
		}
		return passf("stop reason %s", r.StopReason)
	}
}

// applies returns the skip of a check of what the agent does with a
// capability it advertises (advertised) or not, when on, whether it does,
// says the check does not apply; nil when it does.
func applies(on, advertised bool, what string) *verdict {
	if on == advertised {
		return nil
	}
	v := skipf("the agent does not advertise %s", what)
	if on {
		v = skipf("the agent advertises %s", what)
	}
	return &v
}

func checkContent(c contentKind, advertised bool) func(context.Context, *checker) verdict {
	return func(ctx context.Context, k *checker) verdict {
		if v := applies(c.on(k.init.v1.AgentCapabilities.PromptCapabilities), advertised, c.name+" prompts"); v != nil {
			return *v
		}
		sid, err := newSession(ctx, k.p, k.cwd())
		if err != nil {
			return failf("%v", err)
		}
		r, err := prompt(ctx, k.p, sid, append(text(k.p.prompt), c.block(k.cwd())))
		if advertised {
			if err := validTurn(r, err); err != nil {
				return failf("the agent advertises %s prompts, but a prompt holding %s: %v", c.name, c.name, err)
			}
			return passf("stop reason %s", r.StopReason)
		}
		if _, ok := errorCode(err); !ok {
			if err != nil {
				return failf("a prompt holding %s it does not advertise: %v", c.name, err)
			}
			return failf("the agent does not advertise %s prompts, but answered one with stop reason %s", c.name, r.StopReason)
		}
		return passf("refused: %v", err)
	}
}

func checkMCPStdio(ctx context.Context, k *checker) verdict {
	server := map[string]any{"name": "acpcheck", "command": "/usr/bin/env", "args": []any{"true"}, "env": []any{}}
	raw, err := k.p.request(ctx, acp.SessionNew.Name, map[string]any{"cwd": k.cwd(), "mcpServers": []any{server}})
	if err == nil {
		_, err = acp.DecodeResult[acp.NewSessionResult](raw)
	}
	if err != nil {
		return failf("session/new with a stdio MCP server (/usr/bin/env true): %v", err)
	}
	return passf("")
}

func checkMCP(m mcpKind, advertised bool) func(context.Context, *checker) verdict {
	return func(ctx context.Context, k *checker) verdict {
		if v := applies(m.on(k.init.v1.AgentCapabilities.MCPCapabilities), advertised, m.name+" MCP servers"); v != nil {
			return *v
		}
		raw, err := k.p.request(ctx, acp.SessionNew.Name, map[string]any{"cwd": k.cwd(), "mcpServers": []any{m.server}})
		if err == nil {
			_, err = acp.DecodeResult[acp.NewSessionResult](raw)
		}
		if advertised {
			if err != nil {
				return failf("the agent advertises %s MCP servers, but session/new with one at %s: %v", m.name, m.server["url"], err)
			}
			return passf("")
		}
		if _, ok := errorCode(err); !ok {
			return failf("the agent does not advertise %s MCP servers, but session/new with one: %s", m.name, describe(raw, err))
		}
		return passf("refused: %v", err)
	}
}

func checkUnadvertisedMethods(ctx context.Context, k *checker) verdict {
	caps := k.init.v1.AgentCapabilities
	sc := caps.SessionCapabilities
	if sc == nil {
		sc = &acp.SessionCapabilities{}
	}
	sid, err := newSession(ctx, k.p, k.cwd())
	if err != nil {
		return failf("%v", err)
	}
	attach := map[string]any{"sessionId": sid, "cwd": k.cwd(), "mcpServers": []any{}}
	methods := []struct {
		name       string
		advertised bool
		params     map[string]any
	}{
		{acp.SessionLoad.Name, caps.LoadSession, attach},
		{acp.SessionList.Name, sc.List != nil, map[string]any{}},
		{acp.SessionResume.Name, sc.Resume != nil, attach},
		{acp.SessionClose.Name, sc.Close != nil, map[string]any{"sessionId": sid}},
		{acp.SessionDelete.Name, sc.Delete != nil, map[string]any{"sessionId": sid}},
	}
	var tried, accepted []string
	for _, m := range methods {
		if m.advertised {
			continue
		}
		tried = append(tried, m.name)
		raw, err := k.p.request(ctx, m.name, m.params)
		if _, ok := errorCode(err); !ok {
			accepted = append(accepted, m.name+": "+describe(raw, err))
		}
	}
	switch {
	case len(tried) == 0:
		return skipf("the agent advertises every session method")
	case len(accepted) > 0:
		return failf("not advertised, yet answered: %v", accepted)
	}
	return passf("refused %v", tried)
}

// promptResult is the outcome of a prompt sent in the background.
type promptResult struct {
	r   acp.PromptResult
	err error
}

// startPrompt sends a prompt in the background.
func startPrompt(ctx context.Context, p *peer, session string, blocks []any) <-chan promptResult {
	done := make(chan promptResult, 1)
	go func() {
		r, err := prompt(ctx, p, session, blocks)
		done <- promptResult{r, err}
	}()
	return done
}

// cancelledTurn judges a turn the check cancelled: skip when the agent
// answered before the cancel was sent, else a pass for stop reason
// cancelled.
func cancelledTurn(p *peer, session string, res promptResult, what string) verdict {
	events := p.log.snapshot()
	_, resp := requestEvent(events, acp.SessionPrompt.Name, session)
	sent := -1
	for i := range events {
		e := &events[i]
		if e.from == fromClient && e.msg.Kind == acp.KindNotification && e.msg.Method == acp.SessionCancel.Name && e.session == session {
			sent = i
			break
		}
	}
	if resp >= 0 && sent >= 0 && resp < sent {
		return skipf("the turn ended (%s) before %s was sent: it needs a turn that lasts longer", describeTurn(res), what)
	}
	if res.err != nil {
		return failf("the prompt cancelled by %s was answered with an error, not stop reason cancelled: %v", what, res.err)
	}
	if res.r.StopReason != acp.StopReasonCancelled {
		return failf("the prompt cancelled by %s was answered with stop reason %q", what, res.r.StopReason)
	}
	return passf("")
}

func describeTurn(res promptResult) string {
	if res.err != nil {
		return res.err.Error()
	}
	return "stop reason " + string(res.r.StopReason)
}

// runningTurn starts a long prompt in a new session and waits until the
// turn shows itself; it returns the session and the prompt's outcome to
// come, or the verdict when the turn ended first.
func runningTurn(ctx context.Context, p *peer, cwd string) (string, <-chan promptResult, *verdict) {
	sid, err := newSession(ctx, p, cwd)
	if err != nil {
		v := failf("%v", err)
		return "", nil, &v
	}
	since := len(p.log.snapshot())
	done := startPrompt(ctx, p, sid, text(p.longPrompt))
	started := make(chan error, 1)
	sctx, stop := context.WithCancel(ctx)
	defer stop()
	go func() { started <- turnStarted(sctx, p, sid, since) }()
	select {
	case res := <-done:
		v := skipf("the turn ended (%s) before it showed itself running: it needs a turn that lasts longer", describeTurn(res))
		if validTurn(res.r, res.err) != nil {
			v = failf("the prompt: %s", describeTurn(res))
		}
		return "", nil, &v
	case err := <-started:
		if err != nil {
			v := failf("%v", err)
			return "", nil, &v
		}
	}
	return sid, done, nil
}

func checkCancel(ctx context.Context, k *checker) verdict {
	sid, done, v := runningTurn(ctx, k.p, k.cwd())
	if v != nil {
		return *v
	}
	if err := cancel(ctx, k.p, sid); err != nil {
		return failf("sending session/cancel: %v", err)
	}
	select {
	case res := <-done:
		return cancelledTurn(k.p, sid, res, "session/cancel")
	case <-ctx.Done():
		return failf("no answer to the prompt after session/cancel before the check's time ran out")
	}
}

func checkCancelPermission(ctx context.Context, k *checker) verdict {
	sid, err := newSession(ctx, k.p, k.cwd())
	if err != nil {
		return failf("%v", err)
	}
	k.p.ed.hold(sid)
	since := len(k.p.log.snapshot())
	done := startPrompt(ctx, k.p, sid, text("Create a file named acpcheck.txt in the current directory, holding the word hello."))
	asked := make(chan error, 1)
	actx, stop := context.WithCancel(ctx)
	defer stop()
	go func() {
		asked <- k.p.log.waitFor(actx, "permission request", func(events []event) bool {
			for _, e := range events[min(since, len(events)):] {
				if e.from == fromAgent && e.msg.Kind == acp.KindRequest && e.msg.Method == acp.SessionRequestPermission.Name && e.session == sid {
					return true
				}
			}
			return false
		})
	}()
	select {
	case res := <-done:
		if err := validTurn(res.r, res.err); err != nil {
			return failf("the prompt: %v", err)
		}
		return skipf("the agent asked no permission in its turn (%s)", describeTurn(res))
	case err := <-asked:
		if err != nil {
			return failf("%v", err)
		}
	}
	if err := cancel(ctx, k.p, sid); err != nil {
		return failf("sending session/cancel: %v", err)
	}
	select {
	case res := <-done:
		return cancelledTurn(k.p, sid, res, "session/cancel")
	case <-ctx.Done():
		return failf("no answer to the prompt after session/cancel and the permission answered cancelled, before the check's time ran out")
	}
}
