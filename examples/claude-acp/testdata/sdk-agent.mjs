// sdk-agent.mjs drives claude-acp, serving an agent that speaks ACP (the
// real Gemini CLI, or the official SDK's example agent), as the official
// TypeScript SDK's v1 client does, for claude-acp's end-to-end tests:
//
//	node sdk-agent.mjs PLAY CWD AGENT [ARG...]
//
// It starts AGENT with ARGs and plays PLAY, in sessions in CWD, with a
// file system of its own on the disk (a missing file answered
// resource_not_found, as an editor does), and prints one JSON object:
// what it saw, and the agent's exit status once its stdin is closed.
//
// PLAY is one of
//
//	gemini      a turn; a command allowed, then one rejected; a file
//	            written through the editor; a turn cancelled; a mode
//	            change; a quota error; session/list
//	load        session/load of the session session/list shows first,
//	            then a turn
//	auth        a turn without credentials
//	example     the SDK's example agent's turn in three sessions at
//	            once: its edit allowed, rejected, and the turn cancelled
import { spawn } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";

const [play, cwd, bin, ...args] = process.argv.slice(2);
const agent = spawn(bin, args, { stdio: ["pipe", "pipe", "inherit"] });
const exited = new Promise((resolve) => agent.on("exit", (code, signal) => resolve(signal ?? code)));
const stream = acp.ndJsonStream(Writable.toWeb(agent.stdin), Readable.toWeb(agent.stdout));
const out = {};

// What the client saw of each session's turn under way, by session id,
// reset by turn().
const sessions = new Map();
const fresh = () => ({ text: "", tools: {}, updates: [], asked: [], answers: [] });
const seenBy = (id) => sessions.get(id) ?? sessions.set(id, fresh()).get(id);
const fs = { read: [], written: {} };

function record(id, u) {
  const seen = seenBy(id);
  seen.updates.push(u.sessionUpdate);
  switch (u.sessionUpdate) {
    case "agent_message_chunk":
      if (u.content.type === "text") seen.text += u.content.text;
      seen.onChunk?.();
      break;
    case "user_message_chunk":
      if (u.content.type === "text") seen.text += "[user] " + u.content.text + "\n";
      break;
    case "tool_call":
    case "tool_call_update":
      (seen.tools[u.toolCallId] ??= []).push(u.status ?? "");
      break;
    case "current_mode_update":
      seen.mode = u.currentModeId;
      break;
    case "usage_update":
      seen.usageUpdate = u.used > 0;
      break;
  }
}

const app = acp
  .client({ name: "sdk-agent-test" })
  .onNotification("session/update", ({ params }) => record(params.sessionId, params.update))
  .onRequest("session/request_permission", ({ params }) => {
    const seen = seenBy(params.sessionId);
    const kind = seen.answers.shift() ?? "reject_once";
    seen.asked.push(`${params.toolCall.toolCallId} ${kind}`);
    // The tool call was announced before the question.
    seen.announced = (seen.announced ?? true) && params.toolCall.toolCallId in seen.tools;
    if (kind === "cancelled") return { outcome: { outcome: "cancelled" } };
    const o = params.options.find((o) => o.kind === kind);
    return { outcome: { outcome: "selected", optionId: o.optionId } };
  })
  .onRequest("fs/read_text_file", async ({ params }) => {
    fs.read.push(params.path);
    try {
      return { content: await readFile(params.path, "utf8") };
    } catch {
      throw acp.RequestError.resourceNotFound(params.path);
    }
  })
  .onRequest("fs/write_text_file", async ({ params }) => {
    fs.written[params.path] = params.content;
    await writeFile(params.path, params.content);
    return {};
  });

// turn plays a prompt and returns what the session showed of it.
async function turn(ctx, sessionId, text, { answer = [], cancelAfterChunks = 0 } = {}) {
  const seen = fresh();
  sessions.set(sessionId, seen);
  seen.answers.push(...answer);
  if (cancelAfterChunks > 0) {
    let n = 0;
    seen.onChunk = () => {
      if (++n === cancelAfterChunks) ctx.notify("session/cancel", { sessionId });
    };
  }
  try {
    const r = await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text }] });
    seen.stopReason = r.stopReason;
    seen.usage = r.usage ? r.usage.inputTokens > 0 : undefined;
  } catch (e) {
    seen.error = { code: e.code, message: e.message, kind: e.data?.kind, status: e.data?.apiErrorStatus, resetsAtMs: e.data?.resetsAtMs };
  }
  const { updates, answers, onChunk, ...rest } = seen;
  return rest;
}

const capabilities = { fs: { readTextFile: true, writeTextFile: true } };

async function playGemini(ctx) {
  const s = await ctx.request("session/new", { cwd, mcpServers: [] });
  out.sessionId = s.sessionId;
  const id = s.sessionId;
  out.turn = await turn(ctx, id, "Say hello. MOCK_SCENARIO=plain-text");
  out.allowed = await turn(ctx, id, "Create made-by-shell.txt. MOCK_SCENARIO=tool-call-touch", { answer: ["allow_once"] });
  out.rejected = await turn(ctx, id, "Create it again. MOCK_SCENARIO=tool-call-touch", { answer: ["reject_once"] });
  out.written = await turn(ctx, id, "Write out.txt. MOCK_SCENARIO=write-file", { answer: ["allow_once"] });
  out.fs = fs;
  out.cancelled = await turn(ctx, id, "Tell me a long story. MOCK_SCENARIO=slow-stream", { cancelAfterChunks: 1 });
  delete out.cancelled.text;
  sessions.set(id, fresh());
  const set = await ctx.request("session/set_config_option", { sessionId: id, configId: "mode", value: "autoEdit" });
  out.mode = { told: seenBy(id).mode, option: set.configOptions.find((o) => o.id === "mode").currentValue };
  // A model set skips the CLI's classifier, whose quota errors it
  // retries however few attempts the settings allow.
  await ctx.request("session/set_config_option", { sessionId: id, configId: "model", value: "gemini-2.5-flash" });
  out.quota = await turn(ctx, id, "Say hello. MOCK_SCENARIO=rate-limit-429");
  const list = await ctx.request("session/list", { cwd });
  out.listed = list.sessions.filter((x) => x.sessionId === id).map((x) => ({ cwd: x.cwd, title: x.title }));
}

// playLoad loads the session that session/list shows first in cwd, as
// an editor's history does.
async function playLoad(ctx) {
  const list = await ctx.request("session/list", { cwd });
  const found = list.sessions[0];
  out.listed = list.sessions.map((x) => ({ cwd: x.cwd, title: x.title }));
  if (!found) throw new Error(`session/list shows no session in ${cwd}`);
  const id = found.sessionId;
  const seen = seenBy(id);
  await ctx.request("session/load", { sessionId: id, cwd, mcpServers: [] });
  // Everything the replay showed came before the answer.
  out.replayed = seen.text;
  out.replayUpdates = seen.updates.filter((u) => u.endsWith("_chunk") || u.startsWith("tool_call")).length;
  out.again = await turn(ctx, id, "And again. MOCK_SCENARIO=plain-text");
  out.lateReplay = out.again.text.includes("[user]");
}

async function playAuth(ctx) {
  const s = await ctx.request("session/new", { cwd, mcpServers: [] });
  out.turn = await turn(ctx, s.sessionId, "Say hello.");
}

// playExample plays three sessions at once, each served by an agent
// process of its own.
async function playExample(ctx) {
  const session = async (opts) => {
    const s = await ctx.request("session/new", { cwd, mcpServers: [] });
    const t = await turn(ctx, s.sessionId, "Improve the project.", opts);
    delete t.text;
    return t;
  };
  [out.allowed, out.rejected, out.cancelled] = await Promise.all([
    session({ answer: ["allow_once"] }),
    session({ answer: ["reject_once"] }),
    session({ cancelAfterChunks: 1 }),
  ]);
}

try {
  await app.connectWith(stream, async (ctx) => {
    const init = await ctx.request("initialize", { protocolVersion: 1, clientCapabilities: capabilities });
    out.agent = init.agentInfo?.name;
    out.image = init.agentCapabilities.promptCapabilities?.image ?? false;
    if (play === "gemini") await playGemini(ctx);
    else if (play === "load") await playLoad(ctx);
    else if (play === "auth") await playAuth(ctx);
    else await playExample(ctx);
  });
} catch (e) {
  out.error = String(e.stack ?? e);
}
agent.stdin.end();
out.exit = await exited;
console.log(JSON.stringify(out));
process.exit(0);
