import { execFile } from 'node:child_process';
import {
  copyFile,
  cp,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  rm,
  symlink,
  writeFile,
} from 'node:fs/promises';
import { existsSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  AI_SDK_TYPES,
  AI_SDK_VALUES,
  MCP_TYPES,
  MCP_VALUES,
  ROOT_TYPES,
  ROOT_VALUES,
  TESTING_TYPES,
  TESTING_VALUES,
  POSTGRES_TYPES,
  POSTGRES_VALUES,
  INSPECT_TYPES,
  HTTP_VALUES,
  HTTP_TYPES,
  A2A_VALUES,
  A2A_TYPES,
  INSPECT_VALUES,
  STORE_TYPES,
  STORE_VALUES,
  EVALS_TYPES,
  EVALS_VALUES,
  exportedNames,
} from '../helpers/public-api.js';
import { build, transform } from 'esbuild';
import { completion, startChatCompletionsServer } from '../helpers/chat-completions-server.js';
import { buildDeclarations } from '../../scripts/package-build.js';

/**
 * The package as a user gets it: built, packed with `npm pack`, unpacked into a consumer
 * project's node_modules (its dependencies linked from this repo's node_modules, so nothing is
 * downloaded), then type-checked and required there.
 */

const exec = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const PACKAGE_NAME = (
  JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { name: string }
).name;
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');

let work: string;
let consumer: string;
let installed: string;
let tarballFiles: string[];

async function run(command: string, args: string[], cwd: string) {
  return exec(command, args, {
    cwd,
    maxBuffer: 16 * 1024 * 1024,
    env: { ...process.env, CI: '1' },
  });
}

async function walk(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const nested = await Promise.all(
    entries.map(async (e) => (e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)])),
  );
  return nested.flat();
}

/** Stages the built package (never the repo's own dist) and packs it; returns the tarball. */
async function pack(): Promise<string> {
  const staging = join(work, 'staging');
  await mkdir(staging);
  for (const file of ['package.json', 'LICENSE', 'README.md']) {
    await copyFile(join(ROOT, file), join(staging, file));
  }
  // The run's JavaScript build (test/global-setup.ts), plus the declarations it leaves out.
  await cp(join(inject('builtPackage'), 'dist'), join(staging, 'dist'), { recursive: true });
  await buildDeclarations(join(staging, 'dist'));
  const { stdout } = await run(
    'npm',
    ['pack', '--json', '--offline', '--ignore-scripts', '--pack-destination', work],
    staging,
  );
  const [info] = JSON.parse(stdout) as [{ filename: string; files: { path: string }[] }];
  tarballFiles = info.files.map((f) => f.path).sort();
  return join(work, info.filename);
}

/** A consumer project: the tarball unpacked as node_modules/<its name>, the rest linked. */
async function makeConsumer(tarball: string): Promise<void> {
  consumer = join(work, 'consumer');
  const modules = join(consumer, 'node_modules');
  installed = join(modules, PACKAGE_NAME);
  await mkdir(installed, { recursive: true });
  await run('tar', ['-xzf', tarball, '-C', installed, '--strip-components=1'], work);
  for (const entry of await readdir(join(ROOT, 'node_modules'))) {
    if (entry === PACKAGE_NAME || entry.startsWith('.')) continue;
    await symlink(join(ROOT, 'node_modules', entry), join(modules, entry), 'dir');
  }
  await writeFile(
    join(consumer, 'package.json'),
    JSON.stringify({ name: 'consumer', private: true, type: 'module' }),
  );
  await writeFile(
    join(consumer, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'ES2022',
        lib: ['ES2023'],
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        types: ['node'],
        strict: true,
        exactOptionalPropertyTypes: true,
        noUncheckedIndexedAccess: true,
        skipLibCheck: false,
        noEmit: true,
      },
      files: ['app.ts'],
    }),
  );
  await writeFile(join(consumer, 'app.ts'), CONSUMER_APP);
  await writeFile(join(consumer, 'app.cjs'), CONSUMER_CJS);
  await writeFile(join(consumer, 'trace-hooks.mjs'), TRACE_HOOKS);
  await writeFile(join(consumer, 'trace.mjs'), TRACE);
  await writeFile(join(consumer, 'lazy.mjs'), CONSUMER_LAZY);
}

/** Uses the public API the way the README does; `@ts-expect-error` lines prove types bite. */
const CONSUMER_APP = `
import { z } from 'zod';
import {
  Agent,
  AgentStateError,
  LevelSessionStore,
  OpenAIModel,
  RunState,
  SessionRuntime,
  changeBudget,
  getRunContext,
  sendMessage,
  tool,
  withPrices,
  type Clock,
  type Model,
  type RunResult,
  type RunStreamEvent,
  type SessionStore,
} from 'agentstate-runtime';
import { FakeClock, MemorySessionStore, ScriptedModel } from 'agentstate-runtime/testing';

const add = tool({
  name: 'add',
  description: 'Adds two numbers',
  parameters: z.object({ a: z.number(), b: z.number() }),
  needsApproval: ({ a }) => a > 100,
  execute: ({ a, b }, { callId }) => ({ sum: a + b, callId, user: getRunContext().userId }),
});

const model: Model = new ScriptedModel([{ toolCalls: [{ name: 'add', arguments: { a: 2, b: 3 } }] }, { text: '5' }]);
const clock: Clock = new FakeClock();
const store: SessionStore = new MemorySessionStore();
const agent = new Agent({
  name: 'calc',
  instructions: (ctx) => 'You help ' + (ctx.userId ?? 'someone'),
  model,
  tools: [add],
  store,
  clock,
  maxTurns: 5,
  prices: withPrices({ scripted: { inputPerMillion: 1, outputPerMillion: 2 } }),
});

export async function main(): Promise<string | undefined> {
  const result: RunResult = await agent.run('What is 2 + 3?', { sessionId: 's1', userId: 'alice' });
  const state: RunState = RunState.fromJSON(JSON.stringify(result.state));
  const runtime: SessionRuntime = agent.runtimeFor(store);
  await runtime.execute({ sessionId: 's1', userId: 'alice' }, changeBudget({ maxTurns: 20 }));
  await runtime.execute({ sessionId: 's1', userId: 'alice' }, sendMessage('again'));
  for await (const event of agent.stream('hi', { userId: 'alice' })) {
    const e: RunStreamEvent = event;
    if (e.type === 'text_delta') console.log(e.delta);
  }
  const typed = new Agent({ name: 'typed', model, outputType: z.object({ n: z.number() }) });
  const out = await typed.run('n?');
  const n: number | undefined = out.output?.n;
  void n;
  void state.interruptions[0]?.callId;
  void new OpenAIModel({ model: 'gpt-4o-mini', baseURL: 'http://127.0.0.1:9/v1' });
  void LevelSessionStore.open({ path: './db' });
  try {
    await agent.resume('s1');
  } catch (error) {
    if (error instanceof AgentStateError) return error.code;
  }
  // @ts-expect-error unknown option names are type errors too
  await agent.run('x', { session_id: 's1' });
  // @ts-expect-error exactOptionalPropertyTypes: an optional option is not \`undefined\` unless it says so
  new ScriptedModel([{ text: undefined }]);
  return result.output;
}
`;

/** CommonJS: \`require('agentstate-runtime')\` on Node 20.19+, then a real run through it. */
const CONSUMER_CJS = `
const agentstate = require('agentstate-runtime');
const { ScriptedModel, MemorySessionStore } = require('agentstate-runtime/testing');
const agent = new agentstate.Agent({
  name: 'cjs',
  model: new ScriptedModel([{ text: 'hello from require' }]),
  store: new MemorySessionStore(),
});
agent.run('hi', { sessionId: 'c1' }).then((result) => {
  console.log(JSON.stringify({ keys: Object.keys(agentstate).sort(), output: result.output }));
});
`;

/** Module hooks printing `load <package>` on stderr when a package loaded lazily is resolved. */
const TRACE_HOOKS = `
const LAZY = ['openai', 'level', '@opentelemetry/api'];
export async function resolve(specifier, context, next) {
  if (LAZY.includes(specifier)) process.stderr.write('load ' + specifier + '\\n');
  return next(specifier, context);
}
`;
const TRACE = `
import { register } from 'node:module';
register('./trace-hooks.mjs', import.meta.url);
`;

/** Imports the package, then uses LevelDB and an OpenAI model, marking each stage on stderr. */
const CONSUMER_LAZY = `
const mark = (stage) => process.stderr.write('mark ' + stage + '\\n');
const { Agent, LevelSessionStore, OpenAIModel } = await import('agentstate-runtime');
const { ScriptedModel, MemorySessionStore } = await import('agentstate-runtime/testing');
mark('imported');
const agent = new Agent({ name: 'lazy', model: new ScriptedModel([{ text: 'hi' }]) });
await agent.run('hi', { sessionId: 's1', store: new MemorySessionStore() });
mark('ran an agent (telemetry on, no SDK registered)');
const store = await LevelSessionStore.open({ path: './lazy-db' });
await store.close();
mark('opened a LevelDB store');
const model = new OpenAIModel({ model: 'm', baseURL: 'http://127.0.0.1:9/v1', maxRetries: 0 });
mark('constructed an OpenAIModel');
await model.generate({ items: [{ type: 'message', role: 'user', content: 'hi' }] }).catch(
  (error) => mark('called it: ' + error.code),
);
`;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'agentstate-pack-'));
  await makeConsumer(await pack());
}, 120_000);

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

describe('the packed package', () => {
  it('ships dist, LICENSE, README and package.json only, and no sources', () => {
    const shipped = ['LICENSE', 'README.md', 'package.json', 'dist/index.js', 'dist/index.d.ts'];
    expect(tarballFiles).toEqual(
      expect.arrayContaining([...shipped, 'dist/testing.js', 'dist/mcp.js', 'dist/inspect.js']),
    );
    const others = tarballFiles.filter(
      (f) => !f.startsWith('dist/') && !['LICENSE', 'README.md', 'package.json'].includes(f),
    );
    expect(others).toEqual([]);
  });

  it('ships each entry point bundled: its JavaScript is the entries and their shared chunks', () => {
    const nested = tarballFiles.filter((f) => /^dist\/.+\/.+\.js$/.test(f));
    expect(nested).toEqual([]);
    expect(tarballFiles).toEqual(expect.arrayContaining(['dist/cli.js', 'dist/postgres.js']));
  });

  it('has an MIT LICENSE matching package.json, and zod and xstate as peer dependencies', async () => {
    const license = await readFile(join(installed, 'LICENSE'), 'utf8');
    const pkg = JSON.parse(await readFile(join(installed, 'package.json'), 'utf8')) as {
      license: string;
      peerDependencies: Record<string, string>;
      dependencies: Record<string, string>;
    };
    expect(pkg.license).toBe('MIT');
    expect(license).toMatch(/^MIT License/);
    expect(license).toContain('Copyright (c) 2026 the agentstate authors');
    expect(pkg.peerDependencies['zod']).toMatch(/^\^4/);
    expect(pkg.dependencies['zod']).toBeUndefined();
    // the app's own xstate, so its machines and the agent actors interoperate
    expect(pkg.peerDependencies['xstate']).toMatch(/^\^5/);
    expect(pkg.dependencies['xstate']).toBeUndefined();
  });

  it('has no source map pointing at a file it does not ship', async () => {
    const files = await walk(installed);
    const broken: string[] = [];
    for (const file of files.filter((f) => f.endsWith('.js') || f.endsWith('.d.ts'))) {
      const text = await readFile(file, 'utf8');
      for (const [, url] of text.matchAll(/[#@] sourceMappingURL=(\S+)/g)) {
        if (!existsSync(resolve(dirname(file), url!))) broken.push(`${file} -> ${url}`);
      }
    }
    for (const map of files.filter((f) => f.endsWith('.map'))) {
      const { sources, sourceRoot = '' } = JSON.parse(await readFile(map, 'utf8')) as {
        sources: string[];
        sourceRoot?: string;
      };
      for (const source of sources) {
        const target = resolve(dirname(map), sourceRoot, source);
        if (!existsSync(target) || !target.startsWith(installed + sep)) {
          broken.push(`${relative(installed, map)} -> ${source}`);
        }
      }
    }
    expect(broken).toEqual([]);
  });

  it('its declarations export exactly the public API, the root and each subpath', () => {
    const pinned = {
      index: { values: ROOT_VALUES, types: ROOT_TYPES },
      testing: { values: TESTING_VALUES, types: TESTING_TYPES },
      'ai-sdk': { values: AI_SDK_VALUES, types: AI_SDK_TYPES },
      mcp: { values: MCP_VALUES, types: MCP_TYPES },
      postgres: { values: POSTGRES_VALUES, types: POSTGRES_TYPES },
      inspect: { values: INSPECT_VALUES, types: INSPECT_TYPES },
      http: { values: HTTP_VALUES, types: HTTP_TYPES },
      a2a: { values: A2A_VALUES, types: A2A_TYPES },
      store: { values: STORE_VALUES, types: STORE_TYPES },
      evals: { values: EVALS_VALUES, types: EVALS_TYPES },
    };
    const names = Object.keys(pinned);
    const found = exportedNames(names.map((name) => join(installed, 'dist', `${name}.d.ts`)));
    expect(Object.fromEntries(names.map((name, i) => [name, found[i]]))).toEqual(pinned);
  });

  it('ships no @internal declaration (stripInternal)', async () => {
    // Agent.bind and Agent.liveRunsFor are marked @internal in src/agent/agent.ts.
    const source = await readFile(join(ROOT, 'src', 'agent', 'agent.ts'), 'utf8');
    expect(source).toMatch(/@internal [^\n]*\n\s*async bind\(/);
    expect(source).toMatch(/@internal [^\n]*\n\s*liveRunsFor\(/);
    const declared = await readFile(join(installed, 'dist', 'agent', 'agent.d.ts'), 'utf8');
    expect(declared).toMatch(/\bstartScheduler\(/);
    expect(declared).not.toMatch(/\bbind\(/);
    expect(declared).not.toMatch(/\bliveRunsFor\(/);
    const shipped = (await walk(join(installed, 'dist'))).filter((f) => f.endsWith('.d.ts'));
    const marked: string[] = [];
    for (const file of shipped) {
      if ((await readFile(file, 'utf8')).includes('@internal')) marked.push(file);
    }
    expect(marked).toEqual([]);
  });

  it('type-checks a consumer under strict and exactOptionalPropertyTypes', async () => {
    // skipLibCheck is off so agentstate's own declarations are checked under the consumer's
    // settings. xstate's declarations do not pass exactOptionalPropertyTypes themselves (any
    // app importing xstate sees that without skipLibCheck), so errors are kept to the files
    // that are ours: the consumer's app and the installed agentstate.
    const result = await run(process.execPath, [TSC, '-p', 'tsconfig.json'], consumer).catch(
      (error: { stdout?: string; stderr?: string; code?: unknown }) => error,
    );
    const output = `${result.stdout ?? ''}${result.stderr ?? ''}`;
    const errors = output.split('\n').filter((line) => /^\S.*\(\d+,\d+\): error TS/.test(line));
    const ours = errors.filter((line) => {
      const file = resolve(consumer, line.slice(0, line.indexOf('(')));
      return !file.includes(`${sep}node_modules${sep}`) || file.startsWith(installed + sep);
    });
    expect(ours).toEqual([]);
    const foreign = errors.filter((line) => !ours.includes(line));
    expect(foreign.every((line) => line.includes(`node_modules${sep}xstate${sep}`))).toBe(true);
    // Nothing but those diagnostics: no crash, no running out of memory.
    expect(output.split('\n').filter((l) => /^\S/.test(l) && !errors.includes(l))).toEqual([]);
  });

  it('loads neither openai, level nor @opentelemetry/api on import: each at its first use', async () => {
    const { stderr } = await run(
      process.execPath,
      ['--import', './trace.mjs', 'lazy.mjs'],
      consumer,
    );
    const lines = stderr.split('\n').filter((l) => /^(load|mark) /.test(l));
    expect(lines).toEqual([
      'mark imported',
      'mark ran an agent (telemetry on, no SDK registered)',
      'load level',
      'mark opened a LevelDB store',
      'mark constructed an OpenAIModel',
      'load openai',
      'mark called it: MODEL_ERROR',
    ]);
  });

  it('ships the agentstate command line as the package bin', async () => {
    const pkg = JSON.parse(await readFile(join(installed, 'package.json'), 'utf8')) as {
      version: string;
      bin: Record<string, string>;
    };
    expect(pkg.bin).toEqual({ agentstate: 'dist/cli.js' });
    const bin = join(installed, pkg.bin['agentstate']!);
    expect((await readFile(bin, 'utf8')).startsWith('#!/usr/bin/env node\n')).toBe(true);
    const { stdout } = await run(process.execPath, [bin, '--version'], consumer);
    expect(stdout).toBe(`${pkg.version}\n`);
  });

  it("works through require('agentstate-runtime') from a .cjs file", async () => {
    const { stdout } = await run(process.execPath, ['app.cjs'], consumer);
    const printed = JSON.parse(stdout) as { keys: string[]; output: string };
    expect(printed.output).toBe('hello from require');
    expect(printed.keys).toEqual(ROOT_VALUES);
  });

  it('runs the store contract suite of agentstate/store on a third-party store under node:test', async () => {
    // test/helpers/map-*.ts bundled on their own, agentstate left to the packed package.
    await build({
      entryPoints: [join(ROOT, 'test', 'helpers', 'map-store-node-test.ts')],
      outfile: join(consumer, 'store-contract.mjs'),
      bundle: true,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      external: [PACKAGE_NAME, `${PACKAGE_NAME}/*`],
      logLevel: 'warning',
    });
    const { stdout } = await run(
      process.execPath,
      ['--test', '--test-reporter=tap', 'store-contract.mjs'],
      consumer,
    );
    expect(stdout).toMatch(/^# fail 0$/m);
    // The suite needs no test runner of the package's own: no shipped module imports one.
    const shipped = (await walk(join(installed, 'dist'))).filter((f) => f.endsWith('.js'));
    const runners: string[] = [];
    for (const file of shipped) {
      const text = await readFile(file, 'utf8');
      if (/from\s*["'](vitest|jest|mocha)["']/.test(text)) runners.push(file);
    }
    expect(shipped.length).toBeGreaterThan(5);
    expect(runners).toEqual([]);
    const passed = Number(/^# pass (\d+)$/m.exec(stdout)?.[1]);
    expect(passed).toBeGreaterThanOrEqual(20);
  });
});

describe('the package name users install', () => {
  it("is the one the README's install line names, and the README's quick start runs from it", async () => {
    const readme = await readFile(join(ROOT, 'README.md'), 'utf8');
    const install = /^npm install (\S+) zod xstate$/m.exec(readme);
    expect(install?.[1]).toBe(PACKAGE_NAME);
    // The quick start block, as the README prints it, run in the consumer against a local
    // server speaking the Chat Completions protocol (OPENAI_BASE_URL, read by the openai client).
    const quickstart = /## Quickstart[\s\S]*?```ts\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
    expect(quickstart).toContain(`from '${PACKAGE_NAME}'`);
    const { code } = await transform(quickstart, { loader: 'ts', format: 'esm' });
    await writeFile(join(consumer, 'quickstart.mjs'), code);
    const server = await startChatCompletionsServer();
    try {
      server.enqueue(
        {
          json: completion({
            toolCalls: [{ id: 'c1', name: 'lookup_price', arguments: '{"item":"coffee"}' }],
          }),
        },
        { json: completion({ content: 'Three bags cost $23.40.' }) },
      );
      const { stdout } = await exec(process.execPath, ['quickstart.mjs'], {
        cwd: consumer,
        env: { ...process.env, OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: 'sk-test' },
      });
      expect(stdout).toMatch(/^Three bags cost \$23\.40\. \d+ /);
      expect(server.requests).toHaveLength(2);
      expect(existsSync(join(consumer, '.agentstate'))).toBe(true);
    } finally {
      await server.close();
    }
  });
});
