#!/usr/bin/env node
// ts-client.mjs drives one MCP server with the official TypeScript client v2
// (@modelcontextprotocol/client 2.4.0, pinned in this directory's lockfile) so Go
// tests can check our servers against a client nobody here wrote.
//
// Usage (options first; --cmd takes the rest of the line as command and args):
//   node ts-client.mjs [--negotiation auto|legacy] [--tool NAME [--args JSON]]
//                      [--resource URI] [--prompt NAME [--prompt-args JSON]]
//                      [--timeout MS] (--url http://host:port/mcp | --cmd COMMAND [ARGS...])
//
// It connects, lists tools, optionally calls one tool, reads one resource and
// gets one prompt, then prints exactly ONE JSON line on stdout:
//   {"protocolVersion":..,"era":..,"tools":[..],"call":..,"resource":..,"prompt":..}
// and exits 0. Any failure (bad flags, connect error, JSON-RPC error) is printed
// to stderr and the exit code is 1. A tool result with isError:true is NOT a
// failure: it is reported in "call" as the server sent it.
//
// --negotiation legacy (default) runs the plain 2025 initialize handshake;
// --negotiation auto probes with server/discover and selects 2026-07-28 when the
// server offers it, falling back to initialize otherwise.

import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

const USAGE =
  'usage: ts-client.mjs [--negotiation auto|legacy] [--tool NAME [--args JSON]] ' +
  '[--resource URI] [--prompt NAME [--prompt-args JSON]] [--timeout MS] ' +
  '(--url http://host:port/path | --cmd COMMAND [ARGS...])';

class UsageError extends Error {}

/** parseArgs turns argv into options; it throws UsageError naming what was wrong. */
function parseArgs(argv) {
  const opts = { negotiation: 'legacy', timeoutMs: 30000 };
  const takeValue = (i, flag) => {
    if (i + 1 >= argv.length) throw new UsageError(`${flag} needs a value`);
    return argv[i + 1];
  };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    switch (flag) {
      case '--url':
        opts.url = takeValue(i, flag);
        i++;
        break;
      case '--cmd':
        if (i + 1 >= argv.length) throw new UsageError('--cmd needs a command');
        opts.cmd = argv[i + 1];
        opts.cmdArgs = argv.slice(i + 2);
        i = argv.length;
        break;
      case '--negotiation':
        opts.negotiation = takeValue(i, flag);
        i++;
        if (opts.negotiation !== 'auto' && opts.negotiation !== 'legacy') {
          throw new UsageError(`--negotiation must be "auto" or "legacy", got "${opts.negotiation}"`);
        }
        break;
      case '--tool':
        opts.tool = takeValue(i, flag);
        i++;
        break;
      case '--args':
        opts.args = parseJsonObject(takeValue(i, flag), flag);
        i++;
        break;
      case '--resource':
        opts.resource = takeValue(i, flag);
        i++;
        break;
      case '--prompt':
        opts.prompt = takeValue(i, flag);
        i++;
        break;
      case '--prompt-args':
        opts.promptArgs = parseJsonObject(takeValue(i, flag), flag);
        i++;
        for (const [k, v] of Object.entries(opts.promptArgs)) {
          if (typeof v !== 'string') {
            throw new UsageError(`--prompt-args values must be strings; "${k}" is ${typeof v}`);
          }
        }
        break;
      case '--timeout': {
        const n = Number(takeValue(i, flag));
        i++;
        if (!Number.isInteger(n) || n <= 0) throw new UsageError('--timeout must be a positive integer (milliseconds)');
        opts.timeoutMs = n;
        break;
      }
      case '-h':
      case '--help':
        throw new UsageError('help requested');
      default:
        throw new UsageError(`unknown argument "${flag}"`);
    }
  }
  if ((opts.url === undefined) === (opts.cmd === undefined)) {
    throw new UsageError('give exactly one of --url or --cmd');
  }
  if (opts.url !== undefined) {
    let u;
    try {
      u = new URL(opts.url);
    } catch {
      throw new UsageError(`--url is not a URL: "${opts.url}"`);
    }
    if (u.protocol !== 'http:' && u.protocol !== 'https:') {
      throw new UsageError(`--url must be http:// or https://, got "${u.protocol}"`);
    }
    opts.url = u;
  }
  if (opts.args !== undefined && opts.tool === undefined) throw new UsageError('--args needs --tool');
  if (opts.promptArgs !== undefined && opts.prompt === undefined) throw new UsageError('--prompt-args needs --prompt');
  return opts;
}

function parseJsonObject(text, flag) {
  let v;
  try {
    v = JSON.parse(text);
  } catch (e) {
    throw new UsageError(`${flag} is not valid JSON: ${e.message}`);
  }
  if (v === null || typeof v !== 'object' || Array.isArray(v)) {
    throw new UsageError(`${flag} must be a JSON object, e.g. '{"key":"value"}'`);
  }
  return v;
}

async function run(opts) {
  const client = new Client(
    { name: 'mcpkit-ts-client', version: '1.0.0' },
    { versionNegotiation: { mode: opts.negotiation } }
  );
  const transport = opts.url
    ? new StreamableHTTPClientTransport(opts.url)
    : new StdioClientTransport({ command: opts.cmd, args: opts.cmdArgs, stderr: 'inherit' });
  const reqOpts = { timeout: opts.timeoutMs };
  await client.connect(transport, reqOpts);
  try {
    const out = {
      protocolVersion: client.getNegotiatedProtocolVersion() ?? null,
      era: client.getProtocolEra() ?? null,
      tools: [],
      call: null,
      resource: null,
      prompt: null
    };
    const listed = await client.listTools(undefined, reqOpts);
    out.tools = listed.tools.map((t) => t.name);
    if (opts.tool !== undefined) {
      out.call = await client.callTool({ name: opts.tool, arguments: opts.args ?? {} }, reqOpts);
    }
    if (opts.resource !== undefined) {
      out.resource = await client.readResource({ uri: opts.resource }, reqOpts);
    }
    if (opts.prompt !== undefined) {
      out.prompt = await client.getPrompt({ name: opts.prompt, arguments: opts.promptArgs ?? {} }, reqOpts);
    }
    return out;
  } finally {
    await client.close().catch(() => {});
  }
}

let opts;
try {
  opts = parseArgs(process.argv.slice(2));
} catch (e) {
  process.stderr.write(`ts-client: ${e.message}\n${USAGE}\n`);
  process.exit(1);
}

try {
  const out = await run(opts);
  // Exit only after stdout is flushed: a pipe reader must get the whole line.
  process.stdout.write(JSON.stringify(out) + '\n', () => process.exit(0));
} catch (e) {
  const code = e && typeof e === 'object' && 'code' in e ? ` (code ${e.code})` : '';
  process.stderr.write(`ts-client: ${e instanceof Error ? e.message : String(e)}${code}\n`);
  process.exit(1);
}
