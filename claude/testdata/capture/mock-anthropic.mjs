// Mock Anthropic Messages API for capturing real Claude Code CLI output offline.
// Plain Node `http`, no dependencies. Listens on 127.0.0.1 only.
//
// VARIANT for the control-protocol captures (../mock-anthropic.mjs is the
// original, unchanged). Additions, marked "control variant" below:
//   - scenario `slow-text`: a streamed text reply whose deltas are written
//     MOCK_DELAY_MS apart (default 300 ms, 30 chunks): a turn to interrupt.
//   - scenario `permission-touch`: Bash `touch x` (needs permission in default
//     mode); the follow-up text says whether the tool_result was an error.
//   - scenario `image`: a text reply that counts the image blocks it got.
//   - scenario `mcp-tool`: calls the tool mcp__sdk1__echo {text:"hi"} (an SDK
//     MCP server that the driver serves over mcp_message), then echoes its result.
//   - the log entry records whether the client hung up before the end.
//
// acpkit additions (claude/testdata/capture), marked "acpkit" below:
//   - scenario `ask-user`: an AskUserQuestion call with one single-select
//     question; the follow-up text repeats the tool result's first line.
//   - scenario `ask-user-multi`: the same with two questions, one of them
//     multi-select.
//   - scenario `subagent`: a Task call; the subagent (whose first user
//     message holds SUBAGENT_TASK) thinks, says a sentence, runs
//     `echo hello` with Bash and answers; the parent then repeats the answer.
//   - scenario `count`: a text reply that counts the person's prompts in the
//     request, and names the effort the request asked for
//     (output_config.effort, or "unset"): the conversation a fork carries,
//     and the effort a turn ran at.
//
// Env:
//   MOCK_PORT       port to listen on (default 0 = pick a free one)
//   MOCK_PORT_FILE  if set, the chosen port is written there once listening
//   MOCK_LOG        JSONL file: one line per request (method, path, headers, body)
//   MOCK_SCENARIO   default scenario (list below)
//   MOCK_RESET_EPOCH  unix seconds used in rate-limit reset headers
//                     (default: now + 3h, rounded down to the hour)
//
// A marker "MOCK_SCENARIO=<name>" anywhere in the user messages of a request
// overrides MOCK_SCENARIO for that request.
//
// Scenarios: plain-text, tool-use (alias max-turns), permission-denied, multi-block, thinking,
// rate-limit-allowed, rate-limit-warning, rate-limit-rejected,
// rate-limit-rejected-weekly, api-error-401, api-error-500,
// api-error-529. Requests without a Bash tool (side requests) always get a
// short plain-text reply.

import http from 'node:http';
import fs from 'node:fs';
import crypto from 'node:crypto';

const PORT = Number(process.env.MOCK_PORT || 0);
const LOG = process.env.MOCK_LOG || '';
const DEFAULT_SCENARIO = process.env.MOCK_SCENARIO || 'plain-text';
const nowSec = () => Math.floor(Date.now() / 1000);
const RESET_EPOCH = Number(process.env.MOCK_RESET_EPOCH ||
  (Math.floor((nowSec() + 3 * 3600) / 3600) * 3600));

let seq = 0;
const B62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
// Random base62 id in the shape of the real API's ids (msg_01…, toolu_01…, req_011C…).
const rid = (prefix, n = 22) => prefix + Array.from(crypto.randomBytes(n), (b) => B62[b % 62]).join('');

function log(entry) {
  if (!LOG) return;
  fs.appendFileSync(LOG, JSON.stringify({ t: new Date().toISOString(), ...entry }) + '\n');
}

// ---------- request inspection ----------

function textOf(content) {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((b) => {
    if (b.type === 'text') return b.text;
    if (b.type === 'tool_result') return textOf(b.content);
    return '';
  }).join('\n');
}

function scenarioFor(body) {
  let sc = DEFAULT_SCENARIO;
  for (const m of body.messages || []) {
    if (m.role !== 'user') continue;
    const mm = /MOCK_SCENARIO=([a-z0-9-]+)/.exec(textOf(m.content));
    if (mm) sc = mm[1];
  }
  return sc;
}

function lastUserHasToolResult(body) {
  const msgs = body.messages || [];
  const last = msgs[msgs.length - 1];
  return !!(last && last.role === 'user' && Array.isArray(last.content) &&
    last.content.some((b) => b.type === 'tool_result'));
}

function hasTool(body, name) {
  return Array.isArray(body.tools) && body.tools.some((t) => t.name === name);
}

function estimateInputTokens(body) {
  // Rough, deterministic: 1 token per 4 chars of JSON of system+messages+tools.
  const s = JSON.stringify([body.system || '', body.messages || [], body.tools || []]);
  return Math.max(1, Math.ceil(s.length / 4));
}

// ---------- response scripting ----------
// A "plan" is a list of content blocks + stop_reason; streamed or returned whole.

// acpkit: the prompts a person typed (user text, not tool results).
function userPrompts(body) {
  return (body.messages || []).filter((m) => m.role === 'user' && (typeof m.content === 'string' ||
    (Array.isArray(m.content) && m.content.some((b) => b.type === 'text' && !/^<system-reminder>/.test(b.text))))).length;
}

// acpkit: the first user text of a request, where a subagent's task is.
function firstUserText(body) {
  const m = (body.messages || []).find((m) => m.role === 'user');
  return m ? textOf(m.content) : '';
}

function anyToolResult(body) {
  return (body.messages || []).some((m) => m.role === 'user' && Array.isArray(m.content) && m.content.some((b) => b.type === 'tool_result'));
}

function lastToolResultText(body) {
  let text = '';
  for (const m of body.messages || []) {
    if (m.role !== 'user' || !Array.isArray(m.content)) continue;
    for (const b of m.content) if (b.type === 'tool_result') text = textOf(b.content);
  }
  return text;
}

function planFor(body) {
  const sc = scenarioFor(body);
  // acpkit: a subagent's requests, told by the task the parent gave it.
  if (/SUBAGENT_TASK/.test(firstUserText(body))) {
    if (anyToolResult(body)) {
      return { scenario: 'subagent-child', blocks: [{ type: 'text', text: 'The subagent ran echo and saw: ' + lastToolResultText(body).split('\n')[0].slice(0, 100) }], stop_reason: 'end_turn' };
    }
    return { scenario: 'subagent-child', blocks: [
      { type: 'thinking', thinking: 'I should run echo to see what it prints.', signature: 'EqQBCkYIBxgCKkA' + crypto.randomBytes(48).toString('base64') },
      { type: 'text', text: 'Let me check with the shell.' },
      { type: 'tool_use', id: rid('toolu_01', 22), name: 'Bash', input: { command: 'echo hello', description: 'Print hello' } },
    ], stop_reason: 'tool_use' };
  }
  const main = hasTool(body, 'Bash'); // side requests (titles, etc.) carry no Bash tool
  const toolTurnDone = lastUserHasToolResult(body);
  const bash = () => ({ type: 'tool_use', id: rid('toolu_01', 22), name: 'Bash',
    input: { command: 'echo hello', description: 'Print hello' } });

  if (!main) {
    return { scenario: sc, side: true, blocks: [{ type: 'text', text: 'Mock session' }], stop_reason: 'end_turn' };
  }
  switch (sc) {
    case 'tool-use':
    case 'max-turns':
      if (toolTurnDone) return { scenario: sc, blocks: [{ type: 'text', text: 'The command printed: hello' }], stop_reason: 'end_turn' };
      return { scenario: sc, blocks: [bash()], stop_reason: 'tool_use' };
    case 'permission-denied': // a command that needs permission (not read-only)
      if (toolTurnDone) return { scenario: sc, blocks: [{ type: 'text', text: 'I was not allowed to create the file.' }], stop_reason: 'end_turn' };
      return { scenario: sc, blocks: [{ type: 'tool_use', id: rid('toolu_01', 22), name: 'Bash',
        input: { command: 'touch hello.txt', description: 'Create hello.txt' } }], stop_reason: 'tool_use' };
    case 'multi-block':
      if (toolTurnDone) return { scenario: sc, blocks: [{ type: 'text', text: 'Done. The output was "hello".' }], stop_reason: 'end_turn' };
      return { scenario: sc, blocks: [{ type: 'text', text: "I'll run a quick command to check." }, bash()], stop_reason: 'tool_use' };
    case 'thinking':
      return { scenario: sc, blocks: [
        { type: 'thinking', thinking: 'The user asks for 2 + 2. That is 4.', signature: 'EqQBCkYIBxgCKkA' + crypto.randomBytes(48).toString('base64') },
        { type: 'text', text: '2 + 2 = 4.' },
      ], stop_reason: 'end_turn' };
    case 'rate-limit-allowed':
      return { scenario: sc, blocks: [{ type: 'text', text: 'Hello from the mock server. 2 + 2 = 4.' }], stop_reason: 'end_turn',
        headers: rateLimitHeaders('allowed') };
    case 'rate-limit-warning':
      return { scenario: sc, blocks: [{ type: 'text', text: 'Hello! You are close to your usage limit.' }], stop_reason: 'end_turn',
        headers: rateLimitHeaders('allowed_warning') };
    case 'rate-limit-rejected':
      return { scenario: sc, error: { status: 429, type: 'rate_limit_error',
        message: 'This request would exceed your account\'s rate limit. Please try again later.' },
        headers: { ...rateLimitHeaders('rejected'), 'retry-after': String(Math.max(0, RESET_EPOCH - nowSec())) } };
    case 'rate-limit-rejected-weekly': {
      const headers = rateLimitHeaders('rejected', 'seven_day');
      return { scenario: sc, error: { status: 429, type: 'rate_limit_error',
        message: 'This request would exceed your account\'s rate limit. Please try again later.' },
        headers: { ...headers, 'retry-after': String(Math.max(0, Number(headers['anthropic-ratelimit-unified-reset']) - nowSec())) } };
    }
    case 'api-error-401':
      return { scenario: sc, error: { status: 401, type: 'authentication_error', message: 'invalid x-api-key' } };
    case 'api-error-500':
      return { scenario: sc, error: { status: 500, type: 'api_error', message: 'Internal server error' } };
    case 'api-error-529':
      return { scenario: sc, error: { status: 529, type: 'overloaded_error', message: 'Overloaded' } };
    // control variant: slow streamed reply (interrupt target)
    case 'slow-text':
      return { scenario: sc, slow: true, blocks: [{ type: 'text', text: 'This reply streams slowly so that the client can interrupt it before it ends. '.repeat(4) }], stop_reason: 'end_turn' };
    // control variant: a Bash call that needs permission; reply depends on the tool_result
    case 'permission-touch': {
      if (toolTurnDone) {
        const msgs = body.messages || [];
        const last = msgs[msgs.length - 1];
        const tr = last.content.find((b) => b.type === 'tool_result');
        const txt = tr && tr.is_error ? 'The tool call was refused: ' + textOf(tr.content).split('\n')[0].slice(0, 200) : 'Created the file x.';
        return { scenario: sc, blocks: [{ type: 'text', text: txt }], stop_reason: 'end_turn' };
      }
      return { scenario: sc, blocks: [{ type: 'tool_use', id: rid('toolu_01', 22), name: 'Bash',
        input: { command: 'touch x', description: 'Create empty file x' } }], stop_reason: 'tool_use' };
    }
    // control variant: call an in-process (SDK) MCP tool
    case 'mcp-tool':
      if (toolTurnDone) {
        const msgs = body.messages || [];
        const tr = msgs[msgs.length - 1].content.find((b) => b.type === 'tool_result');
        return { scenario: sc, blocks: [{ type: 'text', text: 'The MCP tool said: ' + textOf(tr && tr.content).split('\n')[0].slice(0, 200) }], stop_reason: 'end_turn' };
      }
      return { scenario: sc, blocks: [{ type: 'tool_use', id: rid('toolu_01', 22), name: 'mcp__sdk1__echo', input: { text: 'hi' } }], stop_reason: 'tool_use' };
    // control variant: report image blocks seen in the last user message
    case 'image': {
      const msgs = body.messages || [];
      const last = msgs[msgs.length - 1];
      const blocks = last && Array.isArray(last.content) ? last.content : [];
      const imgs = blocks.filter((b) => b.type === 'image');
      const desc = imgs.map((b) => `${b.source && b.source.type}/${b.source && b.source.media_type}/${b.source && b.source.data ? b.source.data.length : 0}`).join(', ');
      return { scenario: sc, blocks: [{ type: 'text', text: `I received ${imgs.length} image block(s): ${desc || 'none'}.` }], stop_reason: 'end_turn' };
    }
    // acpkit: AskUserQuestion, one single-select question
    case 'ask-user':
    case 'ask-user-multi': {
      if (toolTurnDone) {
        return { scenario: sc, blocks: [{ type: 'text', text: 'The answer came back: ' + lastToolResultText(body).split('\n')[0].slice(0, 300) }], stop_reason: 'end_turn' };
      }
      const questions = [{ question: 'Which language should the script use?', header: 'Language', multiSelect: false,
        options: [{ label: 'Go', description: 'Compiled, one static binary' }, { label: 'Python', description: 'Quick to write' }] }];
      if (sc === 'ask-user-multi') {
        questions.push({ question: 'Which checks should run?', header: 'Checks', multiSelect: true,
          options: [{ label: 'vet', description: 'go vet' }, { label: 'tests', description: 'go test' }, { label: 'lint', description: 'staticcheck' }] });
      }
      return { scenario: sc, blocks: [{ type: 'tool_use', id: rid('toolu_01', 22), name: 'AskUserQuestion', input: { questions } }], stop_reason: 'tool_use' };
    }
    // acpkit: a Task call, whose subagent is served above
    case 'subagent': {
      if (anyToolResult(body)) {
        return { scenario: sc, blocks: [{ type: 'text', text: 'The subagent reported back.' }], stop_reason: 'end_turn' };
      }
      const task = hasTool(body, 'Agent') ? 'Agent' : 'Task';
      return { scenario: sc, blocks: [{ type: 'text', text: 'I will ask a subagent.' }, { type: 'tool_use', id: rid('toolu_01', 22), name: task,
        input: { description: 'Check echo', prompt: 'SUBAGENT_TASK: run echo hello and report what it printed.', subagent_type: 'general-purpose', run_in_background: false } }], stop_reason: 'tool_use' };
    }
    // acpkit: counts the prompts, names the effort
    case 'count': {
      const effort = (body.output_config && body.output_config.effort) || 'unset';
      return { scenario: sc, blocks: [{ type: 'text', text: `This conversation holds ${userPrompts(body)} prompt(s); effort ${effort}.` }], stop_reason: 'end_turn' };
    }
    case 'plain-text':
    default:
      return { scenario: sc, blocks: [{ type: 'text', text: 'Hello from the mock server. 2 + 2 = 4.' }], stop_reason: 'end_turn' };
  }
}

// Unified (subscription) rate-limit headers. claim: five_hour | seven_day,
// the window that is limiting (representative claim).
function rateLimitHeaders(status, claim = 'five_hour') {
  const weekReset = RESET_EPOCH + 4 * 86400;
  const fiveH = claim === 'five_hour' ? status : 'allowed';
  const sevenD = claim === 'seven_day' ? status : 'allowed';
  const util = (st, calm) => (st === 'rejected' ? '1.0' : st === 'allowed_warning' ? '0.92' : calm);
  const h = {
    'anthropic-ratelimit-unified-status': status,
    'anthropic-ratelimit-unified-reset': String(claim === 'seven_day' ? weekReset : RESET_EPOCH),
    'anthropic-ratelimit-unified-representative-claim': claim,
    'anthropic-ratelimit-unified-fallback-percentage': '0.5',
    'anthropic-ratelimit-unified-5h-status': fiveH,
    'anthropic-ratelimit-unified-5h-reset': String(RESET_EPOCH),
    'anthropic-ratelimit-unified-5h-utilization': util(fiveH, '0.27'),
    'anthropic-ratelimit-unified-7d-status': sevenD,
    'anthropic-ratelimit-unified-7d-reset': String(weekReset),
    'anthropic-ratelimit-unified-7d-utilization': util(sevenD, '0.41'),
    'anthropic-ratelimit-unified-overage-status': 'rejected',
    'anthropic-ratelimit-unified-overage-disabled-reason': 'org_level_disabled',
  };
  const pre = claim === 'seven_day' ? '7d' : '5h';
  if (status === 'allowed_warning') h[`anthropic-ratelimit-unified-${pre}-surpassed-threshold`] = '0.9';
  if (status === 'rejected') h[`anthropic-ratelimit-unified-${pre}-surpassed-threshold`] = '1';
  if (process.env.MOCK_RL_FALLBACK) h['anthropic-ratelimit-unified-fallback'] = process.env.MOCK_RL_FALLBACK;
  return h;
}

function commonHeaders(extra = {}) {
  const reset = new Date(Date.now() + 60_000).toISOString().replace(/\.\d+Z$/, 'Z');
  return {
    'request-id': rid('req_011C', 20),
    'anthropic-organization-id': '00000000-0000-4000-8000-000000000000',
    'anthropic-ratelimit-requests-limit': '4000',
    'anthropic-ratelimit-requests-remaining': '3999',
    'anthropic-ratelimit-requests-reset': reset,
    'anthropic-ratelimit-input-tokens-limit': '2000000',
    'anthropic-ratelimit-input-tokens-remaining': '2000000',
    'anthropic-ratelimit-input-tokens-reset': reset,
    'anthropic-ratelimit-output-tokens-limit': '400000',
    'anthropic-ratelimit-output-tokens-remaining': '400000',
    'anthropic-ratelimit-output-tokens-reset': reset,
    'anthropic-ratelimit-tokens-limit': '2400000',
    'anthropic-ratelimit-tokens-remaining': '2400000',
    'anthropic-ratelimit-tokens-reset': reset,
    'via': '1.1 google',
    'x-robots-tag': 'none',
    ...extra,
  };
}

function usageFor(body, plan) {
  const input = estimateInputTokens(body);
  // Pretend the system prompt + tools are cached after the first call.
  const cached = plan.side ? 0 : Math.floor(input * 0.8);
  const first = !(body.messages || []).some((m) => m.role === 'assistant');
  const out = plan.blocks.reduce((n, b) => n + Math.ceil(JSON.stringify(b).length / 4), 0);
  return {
    input_tokens: input - cached,
    cache_creation_input_tokens: first ? cached : 0,
    cache_read_input_tokens: first ? 0 : cached,
    cache_creation: { ephemeral_5m_input_tokens: first ? cached : 0, ephemeral_1h_input_tokens: 0 },
    output_tokens: out,
    service_tier: 'standard',
  };
}

// The real API answers an alias with the dated model id it resolved to.
const MODEL_IDS = {
  'claude-sonnet-4-5': 'claude-sonnet-4-5-20250929',
  'claude-haiku-4-5': 'claude-haiku-4-5-20251001',
  'claude-opus-4-1': 'claude-opus-4-1-20250805',
  'claude-sonnet-4-0': 'claude-sonnet-4-20250514',
};

function messageObj(body, plan, usage, content) {
  const model = MODEL_IDS[body.model] || body.model || 'claude-sonnet-4-5-20250929';
  return {
    id: rid('msg_01'), type: 'message', role: 'assistant', model,
    content, stop_reason: plan.stop_reason, stop_sequence: null, usage,
  };
}

function chunks(s, n) {
  const out = [];
  for (let i = 0; i < s.length; i += n) out.push(s.slice(i, i + n));
  return out.length ? out : [''];
}

function sendError(res, plan) {
  const e = plan.error;
  const body = { type: 'error', error: { type: e.type, message: e.message }, request_id: rid('req_011C', 20) };
  res.writeHead(e.status, commonHeaders({ 'content-type': 'application/json', 'x-should-retry': e.status >= 500 ? 'true' : 'false', ...(plan.headers || {}) }));
  res.end(JSON.stringify(body));
}

async function sendStream(res, body, plan) {
  const usage = usageFor(body, plan);
  res.writeHead(200, commonHeaders({
    'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'connection': 'keep-alive',
    ...(plan.headers || {}),
  }));
  const ev = (name, data) => res.write(`event: ${name}\ndata: ${JSON.stringify(data)}\n\n`);
  const startUsage = { ...usage, output_tokens: 1 };
  const msg = messageObj(body, plan, startUsage, []);
  msg.stop_reason = null;
  ev('message_start', { type: 'message_start', message: msg });
  ev('ping', { type: 'ping' });
  // control variant: slow plans pause MOCK_DELAY_MS between text deltas
  const DELAY = Number(process.env.MOCK_DELAY_MS || 300);
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  for (const [index, b] of plan.blocks.entries()) {
    if (res.destroyed) break;
    if (b.type === 'text' && plan.slow) {
      ev('content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
      for (const c of chunks(b.text, 11)) {
        if (res.destroyed) break;
        ev('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'text_delta', text: c } });
        await sleep(DELAY);
      }
    } else if (b.type === 'text') {
      ev('content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
      for (const c of chunks(b.text, 12)) ev('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'text_delta', text: c } });
    } else if (b.type === 'thinking') {
      ev('content_block_start', { type: 'content_block_start', index, content_block: { type: 'thinking', thinking: '', signature: '' } });
      for (const c of chunks(b.thinking, 16)) ev('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'thinking_delta', thinking: c } });
      ev('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'signature_delta', signature: b.signature } });
    } else if (b.type === 'tool_use') {
      ev('content_block_start', { type: 'content_block_start', index, content_block: { type: 'tool_use', id: b.id, name: b.name, input: {} } });
      ev('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: '' } });
      for (const c of chunks(JSON.stringify(b.input), 10)) ev('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: c } });
    }
    ev('content_block_stop', { type: 'content_block_stop', index });
  }
  if (res.destroyed) { log({ n: body.__n, aborted_by_client: true }); return; }
  ev('message_delta', { type: 'message_delta', delta: { stop_reason: plan.stop_reason, stop_sequence: null },
    usage: { input_tokens: usage.input_tokens, cache_creation_input_tokens: usage.cache_creation_input_tokens,
      cache_read_input_tokens: usage.cache_read_input_tokens, output_tokens: usage.output_tokens } });
  ev('message_stop', { type: 'message_stop' });
  res.end();
}

function sendWhole(res, body, plan) {
  const usage = usageFor(body, plan);
  res.writeHead(200, commonHeaders({ 'content-type': 'application/json', ...(plan.headers || {}) }));
  res.end(JSON.stringify(messageObj(body, plan, usage, plan.blocks)));
}

const server = http.createServer((req, res) => {
  const bufs = [];
  req.on('data', (d) => bufs.push(d));
  req.on('end', async () => {
    const raw = Buffer.concat(bufs).toString('utf8');
    let body = null;
    try { body = raw ? JSON.parse(raw) : null; } catch { body = null; }
    const n = ++seq;
    const path = req.url.split('?')[0];
    const entry = { n, method: req.method, url: req.url, headers: req.headers, body: body ?? raw };
    try {
      if (req.method === 'POST' && path === '/v1/messages/count_tokens') {
        const tokens = estimateInputTokens(body || {});
        log({ ...entry, reply: { status: 200, input_tokens: tokens } });
        res.writeHead(200, commonHeaders({ 'content-type': 'application/json' }));
        res.end(JSON.stringify({ input_tokens: tokens }));
        return;
      }
      if (req.method === 'POST' && path === '/v1/messages') {
        const plan = planFor(body || {});
        log({ ...entry, reply: { scenario: plan.scenario, side: !!plan.side, stream: !!(body && body.stream),
          status: plan.error ? plan.error.status : 200, stop_reason: plan.stop_reason,
          blocks: plan.blocks && plan.blocks.map((b) => b.type), headers: plan.headers } });
        if (plan.error) return sendError(res, plan);
        if (body && body.stream) { Object.defineProperty(body, '__n', { value: n, enumerable: false }); return await sendStream(res, body, plan); }
        return sendWhole(res, body || {}, plan);
      }
      log({ ...entry, reply: { status: 404, unknown: true } });
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ type: 'error', error: { type: 'not_found_error', message: `Not found: ${req.method} ${path}` } }));
    } catch (e) {
      log({ ...entry, reply: { status: 500, exception: String(e && e.stack || e) } });
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ type: 'error', error: { type: 'api_error', message: 'mock exception' } }));
    }
  });
});

server.listen(PORT, '127.0.0.1', () => {
  const port = server.address().port;
  if (process.env.MOCK_PORT_FILE) fs.writeFileSync(process.env.MOCK_PORT_FILE, String(port));
  process.stderr.write(`mock-anthropic listening on 127.0.0.1:${port} scenario=${DEFAULT_SCENARIO}\n`);
});
for (const sig of ['SIGTERM', 'SIGINT']) process.on(sig, () => server.close(() => process.exit(0)));
