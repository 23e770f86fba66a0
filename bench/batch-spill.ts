import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import type { KvOp } from '../src/persistence/kv/backends/kv-backend.js';

/** Text buffered before it goes to the file. */
const CHUNK = 1 << 20;

/**
 * The batches a recorded store writes, kept in a temp file while the workload runs rather than
 * in the heap: held in memory, W2's 13,000 batches (~30 MB of keys and values) added ~55 MB to
 * its peak RSS, which is the bench's, not the runtime's. Each batch is appended as text,
 * lengths first (`<ops>\n` then per op `p<key length>:<key><value length>:<value>` or
 * `d<key length>:<key>`), a megabyte at a time.
 */
export class BatchSpill {
  private readonly fd: number;
  private pending: string[] = [];
  private pendingLength = 0;

  constructor(private readonly path: string) {
    this.fd = openSync(path, 'w');
  }

  append(ops: readonly KvOp[]): void {
    let text = `${ops.length}\n`;
    for (const op of ops) {
      text +=
        op.type === 'put'
          ? `p${op.key.length}:${op.key}${op.value.length}:${op.value}`
          : `d${op.key.length}:${op.key}`;
    }
    this.pending.push(text);
    this.pendingLength += text.length;
    if (this.pendingLength >= CHUNK) this.flush();
  }

  /** Closes and deletes the file; returns every batch appended, in order. */
  readAll(): KvOp[][] {
    this.flush();
    closeSync(this.fd);
    const text = readFileSync(this.path, 'utf8');
    rmSync(this.path, { force: true });
    const batches: KvOp[][] = [];
    let at = 0;
    const take = (): string => {
      const colon = text.indexOf(':', at);
      const length = Number(text.slice(at, colon));
      at = colon + 1 + length;
      return text.slice(colon + 1, at);
    };
    while (at < text.length) {
      const newline = text.indexOf('\n', at);
      const count = Number(text.slice(at, newline));
      at = newline + 1;
      const ops: KvOp[] = [];
      for (let i = 0; i < count; i++) {
        const type = text[at++];
        const key = take();
        ops.push(type === 'p' ? { type: 'put', key, value: take() } : { type: 'del', key });
      }
      batches.push(ops);
    }
    return batches;
  }

  private flush(): void {
    if (this.pending.length) writeSync(this.fd, this.pending.join(''));
    this.pending = [];
    this.pendingLength = 0;
  }
}
