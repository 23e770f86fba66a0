import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  Agent,
  LevelSessionStore,
  McpCallError,
  RunCancelledError,
  RunState,
  ToolkitError,
  tool,
  type Item,
  type ToolResultItem,
} from '../../src/index.js';
import { mcpToolkit, type McpToolkitOptions } from '../../src/mcp.js';
import { FakeClock, ScriptedModel, type ScriptedResponse } from '../../src/testing.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { deferred, nextImmediate } from '../helpers/async.js';
import { bundledScript } from '../helpers/bundled-script.js';
import { repoRoot } from '../helpers/child-process.js';
import { startMcpHttpServer, type McpHttpServer } from '../helpers/mcp-http-server.js';
import { buildTestMcpServer } from '../helpers/mcp-test-server.js';
import { TempStores } from '../helpers/temp-store.js';
import { TornStore } from '../helpers/torn-store.js';

const temps = new TempStores();
const servers: McpHttpServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
  await temps.cleanupAll();
});

const STDIO_SERVER = join(repoRoot, 'test', 'helpers', 'mcp-stdio-server.ts');

/** A stdio connection to the test server, logging to a fresh file; `log()` reads it. */
async function stdioServer() {
  const file = join(await temps.folder(), 'server.log');
  const connect = {
    command: process.execPath,
    args: [await bundledScript(STDIO_SERVER)],
    cwd: repoRoot,
    env: { MCP_TEST_LOG: file },
  };
  const log = async (): Promise<string[]> =>
    (await readFile(file, 'utf8').catch(() => '')).split('\n').filter(Boolean);
  /** Server-side events without the pid: `start`, `call add`, `exit`. */
  const events = async () => (await log()).map((line) => line.replace(/^\d+ /, ''));
  const pids = async () => [...new Set((await log()).map((line) => line.split(' ')[0]))];
  return { connect, events, pids };
}

async function httpServer(): Promise<McpHttpServer> {
  const server = await startMcpHttpServer(() => buildTestMcpServer(() => undefined));
  servers.push(server);
  return server;
}

const call = (name: string, args: Record<string, unknown> = {}): ScriptedResponse => ({
  toolCalls: [{ name, arguments: args }],
});

function results(items: Item[]): ToolResultItem[] {
  return items.filter((i): i is ToolResultItem => i.type === 'tool_result');
}

function agentWith(
  model: ScriptedModel,
  options: Omit<McpToolkitOptions, 'name'>,
  extra: Partial<ConstructorParameters<typeof Agent>[0]> = {},
) {
  const kit = mcpToolkit({ name: 'math', ...options });
  return { kit, agent: new Agent({ name: 'mcp-user', model, toolkits: [kit], ...extra }) };
}

describe('mcpToolkit over stdio (a child process)', () => {
  it("gives the server's tools and JSON Schemas to the model, calls them, and stops the server when the session ends", async () => {
    const server = await stdioServer();
    const model = new ScriptedModel([call('add', { a: 2, b: 3 }), { text: 'It is 5.' }], {
      recordCalls: true,
    });
    const { agent } = agentWith(model, { connect: server.connect });

    const result = await agent.run('What is 2 + 3?');

    expect(result.output).toBe('It is 5.');
    const add = model.calls[0]!.tools.find((t) => t.name === 'add');
    expect(add).toMatchObject({
      description: 'Adds two numbers',
      parameters: {
        type: 'object',
        properties: { a: { type: 'number' }, b: { type: 'integer', minimum: 0 } },
        required: ['a', 'b'],
      },
    });
    expect(add!.parameters).not.toHaveProperty('$schema');
    expect(model.calls[0]!.tools.map((t) => t.name).sort()).toEqual([
      'add',
      'attachments',
      'crash',
      'fail',
      'hang',
      'picture',
      'stats',
    ]);
    expect(results(model.calls[1]!.items)).toMatchObject([{ name: 'add', output: '5' }]);
    // One process, one call, and the process exited when the run's binding closed.
    expect(await server.events()).toEqual(['start', 'call add', 'exit']);
  });

  it("validates arguments against the tool's JSON Schema: a bad call is a tool error item and never reaches the server", async () => {
    const server = await stdioServer();
    const model = new ScriptedModel(
      [
        call('add', { a: 'two', b: -1 }),
        call('add', { a: 1, b: 1, c: 'extra is fine' }),
        { text: 'done' },
      ],
      { recordCalls: true },
    );
    const { agent } = agentWith(model, { connect: server.connect });
    await agent.run('add');
    const [bad, good] = results(model.calls[2]!.items);
    expect(bad).toMatchObject({ name: 'add', isError: true });
    expect(bad!.output).toMatch(/^Error: tool "add" arguments do not match the schema/);
    expect(bad!.output).toMatch(/a: must be number; b: must be >= 0$/);
    expect(good).toMatchObject({ output: '2' });
    expect((await server.events()).filter((e) => e.startsWith('call'))).toEqual(['call add']);
  });

  it('turns isError results into tool error items and summarises non-text content', async () => {
    const server = await stdioServer();
    const model = new ScriptedModel(
      [call('fail'), call('picture'), call('attachments'), call('stats'), { text: 'ok' }],
      { recordCalls: true },
    );
    const errors: unknown[] = [];
    const { agent } = agentWith(
      model,
      { connect: server.connect },
      { onToolError: (error) => errors.push(error) },
    );
    await agent.run('go');
    const [fail, picture, attachments, stats] = results(model.calls[4]!.items);
    expect(fail).toMatchObject({
      isError: true,
      output: 'Error: tool "fail" failed: the disk is full',
    });
    expect(picture).toMatchObject({ output: 'Here is a red dot.\n\n[image: image/png, 8 bytes]' });
    expect(picture!.isError).toBeUndefined();
    expect(attachments!.output).toBe(
      [
        '[audio: audio/wav, 4 bytes]',
        '[resource link: file:///notes.txt (notes)]',
        '[resource file:///a.txt]\nalpha',
        '[resource file:///b.bin: application/zip, 3 bytes]',
      ].join('\n\n'),
    );
    expect(stats!.output).toBe('{"mean":2.5}');
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(McpCallError);
    expect(errors[0]).toMatchObject({
      code: 'MCP_CALL_FAILED',
      reason: 'tool_error',
      toolkit: 'math',
      toolName: 'fail',
    });
  });

  it('a server that dies mid-call gives a tool error item, and the next call reconnects', async () => {
    const server = await stdioServer();
    const model = new ScriptedModel([call('crash'), call('add', { a: 4, b: 4 }), { text: 'ok' }], {
      recordCalls: true,
    });
    const { agent } = agentWith(model, { connect: server.connect });
    const result = await agent.run('go');
    expect(result.output).toBe('ok');
    const [crash, add] = results(model.calls[2]!.items);
    expect(crash).toMatchObject({ isError: true });
    expect(crash!.output).toMatch(
      /^Error: tool "crash" failed: the MCP server of toolkit "math" failed: .*; the toolkit reconnects on the next call$/,
    );
    expect(add).toMatchObject({ output: '8' });
    expect(add!.isError).toBeUndefined();
    expect(await server.events()).toEqual([
      'start',
      'call crash',
      'exit',
      'start',
      'call add',
      'exit',
    ]);
    expect(await server.pids()).toHaveLength(2);
  });

  it('a call past timeoutMs (by the injected clock) is a tool error item; the server is stopped and the next call reconnects', async () => {
    const server = await stdioServer();
    const clock = new FakeClock();
    const model = new ScriptedModel([call('hang'), call('add', { a: 1, b: 2 }), { text: 'ok' }], {
      recordCalls: true,
    });
    const { agent } = agentWith(model, { connect: server.connect, clock, timeoutMs: 60_000 });
    const running = agent.run('go');
    while (clock.pendingSleepers === 0) await nextImmediate();
    clock.advance(59_999);
    await nextImmediate();
    expect(clock.pendingSleepers).toBe(1);
    clock.advance(1);
    const result = await running;
    expect(result.output).toBe('ok');
    const [hang, add] = results(model.calls[2]!.items);
    expect(hang).toMatchObject({
      isError: true,
      output:
        'Error: tool "hang" failed: the MCP server of toolkit "math" did not answer within 60000 ms; the toolkit reconnects on the next call',
    });
    expect(add).toMatchObject({ output: '3' });
    expect(await server.events()).toEqual([
      'start',
      'call hang',
      'exit',
      'start',
      'call add',
      'exit',
    ]);
  });

  it('needsApproval applies to MCP tools: the run pauses before the call, and runs it once approved', async () => {
    const server = await stdioServer();
    const { store } = await temps.open();
    const seen: unknown[] = [];
    const script = [call('add', { a: 20, b: 22 }), { text: 'It is 42.' }];
    const options = {
      connect: server.connect,
      needsApproval: (name: string, args: Record<string, unknown>) => {
        seen.push([name, args]);
        return name === 'add';
      },
    };
    const first = agentWith(new ScriptedModel(script, { recordCalls: true }), options, { store });
    const paused = await first.agent.run('add', { sessionId: 'approve-mcp', userId: 'alice' });
    expect(paused.interruptionReason).toBe('approval');
    expect(paused.interruptions).toMatchObject([{ toolName: 'add', arguments: { a: 20, b: 22 } }]);
    expect(seen).toEqual([['add', { a: 20, b: 22 }]]);
    expect((await server.events()).filter((e) => e.startsWith('call'))).toEqual([]);

    const state = RunState.fromJSON(JSON.stringify(paused.state)).approve(
      paused.interruptions[0]!.callId,
    );
    const second = agentWith(new ScriptedModel(script.slice(1), { recordCalls: true }), options, {
      store,
    });
    const done = await second.agent.resume(state);
    expect(done.output).toBe('It is 42.');
    expect((await server.events()).filter((e) => e.startsWith('call'))).toEqual(['call add']);
    expect(seen).toHaveLength(1);
  });

  it('a restore after a crash never calls the MCP tool again for a journaled call (real LevelDB)', async () => {
    const server = await stdioServer();
    const temp = await temps.open();
    await temp.store.close();
    const torn = new TornStore(temp.path, (e) => e.kind === 'tool');
    await torn.ready();
    const key = { sessionId: 'mcp-crash', userId: 'alice' };
    const script = [call('add', { a: 5, b: 6 }), { text: 'It is 11.' }];
    const first = agentWith(
      new ScriptedModel(script, { recordCalls: true }),
      { connect: server.connect },
      {
        store: torn,
      },
    );
    await expect(first.agent.run('add', key)).rejects.toThrow(/power cut/);
    await torn.close();
    expect((await server.events()).filter((e) => e.startsWith('call'))).toEqual(['call add']);

    const store = await LevelSessionStore.open({ path: temp.path });
    temps.defer(() => store.close());
    const model = new ScriptedModel(script.slice(1), { recordCalls: true });
    const second = agentWith(model, { connect: server.connect }, { store });
    const done = await second.agent.resume(key.sessionId, { userId: key.userId });
    expect(done.output).toBe('It is 11.');
    expect(results(model.calls[0]!.items)).toMatchObject([{ name: 'add', output: '11' }]);
    // The resumed process connected (its binding starts the server) but called nothing.
    expect((await server.events()).filter((e) => e.startsWith('call'))).toEqual(['call add']);
    expect(await server.pids()).toHaveLength(2);
  });

  it('prefixes names on request; a name clash with a local tool is a clear error', async () => {
    const server = await stdioServer();
    const localAdd = tool({
      name: 'add',
      description: 'local',
      parameters: z.object({}),
      execute: () => 'local',
    });
    const clash = agentWith(
      new ScriptedModel([{ text: 'x' }], { recordCalls: true }),
      { connect: server.connect },
      { tools: [localAdd] },
    );
    await expect(clash.agent.run('x')).rejects.toThrow(
      'Agent "mcp-user" has two tools named "add", from its tools and toolkit "math": rename one (an mcpToolkit takes a `prefix`)',
    );

    const model = new ScriptedModel([call('math_add', { a: 1, b: 1 }), { text: 'two' }], {
      recordCalls: true,
    });
    const prefixed = agentWith(
      model,
      { connect: server.connect, prefix: true },
      {
        tools: [localAdd],
      },
    );
    await prefixed.agent.run('x');
    expect(model.calls[0]!.tools.map((t) => t.name)).toContain('math_add');
    expect(results(model.calls[1]!.items)).toMatchObject([{ name: 'math_add', output: '2' }]);
    // Both sessions stopped their server.
    const events = await server.events();
    expect(events.filter((e) => e === 'start')).toHaveLength(2);
    expect(events.filter((e) => e === 'exit')).toHaveLength(2);
  });

  it('a server that cannot start fails the toolkit with ToolkitError', async () => {
    const model = new ScriptedModel([{ text: 'x' }], { recordCalls: true });
    const { agent } = agentWith(model, {
      connect: { command: join(repoRoot, 'no-such-server') },
    });
    const error = await agent.run('x').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ToolkitError);
    expect((error as Error).message).toMatch(/^Toolkit "math" failed to create: /);
    expect(model.calls).toHaveLength(0);
  });
});

describe('mcpToolkit over Streamable HTTP (127.0.0.1)', () => {
  it('lists and calls tools over HTTP, sending the headers', async () => {
    const http = await httpServer();
    const model = new ScriptedModel([call('add', { a: 7, b: 8 }), { text: '15' }], {
      recordCalls: true,
    });
    const { agent } = agentWith(model, {
      connect: { url: http.url, headers: { Authorization: 'Bearer sesame' } },
    });
    expect((await agent.run('add')).output).toBe('15');
    expect(results(model.calls[1]!.items)).toMatchObject([{ output: '15' }]);
    expect(http.requests.get('tools/list')).toBe(1);
    expect(http.requests.get('tools/call')).toBe(1);
    expect(http.authorizations.length).toBeGreaterThan(0);
    expect(new Set(http.authorizations)).toEqual(new Set(['Bearer sesame']));
  });

  it('a restarted HTTP server gives a tool error item (without the headers), then the toolkit reconnects', async () => {
    let http = await httpServer();
    const model = new ScriptedModel(
      async (_request, index) => {
        if (index === 1) {
          // The server restarts on the same port between two calls: the MCP session is gone.
          await http.close();
          http = await startMcpHttpServer(() => buildTestMcpServer(() => undefined), http.port);
          servers.push(http);
        }
        return index < 3 ? call('add', { a: index, b: 1 }) : { text: 'ok' };
      },
      { recordCalls: true },
    );
    const { agent } = agentWith(model, {
      connect: { url: http.url, headers: { Authorization: 'Bearer sesame' } },
      instructions: 'Use the math tools.',
    });
    const result = await agent.run('go');
    expect(model.calls[0]!.instructions).toBe('Use the math tools.');
    const [first, second, third] = results(model.calls[3]!.items);
    expect(first).toMatchObject({ output: '1' });
    expect(second).toMatchObject({ isError: true });
    expect(second!.output).toMatch(
      /^Error: tool "add" failed: the MCP server of toolkit "math" failed: .*; the toolkit reconnects on the next call$/,
    );
    expect(third).toMatchObject({ output: '3' });
    expect(JSON.stringify(result.newItems)).not.toContain('sesame');
    expect(http.requests.get('initialize')).toBe(1);
    expect(http.requests.get('tools/call')).toBe(1);
  });

  it('cancelling the run aborts the MCP call: the server is told, and the run is cancelled', async () => {
    const http = await httpServer();
    const model = new ScriptedModel([call('hang')], { recordCalls: true });
    const { agent } = agentWith(model, { connect: { url: http.url } });
    const controller = new AbortController();
    const running = agent.run('go', { signal: controller.signal });
    while (!http.requests.get('tools/call')) await nextImmediate();
    controller.abort();
    await expect(running).rejects.toBeInstanceOf(RunCancelledError);
    while (!http.requests.get('notifications/cancelled')) await nextImmediate();
    expect(http.requests.get('notifications/cancelled')).toBe(1);
  });

  it('caches the tool list across sessions for toolCacheMs (by its clock) and until refresh()', async () => {
    const http = await httpServer();
    const clock = new FakeClock();
    const model = new ScriptedModel(() => ({ text: 'hi' }), { recordCalls: true });
    const { agent, kit } = agentWith(model, {
      connect: { url: http.url },
      clock,
      toolCacheMs: 60_000,
    });
    const lists = () => http.requests.get('tools/list') ?? 0;
    await agent.run('1');
    await agent.run('2');
    expect(lists()).toBe(1);
    expect(http.requests.get('initialize')).toBe(2);
    clock.advance(59_999);
    await agent.run('3');
    expect(lists()).toBe(1);
    clock.advance(1);
    await agent.run('4');
    expect(lists()).toBe(2);
    kit.refresh();
    await agent.run('5');
    expect(lists()).toBe(3);
    expect(model.calls.every((c) => c.tools.length === 7)).toBe(true);
  });
  it("re-lists after the server's notifications/tools/list_changed, without waiting for the cache to expire", async () => {
    const added: string[] = [];
    const register = (server: McpServer, name: string) =>
      server.registerTool(name, { description: `New tool ${name}` }, () => ({
        content: [{ type: 'text', text: name }],
      }));
    const http = await startMcpHttpServer(() => {
      const server = buildTestMcpServer(() => undefined);
      for (const name of added) register(server, name);
      return server;
    });
    servers.push(http);
    const changed = deferred();
    const model = new ScriptedModel(
      async (_request, index) => {
        if (index === 0) {
          added.push('multiply');
          for (const server of http.live) register(server, 'multiply');
          await changed.promise;
        }
        return { text: 'ok' };
      },
      { recordCalls: true },
    );
    const { agent } = agentWith(model, {
      connect: { url: http.url },
      onToolsChanged: () => changed.resolve(),
    });
    await agent.run('1');
    // The session that saw the change keeps its tools; the next one lists again.
    expect(model.calls[0]!.tools.map((t) => t.name)).not.toContain('multiply');
    await agent.run('2');
    expect(http.requests.get('tools/list')).toBe(2);
    expect(model.calls[1]!.tools.map((t) => t.name)).toContain('multiply');
  });
});

describe('mcpToolkit options', () => {
  it('rejects unknown and malformed options with a TypeError', () => {
    const connect = { command: 'node' };
    expect(() => mcpToolkit({ name: 'm', connect, timeout: 5 } as never)).toThrow(/timeoutMs/);
    expect(() => mcpToolkit({ name: 'm', connect: { command: 'node', url: 'x' } })).toThrow(
      /either \{ command, \.\.\. \} \(stdio\) or \{ url, \.\.\. \}/,
    );
    expect(() => mcpToolkit({ name: 'm', connect: { url: 'not a url' } })).toThrow(/absolute URL/);
    expect(() =>
      mcpToolkit({ name: 'm', connect: { url: 'http://x', header: {} } as never }),
    ).toThrow(/without "header" \(HTTP servers take url, headers\)/);
    expect(() => mcpToolkit({ name: 'm', connect, timeoutMs: 0 })).toThrow(TypeError);
    expect(() => mcpToolkit({ name: '', connect })).toThrow(TypeError);
  });
});
