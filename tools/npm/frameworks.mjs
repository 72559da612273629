#!/usr/bin/env node
// frameworks.mjs connects one MCP server through the MCP clients of three agent
// frameworks (pinned in this directory's lockfile) and reports how each one converted
// the server's tools, so Go tests can hold every server to schemas these frameworks
// take without changing them:
//
//   - OpenAI Agents SDK (@openai/agents 0.20.0) with strict schemas on
//     (getAllMcpTools convertSchemasToStrict): a tool whose schema cannot be made
//     strict falls back to a non-strict tool, listed under "nonStrict".
//   - LangChain (@langchain/mcp-adapters 1.1.4): MultiServerMCPClient.getTools, whose
//     tools validate their input against the schema as the adapter simplified it.
//   - Vercel AI SDK (@ai-sdk/mcp 2.0.99): createMCPClient(...).tools().
//
// Then it calls one tool through each framework's own tool object. The OpenAI call is
// made as a strict-mode model makes it: every optional argument it leaves out is sent
// as null.
//
// Usage (options first; --cmd takes the rest of the line):
//   node frameworks.mjs --tool NAME [--args JSON] [--timeout MS]
//                       (--url http://host:port/mcp | --cmd COMMAND [ARGS...])
//   node frameworks.mjs --schemas FILE   (offline: an input_schemas.json, name → schema)
//
// It prints ONE JSON line:
//   {"openai":{"strict":[..],"nonStrict":[..],"call":TEXT},
//    "langchain":{"tools":[..],"call":TEXT},"vercel":{"tools":[..],"call":TEXT}}
// ("call" is the tool's text; a tool error is reported as {"error": TEXT}). With
// --schemas, only the conversions: {"openai":{"strict":[..],"nonStrict":[..]},
// "langchain":{"accepted":[..],"refused":[..]}} where LangChain's list says which
// tools' converted schemas accept the sample arguments --args gives per tool.
// Exit 1 on any failure to connect or list (message on stderr).

import { readFileSync } from 'node:fs';
import { MCPServerStdio, MCPServerStreamableHttp, getAllMcpTools, mcpToFunctionTool, RunContext } from '@openai/agents-core';
import { MultiServerMCPClient, loadMcpTools } from '@langchain/mcp-adapters';
import { createMCPClient } from '@ai-sdk/mcp';
import { Experimental_StdioMCPTransport } from '@ai-sdk/mcp/mcp-stdio';

class UsageError extends Error {}

function parseArgs(argv) {
  const opts = { timeoutMs: 60000, args: {} };
  const value = (i, flag) => {
    if (i + 1 >= argv.length) throw new UsageError(`${flag} needs a value`);
    return argv[i + 1];
  };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    switch (flag) {
      case '--url': opts.url = value(i, flag); i++; break;
      case '--tool': opts.tool = value(i, flag); i++; break;
      case '--schemas': opts.schemas = value(i, flag); i++; break;
      case '--args':
        try { opts.args = JSON.parse(value(i, flag)); } catch (e) { throw new UsageError(`--args is not JSON: ${e.message}`); }
        i++;
        break;
      case '--timeout':
        opts.timeoutMs = Number(value(i, flag)); i++;
        if (!Number.isFinite(opts.timeoutMs) || opts.timeoutMs <= 0) throw new UsageError('--timeout must be a positive number of milliseconds');
        break;
      case '--cmd':
        if (i + 1 >= argv.length) throw new UsageError('--cmd needs a command');
        opts.cmd = argv[i + 1];
        opts.cmdArgs = argv.slice(i + 2);
        i = argv.length;
        break;
      default:
        throw new UsageError(`unknown flag ${flag}`);
    }
  }
  if (opts.schemas) return opts;
  if (!opts.tool) throw new UsageError('--tool is required');
  if (!opts.url === !opts.cmd) throw new UsageError('give exactly one of --url or --cmd');
  return opts;
}

// strictArgs is what a strict-mode model sends: every property of the schema, the
// ones it leaves out as null.
function strictArgs(schema, args) {
  const out = {};
  for (const name of Object.keys(schema?.properties ?? {})) out[name] = null;
  return { ...out, ...args };
}

// text is the text of a tool result in any of the frameworks' shapes.
function text(result) {
  if (typeof result === 'string') return result;
  if (Array.isArray(result)) return result.map(text).join('');
  if (result && typeof result === 'object') {
    if (typeof result.text === 'string') return result.text;
    if (Array.isArray(result.content)) {
      const t = result.content.map(text).join('');
      return result.isError ? { error: t } : t;
    }
  }
  return JSON.stringify(result);
}

async function viaOpenAI(opts) {
  const server = opts.url
    ? new MCPServerStreamableHttp({ url: opts.url, name: 'server' })
    : new MCPServerStdio({ command: opts.cmd, args: opts.cmdArgs, name: 'server' });
  await server.connect();
  try {
    const tools = await getAllMcpTools({ mcpServers: [server], convertSchemasToStrict: true, runContext: new RunContext({}) });
    const strict = tools.filter((t) => t.strict).map((t) => t.name);
    const nonStrict = tools.filter((t) => !t.strict).map((t) => t.name);
    const tool = tools.find((t) => t.name === opts.tool);
    if (!tool) throw new Error(`OpenAI Agents SDK: no tool ${opts.tool} among ${tools.map((t) => t.name)}`);
    const out = await tool.invoke(new RunContext({}), JSON.stringify(strictArgs(tool.parameters, opts.args)));
    return { strict, nonStrict, call: text(out) };
  } finally {
    await server.close();
  }
}

async function viaLangChain(opts) {
  const conn = opts.url
    ? { transport: 'http', url: opts.url }
    : { transport: 'stdio', command: opts.cmd, args: opts.cmdArgs };
  const client = new MultiServerMCPClient({ mcpServers: { server: conn }, throwOnLoadError: true, prefixToolNameWithServerName: false });
  try {
    const tools = await client.getTools();
    const tool = tools.find((t) => t.name === opts.tool);
    if (!tool) throw new Error(`LangChain: no tool ${opts.tool} among ${tools.map((t) => t.name)}`);
    let call;
    try {
      const out = await tool.invoke(opts.args);
      call = text(Array.isArray(out) ? out[0] : out);
    } catch (e) {
      call = { error: `LangChain refused or failed the call: ${e.message}` };
    }
    return { tools: tools.map((t) => t.name), call };
  } finally {
    await client.close();
  }
}

async function viaVercel(opts) {
  const transport = opts.url
    ? { type: 'http', url: opts.url }
    : new Experimental_StdioMCPTransport({ command: opts.cmd, args: opts.cmdArgs });
  const client = await createMCPClient({ transport });
  try {
    const tools = await client.tools();
    const tool = tools[opts.tool];
    if (!tool) throw new Error(`Vercel AI SDK: no tool ${opts.tool} among ${Object.keys(tools)}`);
    const out = await tool.execute(opts.args, { toolCallId: 'call-1', messages: [] });
    return { tools: Object.keys(tools), call: text(out) };
  } finally {
    await client.close();
  }
}

// offline runs only the conversions over the schemas of an input_schemas.json: what
// each framework makes of a server's tools without running it. LangChain's tool is
// given the sample arguments of --args (name → arguments) and reports whether its
// converted schema let them through.
async function offline(opts) {
  const schemas = JSON.parse(readFileSync(opts.schemas, 'utf8'));
  const strict = [], nonStrict = [];
  const saved = console.warn;
  for (const [name, inputSchema] of Object.entries(schemas)) {
    const t = mcpToFunctionTool({ name, inputSchema: structuredClone(inputSchema) }, { name: 'server' }, true);
    (t.strict ? strict : nonStrict).push(name);
  }
  console.warn = saved;
  const accepted = [], refused = [];
  for (const [name, args] of Object.entries(opts.args ?? {})) {
    if (!(name in schemas)) continue;
    const client = {
      listTools: async () => ({ tools: [{ name, inputSchema: structuredClone(schemas[name]) }] }),
      callTool: async () => ({ content: [{ type: 'text', text: 'ok' }] }),
    };
    const [tool] = await loadMcpTools('server', client, {});
    try { await tool.invoke(args); accepted.push(name); } catch { refused.push(name); }
  }
  return { openai: { strict, nonStrict }, langchain: { accepted, refused } };
}

async function main() {
  let opts;
  try {
    opts = parseArgs(process.argv.slice(2));
  } catch (e) {
    process.stderr.write(`frameworks.mjs: ${e.message}\n`);
    process.exit(2);
  }
  // The frameworks log conversions they give up on; stdout carries the one result.
  console.log = console.info = console.warn = (...a) => process.stderr.write(a.join(' ') + '\n');
  const timer = setTimeout(() => {
    process.stderr.write(`frameworks.mjs: no result within ${opts.timeoutMs} ms\n`);
    process.exit(1);
  }, opts.timeoutMs);
  try {
    const result = opts.schemas
      ? await offline(opts)
      : { openai: await viaOpenAI(opts), langchain: await viaLangChain(opts), vercel: await viaVercel(opts) };
    process.stdout.write(JSON.stringify(result) + '\n');
    clearTimeout(timer);
    process.exit(0);
  } catch (e) {
    process.stderr.write(`frameworks.mjs: ${e?.stack ?? e}\n`);
    process.exit(1);
  }
}

main();
