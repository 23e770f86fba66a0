import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { inject } from 'vitest';
import { z } from 'zod';
import { Agent, LevelSessionStore, tool } from '../../src/index.js';
import { newSessionRecord } from '../../src/runs/new-session-record.js';
import { FakeClock, ScriptedModel } from '../../src/testing.js';
import { echoModel } from './session-fixtures.js';
import { triageWithBilling } from './sub-agent-fixtures.js';

const exec = promisify(execFile);
export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The package as built once for the run (test/global-setup.ts), never the repo's dist. */
export interface BuiltCli {
  dir: string;
  /** The built `dist/cli.js`. */
  bin: string;
  /** The built `dist/index.js`, for helper processes and agent modules. */
  index: string;
  /** Nothing to do: the run's setup removes the build when the run ends. */
  cleanup(): Promise<void>;
}

export async function buildCli(): Promise<BuiltCli> {
  const dir = inject('builtPackage');
  return {
    dir,
    bin: join(dir, 'dist', 'cli.js'),
    index: join(dir, 'dist', 'index.js'),
    cleanup: async () => undefined,
  };
}

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the built binary as a child process. */
export async function runCli(
  cli: BuiltCli,
  args: string[],
  options: { cwd?: string; env?: Record<string, string> } = {},
): Promise<CliRun> {
  const env: Record<string, string | undefined> = { ...process.env, TZ: 'UTC', ...options.env };
  delete env['AGENTSTATE_DIR'];
  if (options.env?.['AGENTSTATE_DIR']) env['AGENTSTATE_DIR'] = options.env['AGENTSTATE_DIR'];
  try {
    const { stdout, stderr } = await exec(process.execPath, [cli.bin, ...args], {
      cwd: options.cwd ?? cli.dir,
      env,
      maxBuffer: 64 * 1024 * 1024,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    if (typeof e.code !== 'number') throw error;
    return { code: e.code, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

/** The approval-gated tool of the fixture sessions; its runs are counted in `ran`. */
export const FIXTURE_TOOL_SOURCE = `
import { appendFileSync } from 'node:fs';
import { inject } from 'vitest';
import { z } from 'zod';
export function dangerTool(tool, marker) {
  return tool({
    name: 'danger',
    description: 'Needs approval',
    parameters: z.object({ target: z.string() }),
    needsApproval: true,
    execute: ({ target }) => {
      appendFileSync(marker, target + '\\n');
      return 'done: ' + target;
    },
  });
}
`;

/** The scripted answers of the `assistant` agent: a danger call on "danger <x>", else echo. */
export function assistantScript() {
  const echo = echoModel();
  return new ScriptedModel(async (request) => {
    const last = request.items.at(-1);
    if (last?.type === 'message' && typeof last.content === 'string') {
      const m = /^danger (\w+)$/.exec(last.content);
      if (m) {
        return {
          toolCalls: [{ name: 'danger', arguments: { target: m[1]! }, callId: `c-${m[1]!}` }],
        };
      }
    }
    if (last?.type === 'tool_result') return { text: `after ${last.output}` };
    const reply = await echo.generate(request);
    return { text: reply.text ?? '' };
  });
}

const danger = tool({
  name: 'danger',
  description: 'Needs approval',
  parameters: z.object({ target: z.string() }),
  needsApproval: true,
  execute: ({ target }) => `done: ${target}`,
});

/**
 * A LevelDB folder an app wrote: alice's `chat` (two turns), `waiting` (a call `c-prod`
 * pending approval), `to-cancel` (a call `c-x` pending), `tree` (a refund pending deep in a
 * sub-agent); bob's `bob-chat`; the anonymous `anon-1`. Closed when it returns.
 */
export async function writeFixtureFolder(path: string): Promise<void> {
  const store = await LevelSessionStore.open({ path });
  try {
    const clock = new FakeClock(Date.UTC(2026, 10, 22, 9, 30));
    const assistant = new Agent({
      name: 'assistant',
      model: assistantScript(),
      tools: [danger],
      store,
      clock,
    });
    const alice = (sessionId: string) => ({ sessionId, userId: 'alice' });
    await assistant.run('hello', alice('chat'));
    clock.advance(60_000);
    await assistant.run('how are you?', alice('chat'));
    await assistant.run('danger prod', alice('waiting'));
    await assistant.run('danger x', alice('to-cancel'));
    await assistant.run('hi from bob', { sessionId: 'bob-chat', userId: 'bob' });
    await assistant.run('hi anonymous', { sessionId: 'anon-1' });
    const { triage } = triageWithBilling({ store, triage: { clock } });
    await triage.run('please refund order 9', alice('tree'));
  } finally {
    await store.close();
  }
}

/** `count` empty sessions of `userId`, written straight to the store (for listing at scale). */
export async function writeManySessions(path: string, userId: string, count: number) {
  const store = await LevelSessionStore.open({ path });
  try {
    const now = Date.UTC(2026, 10, 22);
    for (let i = 0; i < count; i += 500) {
      const batch = [];
      for (let j = i; j < Math.min(count, i + 500); j++) {
        const key = { sessionId: `bulk-${String(j).padStart(5, '0')}`, userId };
        batch.push(store.create(newSessionRecord(key, now)));
      }
      await Promise.all(batch);
    }
  } finally {
    await store.close();
  }
}

/**
 * An app module for `resume --agent`: the assistant agent, its tool appending to `marker`;
 * `options`: more of its options, as source (e.g. `instructions: 'Be brief.',`).
 */
export async function writeAgentModule(
  cli: BuiltCli,
  folder: string,
  marker: string,
  options = '',
) {
  await mkdir(folder, { recursive: true });
  await writeFile(join(folder, 'fixture-tool.mjs'), FIXTURE_TOOL_SOURCE);
  const module = join(folder, 'app-agent.mjs');
  await writeFile(
    module,
    `import { Agent, tool } from ${JSON.stringify(cli.index)};
import { ScriptedModel } from ${JSON.stringify(join(cli.dir, 'dist', 'testing.js'))};
import { dangerTool } from './fixture-tool.mjs';
const model = new ScriptedModel((request) => {
  const last = request.items.at(-1);
  return { text: last?.type === 'tool_result' ? 'after ' + last.output : 'ok' };
});
export const agent = new Agent({
  name: 'assistant',
  model,
  tools: [dangerTool(tool, ${JSON.stringify(marker)})],${options}
});
`,
  );
  return module;
}
