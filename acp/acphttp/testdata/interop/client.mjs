// client.mjs drives an ACP agent over the official TypeScript SDK's
// remote transports, for acphttp's interop tests:
//
//	node client.mjs ws|http URL TOKEN
//
// It prints one JSON object: what it saw.
import { client } from "@agentclientprotocol/sdk";
import { createHttpStream } from "@agentclientprotocol/sdk/experimental/http-client";
import { createWebSocketStream } from "@agentclientprotocol/sdk/experimental/ws-client";
import WebSocket from "ws";

const [profile, url, token] = process.argv.slice(2);
const headers = { Authorization: `Bearer ${token}` };
const stream =
  profile === "ws"
    ? createWebSocketStream(url.replace(/^http/, "ws"), { WebSocket, headers })
    : createHttpStream(url, { headers });

const updates = {};
const app = client()
  .onNotification("session/update", ({ params }) => {
    const u = params.update;
    if (u.sessionUpdate === "agent_message_chunk" && u.content.type === "text") {
      (updates[params.sessionId] ??= []).push(u.content.text);
    }
  })
  .onRequest("session/request_permission", ({ params }) => ({
    outcome: { outcome: "selected", optionId: params.options[0].optionId },
  }));

const out = {};
try {
  await app.connectWith(stream, async (ctx) => {
    const init = await ctx.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
    out.protocolVersion = init.protocolVersion;
    const a = await ctx.request("session/new", { cwd: "/", mcpServers: [] });
    const b = await ctx.request("session/new", { cwd: "/", mcpServers: [] });
    const text = (t) => [{ type: "text", text: t }];
    // Two sessions at once, each on its own stream.
    const [ra, rb] = await Promise.all([
      ctx.request("session/prompt", { sessionId: a.sessionId, prompt: text("one two three") }),
      ctx.request("session/prompt", { sessionId: b.sessionId, prompt: text("four five") }),
    ]);
    out.stopReasons = [ra.stopReason, rb.stopReason];
    await ctx.request("session/prompt", { sessionId: a.sessionId, prompt: text("ask") });
    out.updates = [[...updates[a.sessionId]], [...updates[b.sessionId]]];
    try {
      await ctx.request("session/prompt", { sessionId: "not-mine", prompt: text("x") });
      out.foreign = "answered";
    } catch (e) {
      out.foreign = String(e.message ?? e);
    }
    // The connection goes on after a session's refusal.
    const r = await ctx.request("session/prompt", { sessionId: b.sessionId, prompt: text("six") });
    out.after = r.stopReason;
  });
} catch (e) {
  out.error = String(e.stack ?? e);
}
console.log(JSON.stringify(out));
process.exit(0);
