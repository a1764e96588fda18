// agent.mjs serves an ACP agent with the official TypeScript SDK's
// AcpServer over both remote profiles at /acp, for acphttp's interop
// tests and benchmarks:
//
//	node agent.mjs
//
// It prints "LISTEN <port>" once it listens on 127.0.0.1, and exits
// when its stdin ends. A prompt's words come back one update each;
// "ask" asks permission first; "bench N" sends N updates.
import http from "node:http";
import { agent } from "@agentclientprotocol/sdk";
import { AcpServer } from "@agentclientprotocol/sdk/experimental/server";
import { createNodeHttpHandler, createNodeWebSocketUpgradeHandler } from "@agentclientprotocol/sdk/experimental/node";
import { WebSocketServer } from "ws";

let n = 0;
const app = agent()
  .onRequest("initialize", () => ({ protocolVersion: 1, agentCapabilities: {} }))
  .onRequest("session/new", () => ({ sessionId: `ts-${++n}` }))
  .onRequest("session/prompt", async ({ params, client }) => {
    let text = params.prompt.map((b) => (b.type === "text" ? b.text : "")).join("");
    const update = (t) =>
      client.notify("session/update", {
        sessionId: params.sessionId,
        update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: t } },
      });
    const bench = /^bench (\d+)$/.exec(text);
    if (bench) {
      for (let i = 0; i < Number(bench[1]); i++) await update("chunk");
      return { stopReason: "end_turn" };
    }
    if (text === "ask") {
      const r = await client.request("session/request_permission", {
        sessionId: params.sessionId,
        toolCall: { toolCallId: "t1" },
        options: [{ optionId: "yes", name: "Yes", kind: "allow_once" }],
      });
      text = r.outcome.optionId;
    }
    for (const w of text.split(/\s+/).filter(Boolean)) await update(w);
    return { stopReason: "end_turn" };
  });

const server = new AcpServer({ agent: app });
const httpHandler = createNodeHttpHandler(server);
const wss = new WebSocketServer({ noServer: true });
const upgrade = createNodeWebSocketUpgradeHandler(server, wss);
const hs = http.createServer((req, res) => {
  if (new URL(req.url, "http://x").pathname !== "/acp") {
    res.statusCode = 404;
    res.end();
    return;
  }
  httpHandler(req, res);
});
hs.on("upgrade", upgrade);
hs.listen(0, "127.0.0.1", () => console.log(`LISTEN ${hs.address().port}`));
process.stdin.on("end", async () => {
  await server.close();
  process.exit(0);
});
process.stdin.resume();
