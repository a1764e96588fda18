// router.mjs serves the official TypeScript SDK's AgentProtocolRouter on
// stdin and stdout, for acpv2's router tests: the same agents as
// router_test.go's, each reporting on stderr, one JSON line each, the
// params of each initialize the router passed it.
//
//	node router.mjs '{"v1":true,"v2":true,"fail":0}'
import { Readable, Writable } from "node:stream";
import * as v1 from "@agentclientprotocol/sdk";
import * as v2 from "@agentclientprotocol/sdk/experimental/v2";

const config = JSON.parse(process.argv[2]);
let fail = config.fail ?? 0;
const failing = () => fail-- > 0;

// tap reports the params of every initialize an agent's stream carries.
const tap = (name, app) => ({
  connect(stream, options) {
    const reader = stream.readable.getReader();
    const readable = new ReadableStream({
      async pull(controller) {
        const next = await reader.read();
        if (next.done) return controller.close();
        if (next.value?.method === "initialize") {
          process.stderr.write(JSON.stringify({ agent: name, params: next.value.params }) + "\n");
        }
        controller.enqueue(next.value);
      },
      cancel: (reason) => reader.cancel(reason),
    });
    return app.connect({ readable, writable: stream.writable }, options);
  },
});

const router = v2.agentProtocolRouter();
if (config.v1) {
  router.withV1(tap("v1", v1.agent()
    .onRequest("initialize", ({ params }) => {
      if (failing()) throw new Error("not now");
      return { protocolVersion: Math.min(params.protocolVersion, 1) };
    })
    .onRequest("session/new", () => ({ sessionId: "v1" }))));
}
if (config.v2) {
  router.withV2(tap("v2", v2.agent()
    .onRequest("initialize", ({ params }) => {
      if (failing()) throw new Error("not now");
      return { protocolVersion: params.protocolVersion, info: { name: "agent", version: "1" } };
    })
    .onRequest("session/new", () => ({ sessionId: "v2" }))));
}
const stream = v2.ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin));
await router.connect(stream).closed;
process.exit(0);
