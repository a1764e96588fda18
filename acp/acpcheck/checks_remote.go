package acpcheck

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/acpkit/acpkit/acp"
)

var (
	srcAuth      = Source{"rfds/streamable-http-websocket-transport#how-does-this-interact-with-authentication; RFC 9110 §15.5.2", "ACP authentication is orthogonal and layered on top via HTTP headers, query parameters, or WebSocket subprotocols. / The 401 (Unauthorized) status code indicates that the request has not been applied because it lacks valid authentication credentials."}
	srcOrigin    = Source{"RFC 6455 §4.2.2, §10.2; rfds/streamable-http-websocket-transport (Phase 4: Origin validation)", "If the server does not wish to accept this connection, it MUST return an appropriate HTTP error code (e.g., 403 Forbidden). / Servers that are not intended to process input from any web page but only for certain sites SHOULD verify the |Origin| field is an origin they expect."}
	srcIsolation = Source{"rfds/streamable-http-websocket-transport#connection-and-session-model", "Acp-Connection-Id (returned at initialize, binds to the connection) and Acp-Session-Id (returned at session/new, scopes to a session). A session belongs to the connection that created it."}
	srcRouting   = Source{"rfds/streamable-http-websocket-transport#unified-endpoint-routing", "POST /acp: No Acp-Connection-Id? → 400 Bad Request; Unknown Acp-Connection-Id? → 404 Not Found."}
	srcNegotiate = Source{"rfds/streamable-http-websocket-transport#content-negotiation-and-validation", "POST Content-Type MUST be application/json (415 otherwise). GET Accept MUST include text/event-stream (406 otherwise)."}
)

var remoteChecks = []checkDef{
	{
		Check: Check{ID: "remote.unauthenticated", Level: Must, Source: srcAuth,
			Doc: "without the credentials the target was given, a POST initialize and a WebSocket upgrade are refused 401"},
		conn: connRemote, run: checkUnauthenticated,
	},
	{
		Check: Check{ID: "remote.origin", Level: Should, Source: srcOrigin,
			Doc: "a WebSocket upgrade from a page of a foreign Origin is refused 403"},
		conn: connRemote, run: checkOrigin,
	},
	{
		Check: Check{ID: "remote.isolation", Level: Must, Source: srcIsolation,
			Doc: "one connection cannot prompt another's session, nor receives its updates"},
		conn: connRemote, run: checkIsolation,
	},
	{
		Check: Check{ID: "remote.content-type", Level: Must, Source: srcNegotiate,
			Doc: "a POST that is not application/json is refused 415"},
		conn: connRemote, run: checkContentType,
	},
	{
		Check: Check{ID: "remote.accept", Level: Must, Source: srcNegotiate,
			Doc: "a GET of a connection's stream that does not accept text/event-stream is refused 406"},
		conn: connRemote, run: checkAccept,
	},
	{
		Check: Check{ID: "remote.connection-id", Level: Must, Source: srcRouting,
			Doc: "a POST of a request other than initialize is refused 400 without Acp-Connection-Id, and 404 with an unknown one"},
		conn: connRemote, run: checkConnectionID,
	},
}

// httpDo makes a request of the target's endpoint with the given headers
// (the target's credentials unless bare) and returns its status and
// headers, the body read and closed.
func (k *checker) httpDo(ctx context.Context, method string, header http.Header, body string, bare bool) (*http.Response, error) {
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, k.s.target.url, r)
	if err != nil {
		return nil, err
	}
	if !bare {
		for name, vs := range k.s.target.remote.Header {
			req.Header[name] = vs
		}
	}
	for name, vs := range header {
		req.Header[name] = vs
	}
	resp, err := k.s.httpClient().Do(req)
	if err != nil {
		return nil, err
	}
	// A 101's body is the upgraded connection, which no context ends:
	// it is closed unread.
	if resp.StatusCode != http.StatusSwitchingProtocols {
		io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	}
	resp.Body.Close()
	return resp, nil
}

const initializeBody = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}`

// upgradeHeader is a WebSocket upgrade's.
func upgradeHeader() http.Header {
	return http.Header{
		"Connection":            {"Upgrade"},
		"Upgrade":               {"websocket"},
		"Sec-Websocket-Version": {"13"},
		"Sec-Websocket-Key":     {"YWNwY2hlY2stMDEyMzQ1Ng=="},
	}
}

var jsonHeader = http.Header{"Content-Type": {"application/json"}, "Accept": {"application/json, text/event-stream"}}

func checkUnauthenticated(ctx context.Context, k *checker) verdict {
	if len(k.s.target.remote.Header) == 0 {
		return skipf("the target was given no credentials")
	}
	var wrong []string
	if resp, err := k.httpDo(ctx, http.MethodPost, jsonHeader, initializeBody, true); err != nil {
		return failf("POST initialize without credentials: %v", err)
	} else if resp.StatusCode != http.StatusUnauthorized {
		wrong = append(wrong, fmt.Sprintf("POST initialize: %s", resp.Status))
	}
	if resp, err := k.httpDo(ctx, http.MethodGet, upgradeHeader(), "", true); err != nil {
		return failf("WebSocket upgrade without credentials: %v", err)
	} else if resp.StatusCode != http.StatusUnauthorized {
		wrong = append(wrong, fmt.Sprintf("WebSocket upgrade: %s", resp.Status))
	}
	if len(wrong) > 0 {
		return failf("without credentials, want 401: %s", strings.Join(wrong, "; "))
	}
	return passf("")
}

func checkOrigin(ctx context.Context, k *checker) verdict {
	h := upgradeHeader()
	h.Set("Origin", "https://acpcheck.invalid")
	resp, err := k.httpDo(ctx, http.MethodGet, h, "", false)
	if err != nil {
		return failf("WebSocket upgrade from a foreign Origin: %v", err)
	}
	if resp.StatusCode != http.StatusForbidden {
		return failf("WebSocket upgrade from Origin https://acpcheck.invalid: want 403, got %s", resp.Status)
	}
	return passf("")
}

func checkIsolation(ctx context.Context, k *checker) verdict {
	a, _, err := k.initialized(ctx)
	if err != nil {
		return failf("%v", err)
	}
	defer a.close()
	b, _, err := k.initialized(ctx)
	if err != nil {
		return failf("%v", err)
	}
	defer b.close()
	sid, err := newSession(ctx, a, k.cwd())
	if err != nil {
		return failf("%v", err)
	}
	raw, err := b.request(ctx, acp.SessionPrompt.Name, map[string]any{"sessionId": sid, "prompt": text(b.prompt)})
	if _, ok := errorCode(err); !ok {
		return failf("a second connection prompted the first's session: %s", describe(raw, err))
	}
	r, err := prompt(ctx, a, sid, text(a.prompt))
	if err := validTurn(r, err); err != nil {
		return failf("a prompt on the session's own connection: %v", err)
	}
	if err := barrier(ctx, b); err != nil {
		return failf("%v", err)
	}
	if us := updates(b.log.snapshot(), sid); len(us) > 0 {
		return failf("the second connection received the first's session/update: %s", quote(us[0].line))
	}
	return passf("refused: %v", err)
}

func checkContentType(ctx context.Context, k *checker) verdict {
	resp, err := k.httpDo(ctx, http.MethodPost, http.Header{"Content-Type": {"text/plain"}}, initializeBody, false)
	if err != nil {
		return failf("POST as text/plain: %v", err)
	}
	if resp.StatusCode != http.StatusUnsupportedMediaType {
		return failf("POST initialize as text/plain: want 415, got %s", resp.Status)
	}
	return passf("")
}

func checkAccept(ctx context.Context, k *checker) verdict {
	resp, err := k.httpDo(ctx, http.MethodPost, jsonHeader, initializeBody, false)
	if err != nil {
		return failf("POST initialize: %v", err)
	}
	id := resp.Header.Get("Acp-Connection-Id")
	if resp.StatusCode != http.StatusOK || id == "" {
		return skipf("POST initialize was answered %s without a connection id: the server may serve WebSocket only", resp.Status)
	}
	defer k.httpDo(context.WithoutCancel(ctx), http.MethodDelete, http.Header{"Acp-Connection-Id": {id}}, "", false)
	resp, err = k.httpDo(ctx, http.MethodGet, http.Header{"Acp-Connection-Id": {id}, "Accept": {"application/json"}}, "", false)
	if err != nil {
		return failf("GET without Accept: text/event-stream: %v", err)
	}
	if resp.StatusCode != http.StatusNotAcceptable {
		return failf("GET of the connection's stream accepting application/json only: want 406, got %s", resp.Status)
	}
	return passf("")
}

func checkConnectionID(ctx context.Context, k *checker) verdict {
	body := `{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/","mcpServers":[]}}`
	var wrong []string
	for _, c := range []struct {
		id   string
		want int
	}{{"", http.StatusBadRequest}, {"acpcheck-unknown-connection", http.StatusNotFound}} {
		h := jsonHeader.Clone()
		if c.id != "" {
			h.Set("Acp-Connection-Id", c.id)
		}
		resp, err := k.httpDo(ctx, http.MethodPost, h, body, false)
		if err != nil {
			return failf("POST session/new: %v", err)
		}
		if resp.StatusCode != c.want {
			what := "without Acp-Connection-Id"
			if c.id != "" {
				what = "with an unknown Acp-Connection-Id"
			}
			wrong = append(wrong, fmt.Sprintf("%s: want %d, got %s", what, c.want, resp.Status))
		}
	}
	if len(wrong) > 0 {
		return failf("POST session/new %s", strings.Join(wrong, "; "))
	}
	return passf("")
}
