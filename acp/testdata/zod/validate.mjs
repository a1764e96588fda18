// validate.mjs checks JSON-RPC lines against the zod schemas of the
// official TypeScript SDK, @agentclientprotocol/sdk, in both of its ACP v1
// editions (stable, and stable plus unstable). zod_test.go runs it.
//
// Usage: node validate.mjs <the SDK's package directory> <cases.json>
//
// cases.json lists {"file", "member", "schema", "unstable"}: the file
// holding one line, the member of the line to check ("params", "result",
// "error"), the schema type it must satisfy, and whether it holds what only
// the unstable edition defines. A line of that kind, and one of a type the
// stable edition lacks, is checked against the unstable edition only. Parsing with zod drops the members a
// schema does not know, so every member a line sends must also survive
// the unstable edition's parse: a misspelled one fails.
import { readFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const [sdk, casesPath] = process.argv.slice(2);
const load = (p) => import(pathToFileURL(path.join(sdk, p)).href);
const editions = {
  stable: await load("dist/v1/schema/zod.gen.js"),
  unstable: await load("dist/v1/unstable/schema/zod.gen.js"),
};

// lost returns the paths of the members of sent that parsed lacks.
function lost(sent, parsed, at) {
  if (Array.isArray(sent)) {
    if (!Array.isArray(parsed)) return [at];
    return sent.flatMap((v, i) => lost(v, parsed[i], `${at}[${i}]`));
  }
  if (sent !== null && typeof sent === "object") {
    if (parsed === null || typeof parsed !== "object") return [at];
    return Object.keys(sent).flatMap((k) =>
      k in parsed ? lost(sent[k], parsed[k], `${at}.${k}`) : [`${at}.${k}`],
    );
  }
  return [];
}

let failures = 0;
let checked = 0;
for (const c of JSON.parse(readFileSync(casesPath, "utf8"))) {
  const line = JSON.parse(readFileSync(c.file, "utf8"));
  const value = line[c.member];
  for (const [edition, schemas] of Object.entries(editions)) {
    if (c.unstable && edition === "stable") continue;
    const schema = schemas["z" + c.schema];
    if (!schema) {
      if (edition === "unstable") {
        failures++;
        console.log(`${c.file}: no schema z${c.schema} in the SDK`);
      }
      continue;
    }
    checked++;
    const r = schema.safeParse(value);
    if (!r.success) {
      failures++;
      console.log(`${c.file}: the ${edition} edition's z${c.schema} refuses the ${c.member}: ${r.error.message}`);
      continue;
    }
    if (edition === "unstable") {
      for (const p of lost(value, r.data, c.member)) {
        failures++;
        console.log(`${c.file}: z${c.schema} does not know ${p}`);
      }
    }
  }
}
console.log(`${checked} checks, ${failures} failures`);
process.exit(failures ? 1 : 0);
