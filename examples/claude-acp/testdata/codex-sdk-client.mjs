// codex-sdk-client.mjs drives `claude-acp -cli codex` in front of the real
// Codex CLI as a client of the official TypeScript SDK would, for
// claude-acp's Codex interop test:
//
//	node codex-sdk-client.mjs CWD MCP_SERVER AGENT [ARG...]
//
// In one agent it plays a plain turn, a command approved and one rejected,
// a file change approved, a turn cancelled mid-stream then a normal one, a
// usage limit, and a session with an MCP server (node MCP_SERVER) whose
// tool the model calls; then, in a new agent, it finds the first session
// in session/list and resumes it for another turn. The mock model API
// picks what the model does from the MOCK_SCENARIO=… word in each prompt.
// It prints one JSON object: what it saw, and each agent's exit status.
import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";

const [cwd, mcpServer, bin, ...args] = process.argv.slice(2);
const out = { turns: [] };

// agent runs one claude-acp and plays play against it with the SDK's
// client, then closes its stdin and records how it exited.
async function agent(name, play) {
  const child = spawn(bin, args, { stdio: ["pipe", "pipe", "inherit"] });
  const exited = new Promise((resolve) => child.on("exit", (code, signal) => resolve(signal ?? code)));
  const stream = acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));
  const state = { answers: [], updates: [], asked: [], cancelAfter: 0, sid: "" };
  const app = acp
    .client({ name: "codex-sdk" })
    .onNotification("session/update", async ({ params, ctx }) => {
      state.updates.push(params.update);
      const u = params.update;
      if (u.sessionUpdate === "agent_message_chunk" && state.cancelAfter > 0) {
        if (--state.cancelAfter === 0) await state.ctx.notify("session/cancel", { sessionId: params.sessionId });
      }
    })
    .onRequest("session/request_permission", ({ params }) => {
      const kind = state.answers.shift() ?? "reject_once";
      const tc = params.toolCall;
      const text = (tc.content ?? []).map((c) => (c.type === "diff" ? `diff ${c.path.split("/").pop()}: ${JSON.stringify(c.newText)}` : c.content?.text ?? "")).join(" | ");
      state.asked.push(`${tc.kind} ${tc.title} [${text}] -> ${kind}`);
      return { outcome: { outcome: "selected", optionId: params.options.find((o) => o.kind === kind).optionId } };
    });
  try {
    await app.connectWith(stream, async (ctx) => {
      state.ctx = ctx;
      await ctx.request("initialize", { protocolVersion: 1, clientCapabilities: { session: { notices: {} } } });
      await play(ctx, state);
    });
  } catch (e) {
    out.error = `${name}: ${e.stack ?? e}`;
  }
  child.stdin.end();
  out[name + "Exit"] = await exited;
}

// turn sends a prompt and records what came of it: the stop reason or the
// error, the agent's text, the tool calls' last titles and statuses with
// their output, the permission questions, and the usage.
async function turn(ctx, state, sid, label, text, { answers = [], cancelAfter = 0 } = {}) {
  state.updates = [];
  state.asked = [];
  state.answers = answers;
  state.cancelAfter = cancelAfter;
  const t = { label };
  try {
    const r = await ctx.request("session/prompt", { sessionId: sid, prompt: [{ type: "text", text }] });
    t.stop = r.stopReason;
    t.usage = r.usage ? r.usage.inputTokens > 0 && r.usage.outputTokens > 0 : false;
  } catch (e) {
    t.error = { code: e.code, kind: e.data?.kind, resetsAt: (e.data?.resetsAtMs ?? 0) > 0 };
  }
  const tools = new Map();
  let agentText = "";
  for (const u of state.updates) {
    if (u.sessionUpdate === "agent_message_chunk") agentText += u.content.text ?? "";
    if (u.sessionUpdate === "tool_call" || u.sessionUpdate === "tool_call_update") {
      const prev = tools.get(u.toolCallId) ?? {};
      const output = (u.content ?? []).filter((c) => c.type === "content").map((c) => c.content.text).join("");
      tools.set(u.toolCallId, { title: u.title ?? prev.title, status: u.status ?? prev.status, output: output || prev.output || "" });
    }
  }
  if (cancelAfter === 0) t.text = agentText;
  t.tools = [...tools.values()].map((x) => `${x.status} ${x.title}${x.output ? ": " + x.output.trim() : ""}`);
  t.asked = state.asked;
  t.usageUpdate = state.updates.some((u) => u.sessionUpdate === "usage_update" && u.used > 0 && u.size > 0);
  out.turns.push(t);
}

await agent("first", async (ctx, state) => {
  const s = await ctx.request("session/new", { cwd, mcpServers: [] });
  await turn(ctx, state, s.sessionId, "plain", "Say hello. MOCK_SCENARIO=plain-text");
  await turn(ctx, state, s.sessionId, "command approved", "Create cmd-ran.txt. MOCK_SCENARIO=cmd-approval-escalated", { answers: ["allow_once"] });
  await turn(ctx, state, s.sessionId, "command rejected", "Create cmd-ran.txt again. MOCK_SCENARIO=cmd-approval-escalated", { answers: ["reject_once"] });
  await turn(ctx, state, s.sessionId, "file change approved", "Create approved.txt. MOCK_SCENARIO=file-change-approval", { answers: ["allow_once"] });
  await turn(ctx, state, s.sessionId, "interrupted", "Tell me a long story. MOCK_SCENARIO=slow-text", { cancelAfter: 3 });
  await turn(ctx, state, s.sessionId, "after the interrupt", "Say hello again. MOCK_SCENARIO=plain-text");
  await turn(ctx, state, s.sessionId, "usage limit", "Once more. MOCK_SCENARIO=rate-limit-429-usage-limit");
  const m = await ctx.request("session/new", { cwd, mcpServers: [{ name: "echo", command: "node", args: [mcpServer], env: [] }] });
  await turn(ctx, state, m.sessionId, "mcp", "Call the echo tool. MOCK_SCENARIO=mcp-tool-call");
});

await agent("second", async (ctx, state) => {
  const list = await ctx.request("session/list", { cwd });
  const first = list.sessions.find((s) => (s.title ?? "").startsWith("Say hello. MOCK_SCENARIO=plain-text"));
  out.listed = list.sessions.length;
  if (!first) throw new Error("session/list shows no first session: " + JSON.stringify(list.sessions));
  await ctx.request("session/resume", { sessionId: first.sessionId, cwd, mcpServers: [] });
  await turn(ctx, state, first.sessionId, "resumed", "And again. MOCK_SCENARIO=plain-text");
});

console.log(JSON.stringify(out));
process.exit(0);
