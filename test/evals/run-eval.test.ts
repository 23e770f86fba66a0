import { describe, expect, it } from 'vitest';
import { InvalidDatasetError, EvalMismatchError } from '../../src/errors/eval-errors.js';
import { parseDataset } from '../../src/evals/eval-dataset.js';
import type { EvalRow } from '../../src/evals/eval-row.js';
import { evaluateStep } from '../../src/evals/evaluate-step.js';
import { listEvalRuns, readEvalReport } from '../../src/evals/eval-runs.js';
import { parseEvalReport } from '../../src/evals/eval-report-build.js';
import { rowsFromRun } from '../../src/evals/rows-from-run.js';
import { runEval } from '../../src/evals/run-eval.js';
import type { Scorer } from '../../src/evals/scorer.js';
import { MemorySessionStore } from '../../src/persistence/kv/memory-session-store.js';
import { ScriptedModel } from '../../src/models/scripted-model.js';
import { FakeClock } from '../../src/testing/fake-clock.js';
import { recordedBills, recordedSupport } from '../helpers/eval-agents.js';
import { RecordingModel } from '../helpers/recording-model.js';

/** The output is the recorded one. */
const sameOutput: Scorer = {
  name: 'same-output',
  version: '1',
  score: ({ row, outcome }) => {
    const pass = outcome.output === row.recorded.output;
    return { score: pass ? 1 : 0, pass, ...(pass ? {} : { reason: `got ${outcome.output}` }) };
  },
};

/** Sessions of the bills agent, approved and rejected, as rows (through a JSONL round trip). */
async function billsDataset(kind: 'run' | 'model-steps') {
  const store = new MemorySessionStore();
  const { agent, model } = recordedBills();
  const rows: EvalRow[] = [];
  for (const [i, decision] of (['approve', 'reject', 'approve'] as const).entries()) {
    const sessionId = `bills-${i}`;
    const first = await agent.run('Pay my power bill', { sessionId, store });
    const callId = first.interruptions[0]!.callId;
    if (decision === 'approve') await agent.approve(sessionId, callId, { store });
    else await agent.reject(sessionId, callId, { store, message: 'Too much' });
    rows.push(...(await rowsFromRun({ store, agent }, { sessionId }, { steps: kind })));
  }
  const text = rows.map((r) => JSON.stringify(r)).join('\n');
  return { dataset: parseDataset(text, { name: 'bills' }), agent, model };
}

/** Every key and value of a memory store, to compare before and after. */
async function dump(store: MemorySessionStore) {
  const page = await store.list({ kind: 'workflow' });
  return JSON.stringify(page.sessions.map((s) => [s.sessionId, s.version, s.status]));
}

describe('the seam: a step row sent again', () => {
  it('sends a request byte-equal to what the model received (bills and a sub-agent)', async () => {
    const { dataset, agent, model } = await billsDataset('model-steps');
    const candidate = new RecordingModel(new ScriptedModel(() => ({ text: 'ok' })));
    for (const row of dataset.rows) {
      await evaluateStep(row, agent, { model: candidate }, new AbortController().signal);
    }
    expect(candidate.sent).toEqual(model.sent);

    const store = new MemorySessionStore();
    const support = recordedSupport();
    const first = await support.agent.run('Refund A-77', { sessionId: 's', store });
    await support.agent.approve('s', first.interruptions[0]!.callId, { store });
    const rows = await rowsFromRun(
      { store, agent: support.agent },
      { sessionId: 's' },
      { steps: 'model-steps' },
    );
    const again = parseDataset(rows.map((r) => JSON.stringify(r)).join('\n'), { name: 'support' });
    const seam = new RecordingModel(new ScriptedModel(() => ({ text: 'ok' })));
    for (const row of again.rows) {
      await evaluateStep(row, support.agent, { model: seam }, new AbortController().signal);
    }
    expect(seam.sent).toEqual([...support.models.triage.sent, ...support.models.billing.sent]);
  });

  it("the candidate's instructions and settings change only those fields; diverging calls are flagged", async () => {
    const { dataset, agent } = await billsDataset('model-steps');
    const candidate = new RecordingModel(new ScriptedModel(() => ({ text: 'paid nothing' })));
    const { diverged, outcome } = await evaluateStep(
      dataset.rows[0]!,
      agent,
      { model: candidate, instructions: (was) => `${was} Be brief.`, settings: { temperature: 0 } },
      new AbortController().signal,
    );
    const sent = JSON.parse(candidate.sent[0]!) as { instructions: string; settings: unknown };
    expect(sent.instructions).toBe("You pay the user's bills. Be brief.");
    expect(sent.settings).toEqual({ temperature: 0 });
    expect(outcome).toMatchObject({ output: 'paid nothing', turns: 1, toolCalls: [] });
    expect(diverged).toBe(true);
  });
});

describe('runEval: a persisted eval run', () => {
  it('evaluates whole runs with scripted tools, replaying decisions; a second call reads it back', async () => {
    const { dataset, agent } = await billsDataset('run');
    const store = new MemorySessionStore();
    const clock = new FakeClock(5_000);
    const report = await runEval({
      id: 'e1',
      store,
      agent,
      dataset,
      scorers: [sameOutput],
      clock,
      concurrency: 2,
      label: 'baseline',
    });
    expect(report).toMatchObject({
      format: 'agentstate-eval-report',
      evalId: 'e1',
      agent: 'bills',
      label: 'baseline',
      dataset: { name: 'bills', rows: 3, hash: dataset.hash },
      summary: { rows: 3, passed: 3, failed: 0, errored: 0 },
    });
    expect(report.rows.map((r) => r.rowId)).toEqual(dataset.rows.map((r) => r.id));
    expect(report.rows.map((r) => r.outcome?.status)).toEqual([
      'completed',
      'completed',
      'completed',
    ]);
    expect(report.rows.every((r) => r.definitionChanges.length === 0)).toBe(true);
    expect(report.rows[1]!.outcome?.output).toMatch(/did not pay/);

    const calls = new RecordingModel(new ScriptedModel(() => ({ text: 'x' })));
    const again = await runEval({
      id: 'e1',
      store,
      agent,
      dataset,
      scorers: [sameOutput],
      clock,
      candidate: { model: calls },
    });
    expect(calls.sent).toEqual([]);
    expect(again.rows).toEqual(report.rows);
    expect(await readEvalReport(store, 'e1')).toEqual(again);
    expect(parseEvalReport(JSON.stringify(again))).toEqual(again);
    expect(await listEvalRuns(store)).toEqual([
      expect.objectContaining({ evalId: 'e1', status: 'completed', done: 3, passed: 3 }),
    ]);
  });

  it('a worse candidate fails the rows it changes, and reports the changed definition per row', async () => {
    const { dataset, agent } = await billsDataset('run');
    const worse = new ScriptedModel(() => ({ text: 'I paid everything.' }), { name: 'other' });
    const report = await runEval({
      id: 'worse',
      store: new MemorySessionStore(),
      agent,
      dataset,
      scorers: [sameOutput],
      candidate: { model: worse },
    });
    expect(report.summary).toMatchObject({ rows: 3, passed: 0, failed: 3 });
    expect(report.rows[0]!.definitionChanges).toEqual(['model']);
    expect(report.rows[0]!.scores['same-output']).toMatchObject({ pass: false, version: '1' });
  });

  it('same id with another dataset or scorers: EvalMismatchError, nothing stored', async () => {
    const { dataset, agent } = await billsDataset('run');
    const store = new MemorySessionStore();
    await runEval({ id: 'e2', store, agent, dataset, scorers: [sameOutput] });
    const before = await dump(store);
    const fewer = parseDataset(JSON.stringify(dataset.rows[0]), { name: 'bills' });
    await expect(
      runEval({ id: 'e2', store, agent, dataset: fewer, scorers: [sameOutput] }),
    ).rejects.toBeInstanceOf(EvalMismatchError);
    await expect(
      runEval({ id: 'e2', store, agent, dataset, scorers: [{ ...sameOutput, version: '2' }] }),
    ).rejects.toThrow(/scorers same-output@1/);
    expect(await dump(store)).toBe(before);
  });

  it('a row naming a tool the agent lacks, or another agent: InvalidDatasetError, nothing stored', async () => {
    const { dataset, agent } = await billsDataset('run');
    const store = new MemorySessionStore();
    const bad = dataset.rows.map((r, i) =>
      i === 1
        ? {
            ...r,
            recorded: { ...r.recorded, toolCalls: [{ name: 'wire_money', arguments: '{}' }] },
          }
        : r,
    );
    const error = await runEval({
      id: 'e3',
      store,
      agent,
      dataset: { ...dataset, rows: bad },
      scorers: [],
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidDatasetError);
    expect(error).toMatchObject({ rowId: dataset.rows[1]!.id });
    expect((error as Error).message).toContain('wire_money');
    const other = dataset.rows.map((r) => ({ ...r, agent: 'payroll' }));
    await expect(
      runEval({ id: 'e3', store, agent, dataset: { ...dataset, rows: other }, scorers: [] }),
    ).rejects.toThrow(/agent "payroll"/);
    expect(await dump(store)).toBe('[]');
    await expect(
      runEval({ id: 'e3', store, agent, dataset, scorers: [], concurrency: 0 }),
    ).rejects.toThrow(TypeError);
  });
});

describe('runEval: concurrency', () => {
  it('runs up to `concurrency` rows at once (each lane its own row in flight)', async () => {
    const { dataset, agent } = await billsDataset('model-steps');
    let inFlight = 0;
    let most = 0;
    let release!: () => void;
    const bothAsked = new Promise<void>((resolve) => (release = resolve));
    const answers = new ScriptedModel(() => ({ text: 'ok' }));
    const gated = {
      name: 'gated',
      async generate(request: Parameters<ScriptedModel['generate']>[0]) {
        inFlight += 1;
        most = Math.max(most, inFlight);
        if (inFlight === 2) release();
        await bothAsked; // the first row answers only once a second one was asked
        inFlight -= 1;
        return answers.generate(request);
      },
      stream: (request: Parameters<ScriptedModel['stream']>[0]) => answers.stream(request),
    };
    const report = await runEval({
      id: 'lanes',
      store: new MemorySessionStore(),
      agent,
      dataset,
      scorers: [],
      candidate: { model: gated },
      concurrency: 2,
    });
    expect(most).toBe(2);
    expect(report.summary.rows).toBe(dataset.rows.length);
  });
});
