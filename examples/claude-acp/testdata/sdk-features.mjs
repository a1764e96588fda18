// sdk-features.mjs drives claude-acp as an editor built on the official
// TypeScript SDK's v1 client (its unstable entry point, for session/fork)
// would, through one of the features of issue 32, for claude-acp's interop
// tests:
//
//	node sdk-features.mjs SCENARIO CWD AGENT [ARG...]
//
// SCENARIO is auth, effort, elicitation-accept, elicitation-decline, fork
// or context. It starts AGENT with ARGs, plays the scenario in a session
// in CWD, and prints one JSON object: what it saw, and the agent's exit
// status once its stdin is closed.
import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk/unstable";

const [scenario, cwd, bin, ...args] = process.argv.slice(2);
const agent = spawn(bin, args, { stdio: ["pipe", "pipe", "inherit"] });
const exited = new Promise((resolve) => agent.on("exit", (code, signal) => resolve(signal ?? code)));
const stream = acp.ndJsonStream(Writable.toWeb(agent.stdin), Readable.toWeb(agent.stdout));
const out = { scenario, texts: [] };

// text collects the agent text of each prompt, one string a prompt.
let text = "";
const options = {};
let optionsSeen;
const optionsCame = new Promise((resolve) => (optionsSeen = resolve));

const app = acp
  .client({ name: "sdk-features" })
  .onNotification("session/update", ({ params }) => {
    const u = params.update;
    if (u.sessionUpdate === "agent_message_chunk" && u.content.type === "text") text += u.content.text;
    if (u.sessionUpdate === "config_option_update") {
      for (const o of u.configOptions) options[o.id] = o;
      if (options.effort) optionsSeen();
    }
  })
  .onRequest("session/request_permission", ({ params }) => ({ outcome: { outcome: "cancelled" } }))
  .onRequest("elicitation/create", ({ params }) => {
    out.elicitation = `${params.mode} ${params.message} [${Object.keys(params.requestedSchema.properties).join(" ")}]`;
    if (scenario === "elicitation-decline") return { action: "decline" };
    return { action: "accept", content: { question_0: "Go" } };
  });

async function prompt(ctx, sessionId, words) {
  text = "";
  const r = await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: words }] });
  out.texts.push(text);
  return r.stopReason;
}

await app.connectWith(stream, async (ctx) => {
  try {
    const clientCapabilities = { auth: { terminal: true } };
    if (scenario.startsWith("elicitation")) clientCapabilities.elicitation = { form: {} };
    const init = await ctx.request("initialize", { protocolVersion: 1, clientCapabilities });
    out.authMethods = (init.authMethods ?? []).map((m) => `${m.type} ${m.id} ${(m.args ?? []).join(" ")}`);
    out.logout = !!init.agentCapabilities?.auth?.logout;
    out.fork = !!init.agentCapabilities?.sessionCapabilities?.fork;
    const s = await ctx.request("session/new", { cwd, mcpServers: [] });
    switch (scenario) {
      case "auth":
        try {
          await prompt(ctx, s.sessionId, "Say hello.");
        } catch (e) {
          out.promptError = `${e.code} ${e.message}`;
        }
        break;
      case "effort": {
        await optionsCame;
        out.effort = `${options.effort.category} ${options.effort.currentValue} ${options.effort.options.map((o) => o.value).join(" ")}`;
        await prompt(ctx, s.sessionId, "How much effort?");
        const set = await ctx.request("session/set_config_option", { sessionId: s.sessionId, configId: "effort", value: "low" });
        out.effortAfter = set.configOptions.find((o) => o.id === "effort").currentValue;
        await prompt(ctx, s.sessionId, "And now?");
        break;
      }
      case "elicitation-accept":
      case "elicitation-decline":
        out.stopReason = await prompt(ctx, s.sessionId, "Write me a script.");
        break;
      case "fork": {
        await prompt(ctx, s.sessionId, "Remember this.");
        const f = await ctx.request("session/fork", { sessionId: s.sessionId, cwd, mcpServers: [] });
        out.forkIsNew = f.sessionId !== s.sessionId;
        await prompt(ctx, f.sessionId, "What do you hold?");
        const list = await ctx.request("session/list", {});
        out.listed = [s.sessionId, f.sessionId].map((id) => list.sessions.some((x) => x.sessionId === id));
        break;
      }
      case "context":
        out.stopReason = await prompt(ctx, s.sessionId, "/context");
        out.texts = out.texts.map((t) => t.split("\n")[0]);
        break;
    }
  } catch (e) {
    out.error = String(e.stack ?? e);
  }
});
agent.stdin.end();
out.exit = await exited;
console.log(JSON.stringify(out));
process.exit(0);
