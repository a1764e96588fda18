// client.mjs drives an agent as a client of the official TypeScript SDK
// would, for echo-agent's interop tests:
//
//	node client.mjs v1|v2 AGENT [ARG...]
//
// It starts AGENT with ARGs, plays one session in the version it names
// with the SDK's client of that version (experimental/v2's for v2), and
// prints one JSON object: what it saw, and the agent's exit status once
// its stdin is closed.
import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";
import * as v1 from "@agentclientprotocol/sdk";
import * as v2 from "@agentclientprotocol/sdk/experimental/v2";

const [version, bin, ...args] = process.argv.slice(2);
const agent = spawn(bin, args, { stdio: ["pipe", "pipe", "inherit"] });
const exited = new Promise((resolve) => agent.on("exit", (code, signal) => resolve(signal ?? code)));
const stream = v2.ndJsonStream(Writable.toWeb(agent.stdin), Readable.toWeb(agent.stdout));
const out = {};

// describe writes a v2 session update, or a stop, as a line.
function describe(m) {
  if (m.kind === "stop") return `stop ${m.stopReason ?? ""}`;
  const u = m.update;
  const text = (blocks) => (blocks ?? []).filter((b) => b.type === "text").map((b) => b.text).join("|");
  switch (u.sessionUpdate) {
    case "user_message":
    case "agent_message":
      return `${u.sessionUpdate} ${u.messageId} ${text(u.content)}`;
    case "agent_message_chunk":
      return `chunk ${u.messageId} ${JSON.stringify(u.content.text)}`;
    case "state_update":
      return `state ${u.state}`;
    case "usage_update":
      return `usage used=${u.used} size=${u.size}`;
  }
  return u.sessionUpdate;
}

// until reads the session's updates up to the first that want accepts.
async function until(session, want) {
  const lines = [];
  for (;;) {
    const line = describe(await session.nextUpdate());
    lines.push(line);
    if (want(line)) return lines;
  }
}

async function playV2() {
  const app = v2.client({ name: "sdk-v2" });
  await app.connectWith(stream, async (ctx) => {
    const init = await ctx.request("initialize", { protocolVersion: 2, info: { name: "sdk-v2", version: "1" }, capabilities: {} });
    out.protocolVersion = init.protocolVersion;
    out.agent = init.info.name;
    const session = await ctx.buildSession("/work").start();
    const ack = await session.prompt("hello there");
    out.ack = ack.messageId;
    out.turn = await until(session, (l) => l.startsWith("stop"));

    await session.prompt("word ".repeat(300));
    await until(session, (l) => l === "state running");
    await ctx.notify("session/cancel", { sessionId: session.sessionId });
    out.cancelled = (await until(session, (l) => l.startsWith("stop"))).at(-1);

    await ctx.request("session/resume", { sessionId: session.sessionId, cwd: "/work", replayFrom: { type: "start" } });
    out.replay = (await until(session, (l) => l.startsWith("stop"))).map((l) => l.slice(0, 40));
    out.sessions = (await ctx.request("session/list", {})).sessions.map((s) => [s.sessionId, s.cwd]);
    await ctx.request("session/close", { sessionId: session.sessionId });
    session.dispose();
  });
}

async function playV1() {
  const texts = [];
  const app = v1.client({ name: "sdk-v1" }).onNotification("session/update", ({ params }) => {
    const u = params.update;
    if (u.sessionUpdate === "agent_message_chunk" && u.content.type === "text") texts.push(u.content.text);
  });
  await app.connectWith(stream, async (ctx) => {
    const init = await ctx.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
    out.protocolVersion = init.protocolVersion;
    out.agent = init.agentInfo?.name;
    const s = await ctx.request("session/new", { cwd: "/work", mcpServers: [] });
    const r = await ctx.request("session/prompt", { sessionId: s.sessionId, prompt: [{ type: "text", text: "hello there" }] });
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
