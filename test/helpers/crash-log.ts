import { readFile } from 'node:fs/promises';

/** One line the crash worker's tool appended: `<callId> <n> <runId> <pid>`. */
export interface ToolLogLine {
  /** The idempotency key the tool read from its options. */
  callId: string;
  n: number;
  runId: string;
  pid: number;
  /** Position in the file. */
  index: number;
}

export async function readToolLog(file: string): Promise<ToolLogLine[]> {
  const text = await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return '';
    throw error;
  });
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line, index) => {
      const [callId, n, runId, pid, ...rest] = line.split(' ');
      if (!callId || !n || !runId || !pid || rest.length)
        throw new Error(`bad tool log line ${index}: "${line}"`);
      return { callId, n: Number(n), runId, pid: Number(pid), index };
    });
}

/**
 * The lines of a log without their last word (the pid of the process that wrote them): the
 * same line twice means the same step ran twice.
 */
export async function readLinesWithoutPid(file: string): Promise<string[]> {
  const text = await readFile(file, 'utf8');
  return text
    .trim()
    .split('\n')
    .map((l) => l.slice(0, l.lastIndexOf(' ')));
}

/** A kill the test performed, and how many log lines existed once the process was gone. */
export interface KillRecord {
  point: string;
  lastMarker: string | undefined;
  linesAtKill: number;
}

/** A call whose line appears twice: at the end of one process and the start of the next. */
export interface Duplicate {
  callId: string;
  /** Log positions of the two runs (adjacent, with a kill between them). */
  lines: [number, number];
}

/**
 * Checks the log of a crashed session and returns its duplicates. Throws unless: the calls ran
 * in order `call-0 .. call-<steps-1>`, each with its own call id as key and all in one run; no
 * call ran more than twice; and every second run is of the call in flight at a kill: the last
 * line before that kill, repeated as the first line of the next process (same key, other pid).
 */
export function checkToolLog(
  lines: ToolLogLine[],
  kills: KillRecord[],
  steps: number,
): Duplicate[] {
  const problems: string[] = [];
  for (const line of lines) {
    if (line.callId !== `call-${line.n}`)
      problems.push(`line ${line.index}: key ${line.callId} for call ${line.n}`);
  }
  const runIds = new Set(lines.map((l) => l.runId));
  if (runIds.size !== 1) problems.push(`expected one run, saw ${[...runIds].join(', ')}`);
  const order = [...new Set(lines.map((l) => l.callId))];
  const expected = Array.from({ length: steps }, (_, n) => `call-${n}`);
  if (order.join(',') !== expected.join(','))
    problems.push(`calls ran in order ${order.join(',')}`);

  const duplicates: Duplicate[] = [];
  for (const callId of order) {
    const seen = lines.filter((l) => l.callId === callId);
    if (seen.length === 1) continue;
    const [first, second] = seen as [ToolLogLine, ToolLogLine];
    const killed = kills.some((k) => k.linesAtKill === first.index + 1);
    if (seen.length > 2) problems.push(`${callId} ran ${seen.length} times`);
    else if (!killed || second.index !== first.index + 1) {
      problems.push(
        `${callId} ran twice (lines ${first.index}, ${second.index}) but was not the call in flight at a kill`,
      );
    } else if (first.pid === second.pid) {
      problems.push(`${callId} ran twice in the same process ${first.pid}`);
    } else {
      duplicates.push({ callId, lines: [first.index, second.index] });
    }
  }
  if (problems.length) throw new Error(`tool log check failed:\n${problems.join('\n')}`);
  return duplicates;
}

/**
 * What a kill did to the call whose line was the last one written before it: `again` when that
 * call ran again in a later process (its line reappears after the kill), else `once`.
 */
export function lastCallAfterKill(
  lines: ToolLogLine[],
  kill: KillRecord,
): 'again' | 'once' | 'none' {
  const last = lines[kill.linesAtKill - 1];
  if (!last) return 'none';
  return lines.some((l) => l.callId === last.callId && l.index >= kill.linesAtKill)
    ? 'again'
    : 'once';
}
