import { afterEach, describe, expect, it } from 'vitest';
import { Agent, SessionRuntime, getRunContext, sendMessage, type Logger } from '../../src/index.js';
import { FakeClock, ScriptedModel } from '../../src/testing.js';
import { approvalTools, newCounters } from '../helpers/approval-agent.js';
import { TempStores } from '../helpers/temp-store.js';
import { memoryLogger } from '../helpers/otel.js';

const temps = new TempStores();
afterEach(() => temps.cleanupAll());

const key = { sessionId: 'log-1', userId: 'alice' };
const mailModel = () =>
  new ScriptedModel((request) =>
    request.items.some((i) => i.type === 'tool_result')
      ? { text: 'done' }
      : { toolCalls: [{ name: 'send_email', arguments: { to: 'bob', body: 'hi' } }] },
  );

/** A promise and its resolve function. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

describe('logger', () => {
  it('writes one structured line per run start and end, with userId, sessionId and runId', async () => {
    const { store } = await temps.open();
    const { logger, lines } = memoryLogger();
    const agent = new Agent({
      name: 'a',
      model: new ScriptedModel([{ text: 'hi' }]),
      store,
      logger,
    });
    const result = await agent.run('hello', key);
    expect(lines.map((l) => `${l.level} ${String(l.event)}`)).toEqual([
      'info run.start',
      'info run.end',
    ]);
    for (const line of lines) {
      expect(line).toMatchObject({ userId: 'alice', sessionId: 'log-1', runId: result.id });
    }
    expect(lines[1]).toMatchObject({ status: 'completed', turns: 1, msg: 'agentstate run.end' });
  });

  it('writes nothing by default', async () => {
    const { store } = await temps.open();
    const written: string[] = [];
    const write = process.stderr.write.bind(process.stderr);
    process.stderr.write = (chunk: string) => written.push(String(chunk)) > 0;
    try {
      const agent = new Agent({ name: 'a', model: new ScriptedModel([{ text: 'hi' }]), store });
      await agent.run('hello', key);
    } finally {
      process.stderr.write = write;
    }
    expect(written.filter((w) => w.includes('agentstate'))).toEqual([]);
  });

  it('AGENTSTATE_LOG=debug (read at construction) writes JSON lines to stderr', async () => {
    const { store } = await temps.open();
    const written: string[] = [];
    const write = process.stderr.write.bind(process.stderr);
    process.env['AGENTSTATE_LOG'] = 'debug';
    let agent: Agent;
    try {
      agent = new Agent({ name: 'a', model: new ScriptedModel([{ text: 'hi' }]), store });
    } finally {
      delete process.env['AGENTSTATE_LOG'];
    }
    process.stderr.write = (chunk: string) => written.push(String(chunk)) > 0;
    try {
      await agent.run('hello', key);
    } finally {
      process.stderr.write = write;
    }
    const lines = written
      .flatMap((w) => w.split('\n'))
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.map((l) => l['event'])).toEqual(['run.start', 'run.end']);
    expect(lines[0]).toMatchObject({ level: 'info', userId: 'alice', sessionId: 'log-1' });
    expect(typeof lines[0]!['time']).toBe('number');
  });

  it('logs restore, restart and a conflict; keeps secrets out of the lines', async () => {
    const { store } = await temps.open();
    const secret = 'sk-test-FAKE-KEY-777';
    const first = memoryLogger();
    const called = gate();
    const release = gate();
    const stuck = new Agent({
      name: 'a',
      store,
      lease: false,
      logger: first.logger,
      redact: (text) => text.replaceAll(secret, '[REDACTED]'),
      model: new ScriptedModel(async () => {
        called.open();
        await release.opened;
        return { text: 'late' };
      }),
    });
    const running = stuck.run('hello', key).catch((error: unknown) => error);
    await called.opened;
    // Another process (agent, runtime) picks the stored run up while it is in flight.
    const second = memoryLogger();
    const resumer = new Agent({
      name: 'a',
      store,
      lease: false,
      logger: second.logger,
      model: new ScriptedModel([{ text: 'on time' }]),
    });
    const resumed = await resumer.resume(key.sessionId, { userId: 'alice' });
    expect(resumed.output).toBe('on time');
    expect(second.lines.map((l) => l.event)).toEqual(['run.restore', 'run.restart', 'run.end']);
    for (const line of second.lines) expect(line).toMatchObject({ ...key, runId: resumed.id });
    // The first process answers late: its save loses the version check.
    release.open();
    const error = await running;
    expect(error).toMatchObject({ code: 'SESSION_CONFLICT' });
    const conflict = first.lines.find((l) => l.event === 'session.conflict');
    expect(conflict).toMatchObject({ level: 'warn', ...key, runId: resumed.id });
    expect(JSON.stringify([first.lines, second.lines])).not.toContain(secret);
  });

  it('logs a retry of a failed model call, redacting the error, and a passed approval deadline', async () => {
    const { store } = await temps.open();
    const secret = 'sk-test-FAKE-KEY-888';
    const { logger, lines } = memoryLogger();
    const clock = new FakeClock();
    let calls = 0;
    const agent = new Agent({
      name: 'a',
      store,
      clock,
      logger,
      approvalTimeoutMs: 1000,
      tools: approvalTools(newCounters()),
      redact: (text) => text.replaceAll(secret, '[REDACTED]'),
      model: new ScriptedModel((request) => {
        calls += 1;
        if (calls === 1) return { error: `upstream rejected key ${secret}` };
        return mailModel()
          .generate(request)
          .then((r) => ({
            text: r.text,
            toolCalls: r.toolCalls.map((c) => ({ name: c.name, arguments: c.arguments })),
          }));
      }),
    });
    const failed = await agent.run('mail bob', key);
    expect(failed.interruptionReason).toBe('error');
    const paused = await agent.resume(key.sessionId, { userId: 'alice' });
    expect(paused.interruptionReason).toBe('approval');
    clock.advance(5000);
    const done = await agent.resume(key.sessionId, { userId: 'alice' });
    expect(done.output).toBe('done');
    const events = lines.map((l) => l.event);
    expect(events).toEqual([
      'run.start',
      'run.pause',
      'run.restore',
      'run.retry',
      'run.pause',
      'run.restore',
      'run.deadline',
      'run.end',
    ]);
    expect(lines[1]).toMatchObject({ interruption: 'error', error: { code: 'MODEL_ERROR' } });
    expect(JSON.stringify(lines)).toContain('[REDACTED]');
    expect(JSON.stringify(lines)).not.toContain(secret);
    expect(lines.find((l) => l.event === 'run.deadline')).toMatchObject({ tool: 'send_email' });
    for (const line of lines) expect(line).toMatchObject({ ...key, runId: done.id });
  });

  it('calls the logger inside the run context; the runtime takes a logger of its own', async () => {
    const { store } = await temps.open();
    const seen: string[] = [];
    const logger: Logger = {
      debug: () => undefined,
      info: (fields) => seen.push(`${String(fields['event'])} ${getRunContext().userId}`),
      warn: () => undefined,
      error: () => undefined,
    };
    const agent = new Agent({ name: 'a', model: new ScriptedModel([{ text: 'hi' }]) });
    const runtime = new SessionRuntime({ store, agent, logger });
    await runtime.execute({ sessionId: 's', userId: 'carol' }, sendMessage('hello'));
    expect(seen).toEqual(['run.start carol', 'run.end carol']);
    expect(() => new SessionRuntime({ store, agent, logger: {} as never })).toThrow(/logger/);
  });
});
