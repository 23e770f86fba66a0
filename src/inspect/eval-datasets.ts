import { mkdir, readdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { appendRows, readDataset } from '../evals/eval-dataset.js';
import { rowsFromRun } from '../evals/rows-from-run.js';
import type { SessionKey } from '../persistence/session-store.js';
import { HttpError } from './http-io.js';
import { optionalString, requiredString } from './inspector-actions.js';
import type { InspectorAgents } from './inspector-agents.js';

/** A dataset's name: a file name without folders (`bills`, `refunds-2026.v2`), `.jsonl` added. */
const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

/** A dataset of the inspector's folder as the page lists it. */
export interface DatasetSummary {
  name: string;
  rows: number;
}

/**
 * The app's eval datasets as the inspector serves them (`datasets: { dir }`): the JSONL files
 * of one folder, listed, and appended to with rows built from a session's run.
 */
export class InspectorDatasets {
  private readonly dir: string | undefined;

  constructor(options: { dir: string } | undefined) {
    this.dir = options === undefined ? undefined : resolve(options.dir);
  }

  /** Whether the inspector was given a datasets folder. */
  get enabled(): boolean {
    return this.dir !== undefined;
  }

  /** The folder, or a 404 when the inspector has none. */
  private folder(): string {
    if (this.dir === undefined) {
      throw new HttpError(
        404,
        'NO_DATASETS',
        'This inspector has no datasets folder (the app starts it with `datasets: { dir }`)',
      );
    }
    return this.dir;
  }

  /** The file of the dataset `name` (checked: no folder, no `..`). */
  private fileOf(name: string): string {
    if (!NAME.test(name) || name.includes('..')) {
      throw new HttpError(
        400,
        'BAD_REQUEST',
        '"dataset" must be a name of letters, digits, ".", "_" and "-" (at most 100; no folders)',
      );
    }
    return join(this.folder(), `${name.replace(/\.jsonl$/, '')}.jsonl`);
  }

  /** The datasets of the folder, by name, with their row counts (a missing folder: none). */
  async list(): Promise<{ datasets: DatasetSummary[] }> {
    const dir = this.folder();
    const files = await readdir(dir).catch((error: { code?: string }) => {
      if (error.code === 'ENOENT') return [];
      throw error;
    });
    const datasets: DatasetSummary[] = [];
    for (const file of files.filter((f) => f.endsWith('.jsonl')).sort()) {
      const dataset = await readDataset(join(dir, file));
      datasets.push({ name: file.slice(0, -'.jsonl'.length), rows: dataset.rows.length });
    }
    return { datasets };
  }

  /**
   * Appends rows built from `key`'s run to a dataset: body `{ dataset, steps?: 'run' |
   * 'model-steps', runId? }` (default: one row of the session's current, else last, run). The
   * rows are built with the agent that runs the session; a row id the file has is a 400
   * `INVALID_DATASET` and nothing is written.
   */
  async add(
    agents: InspectorAgents,
    key: SessionKey,
    body: Record<string, unknown>,
  ): Promise<{ dataset: string; added: string[]; kind: 'run' | 'step' }> {
    const name = requiredString(body, 'dataset');
    const path = this.fileOf(name);
    const steps = body['steps'] ?? 'run';
    if (steps !== 'run' && steps !== 'model-steps') {
      throw new HttpError(400, 'BAD_REQUEST', '"steps" must be "run" or "model-steps"');
    }
    const runId = optionalString(body, 'runId');
    const agent = await agents.agentFor(key);
    const rows = await rowsFromRun({ store: agents.runtime.store, agent }, key, {
      steps,
      ...(runId === undefined ? {} : { runId }),
    });
    await mkdir(this.folder(), { recursive: true });
    await appendRows(path, rows);
    return {
      dataset: name.replace(/\.jsonl$/, ''),
      added: rows.map((r) => r.id),
      kind: steps === 'run' ? 'run' : 'step',
    };
  }
}
