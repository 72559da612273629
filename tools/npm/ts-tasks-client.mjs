#!/usr/bin/env node
// ts-tasks-client.mjs drives one tool call through the official Tasks extension
// client (@modelcontextprotocol/ext-tasks, its createTaskSessionFromClient over the
// TypeScript client v2, @modelcontextprotocol/client 2.4.0), so Go tests can check
// mcpkit's io.modelcontextprotocol/tasks against a client nobody here wrote.
//
// Usage: node ts-tasks-client.mjs --url http://host:port/mcp --tool NAME [--args JSON] [--cancel-after MS]
//
// It connects at 2026-07-28 (server/discover), calls the tool with the extension
// declared, follows the task the server answers with (tasks/get) to its outcome, or
// cancels it (tasks/cancel) after --cancel-after ms, and prints ONE JSON line:
//   {"kind":"task"|"immediate","taskId":..,"status":..,"result":..,"statuses":[..]}
// Failures go to stderr with exit code 1.
//
// @modelcontextprotocol/ext-tasks 0.2.2 is in package-lock.json as a dependency of the
// Inspector (2.12.0); the Go test that runs this script checks that version.
//
// The SDK Client's own codecs do not carry the extension's wire shapes at
// 2026-07-28, so, as ext-tasks documents, the host supplies the raw request path
// (rawDispatch: one POST per request, with the Mcp-Method and Mcp-Name headers the
// transport requires) and the per-request _meta framing (v2RequestFraming).

import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createTaskSessionFromClient } from '@modelcontextprotocol/ext-tasks/client';

const TASKS = 'io.modelcontextprotocol/tasks';
const VERSION = '2026-07-28';

function parseArgs(argv) {
  const opts = { args: {}, cancelAfter: 0 };
  for (let i = 0; i < argv.length; i++) {
    const v = argv[i + 1];
    switch (argv[i]) {
      case '--url': opts.url = v; i++; break;
      case '--tool': opts.tool = v; i++; break;
      case '--args': opts.args = JSON.parse(v); i++; break;
      case '--cancel-after': opts.cancelAfter = Number(v); i++; break;
      default: throw new Error(`unknown flag ${argv[i]}`);
    }
  }
  if (!opts.url || !opts.tool) throw new Error('usage: ts-tasks-client.mjs --url URL --tool NAME [--args JSON] [--cancel-after MS]');
  return opts;
}

/** rawDispatch posts one JSON-RPC request as a 2026-07-28 client does and returns its response. */
function rawDispatcher(url) {
  let nextId = 1;
  return async (req, options) => {
    // The adapter hands over the method and params; the JSON-RPC envelope is ours.
    const request = { jsonrpc: '2.0', id: req.id ?? `ts-tasks-${nextId++}`, ...req };
    const params = request.params ?? {};
    const headers = {
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      'MCP-Protocol-Version': VERSION,
      'Mcp-Method': request.method,
    };
    const name = request.method === 'resources/read' ? params.uri
      : request.method.startsWith('tasks/') ? params.taskId : params.name;
    if (typeof name === 'string') headers['Mcp-Name'] = name;
    const resp = await fetch(url, { method: 'POST', headers, body: JSON.stringify(request), signal: options?.signal });
    const text = await resp.text();
    if ((resp.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
      let last;
      for (const line of text.split(/\r?\n/)) {
        if (!line.startsWith('data:')) continue;
        const msg = JSON.parse(line.slice(5).trim());
        if (msg.id === request.id && ('result' in msg || 'error' in msg)) last = msg;
      }
      if (!last) throw new Error(`no response to ${request.method} in the event stream`);
      return last;
    }
    return JSON.parse(text);
  };
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const capabilities = { extensions: { [TASKS]: {} } };
  const client = new Client({ name: 'ts-tasks-client', version: '1.0.0' }, { capabilities, versionNegotiation: { mode: 'auto' } });
  await client.connect(new StreamableHTTPClientTransport(new URL(opts.url)));
  const session = createTaskSessionFromClient(client, {
    endpointId: opts.url,
    rawDispatch: rawDispatcher(opts.url),
    v2RequestFraming: { protocolVersion: VERSION, clientInfo: { name: 'ts-tasks-client', version: '1.0.0' }, clientCapabilities: capabilities },
  });
  try {
    const execution = await session.callTool(opts.tool, opts.args);
    const statuses = [];
    const out = { kind: execution.kind, taskId: execution.handle?.taskId };
    if (opts.cancelAfter > 0 && execution.kind === 'task') {
      setTimeout(() => { execution.cancel().catch((e) => console.error('cancel:', e)); }, opts.cancelAfter);
    }
    const { outcome, lastTask } = await execution.settle();
    if (lastTask) statuses.push(lastTask.status);
    out.status = outcome.status;
    if (outcome.status === 'completed') out.result = outcome.result;
    if (outcome.status === 'failed') out.error = String(outcome.error?.message ?? outcome.error);
    out.statuses = statuses;
    process.stdout.write(JSON.stringify(out) + '\n');
  } finally {
    await session.close().catch(() => {});
    await client.close().catch(() => {});
  }
}

main().then(() => process.exit(0), (err) => {
  console.error(err?.stack ?? String(err));
  process.exit(1);
});
