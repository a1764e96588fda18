// sdk-client.mjs drives claude-acp as a client of the official TypeScript SDK
// would, for claude-acp's interop tests:
//
//	node sdk-client.mjs v1|v2 CWD AGENT [ARG...]
//
// It starts AGENT with ARGs, plays one turn in a session in CWD with the
// SDK's client of the version it names (experimental/v2's for v2),
// allowing the one permission question the turn asks, and prints one
// JSON object: what it saw, and the agent's exit status once its stdin
// is closed.
import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";
import * as v1 from "@agentclientprotocol/sdk";
import * as v2 from "@agentclientprotocol/sdk/experimental/v2";

const [version, cwd, bin, ...args] = process.argv.slice(2);
const agent = spawn(bin, args, { stdio: ["pipe", "pipe", "inherit"] });
const exited = new Promise((resolve) => agent.on("exit", (code, signal) => resolve(signal ?? code)));
const stream = v2.ndJsonStream(Writable.toWeb(agent.stdin), Readable.toWeb(agent.stdout));
const out = {};

// allow answers a permission question with its allow_once option.
function allow(options) {
  return { outcome: { outcome: "selected", optionId: options.find((o) => o.kind === "allow_once").optionId } };
}

// describe writes a v2 session update, or a stop, as a line.
function describe(m) {
  if (m.kind === "stop") return `stop ${m.stopReason ?? ""}`;
  const u = m.update;
  const text = (blocks) => (blocks ?? []).filter((b) => b.type === "text").map((b) => b.text).join("|");
  switch (u.sessionUpdate) {
    case "user_message":
      return `user_message ${u.messageId} ${text(u.content)}`;
    case "agent_message_chunk":
      return `chunk ${u.messageId} ${JSON.stringify(u.content.text)}`;
    case "tool_call_update":
      return `tool ${u.toolCallId} ${u.status ?? ""} ${u.title ?? ""}`.trimEnd();
    case "state_update":
      return `state ${u.state}`;
  }
  return u.sessionUpdate;
}

async function playV2() {
  const app = v2.client({ name: "sdk-v2" }).onRequest("session/request_permission", ({ params }) => {
    out.permission = `${params.title} / ${params.subject?.type} ${params.subject?.toolCall?.toolCallId}`;
    return allow(params.options);
  });
  await app.connectWith(stream, async (ctx) => {
    const init = await ctx.request("initialize", { protocolVersion: 2, info: { name: "sdk-v2", version: "1" }, capabilities: {} });
    out.protocolVersion = init.protocolVersion;
    out.agent = init.info.name;
    const session = await ctx.buildSession(cwd).start();
    const ack = await session.prompt("Create an empty file named x.");
    out.ack = ack.messageId;
    out.turn = [];
    for (;;) {
      const line = describe(await session.nextUpdate());
      out.turn.push(line);
      if (line.startsWith("stop")) break;
    }
    await ctx.request("session/close", { sessionId: session.sessionId });
    session.dispose();
  });
}

async function playV1() {
  const texts = [];
  const app = v1
    .client({ name: "sdk-v1" })
    .onNotification("session/update", ({ params }) => {
      const u = params.update;
      if (u.sessionUpdate === "agent_message_chunk" && u.content.type === "text") texts.push(u.content.text);
    })
    .onRequest("session/request_permission", ({ params }) => {
      out.permission = `${params.toolCall.title} / toolCall ${params.toolCall.toolCallId}`;
      return allow(params.options);
    });
  await app.connectWith(stream, async (ctx) => {
    const init = await ctx.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
    out.protocolVersion = init.protocolVersion;
    out.agent = init.agentInfo?.name;
    const s = await ctx.request("session/new", { cwd, mcpServers: [] });
    const r = await ctx.request("session/prompt", { sessionId: s.sessionId, prompt: [{ type: "text", text: "Create an empty file named x." }] });
    out.stopReason = r.stopReason;
    out.text = texts.join("");
  });
}

try {
  await (version === "v2" ? playV2() : playV1());
} catch (e) {
  out.error = String(e.stack ?? e);
}
agent.stdin.end();
out.exit = await exited;
console.log(JSON.stringify(out));
process.exit(0);
