/**
 * W2 child: W2 in a fresh process of its own, so its peak RSS is its own and not what the
 * bench's earlier workloads left in the bench's process. Usage:
 * node bench/w2-child.js <sessions> <messages per session> <concurrency> <warm-up messages>,
 * compiled first (`built-scripts.ts`): plain `node`, the package as `npm run build` ships it.
 * It warms V8 up the way the bench's own process is warmed (`warmUp`, in its own store), then
 * runs W2 and measures its floor right after, in this same process: the same compiled code,
 * the same warm JIT and the same time window as the workload it is compared with.
 * Prints one JSON line (a `W2Run`).
 */
import { warmUp } from './warmup.js';
import { runW2 } from './workloads/w2-many-conversations.js';

const [sessions, messagesPerSession, concurrency, warmUpMessages] = process.argv
  .slice(2)
  .map(Number);
if (![sessions, messagesPerSession, concurrency, warmUpMessages].every(Number.isInteger)) {
  throw new Error('usage: w2-child.js <sessions> <messages per session> <concurrency> <warm-up>');
}
await warmUp(warmUpMessages!);
const run = await runW2({ sessions, messagesPerSession, concurrency });
process.stdout.write(`${JSON.stringify(run)}\n`);
