/**
 * W2 child: W2 in a fresh process of its own, so its peak RSS is its own and not what the
 * bench's earlier workloads left in the bench's process. Usage:
 * node bench/w2-child.js <sessions> <messages per session> <concurrency> <warm-up messages>
 * [level|memory] [durability], the store LevelDB and the durability the default if not given;
 * compiled first (`built-scripts.ts`): plain `node`, the package as `npm run build` ships it.
 * It warms V8 up the way the bench's own process is warmed (`warmUp`, in its own store), then
 * runs W2 and measures its floor right after, in this same process: the same compiled code,
 * the same warm JIT and the same time window as the workload it is compared with.
 * Prints one JSON line (a `W2Run`).
 */
import type { Durability } from '../src/index.js';
import { benchAgent, BenchModel } from './fixtures.js';
import { warmUp } from './warmup.js';
import { runW2 } from './workloads/w2-many-conversations.js';

const args = process.argv.slice(2);
const [sessions, messagesPerSession, concurrency, warmUpMessages] = args.slice(0, 4).map(Number);
const [store, durability] = args.slice(4) as [string | undefined, Durability | undefined];
if (![sessions, messagesPerSession, concurrency, warmUpMessages].every(Number.isInteger)) {
  throw new Error('usage: w2-child.js <sessions> <messages per session> <concurrency> <warm-up>');
}
await warmUp(warmUpMessages!);
const run = await runW2({
  sessions,
  messagesPerSession,
  concurrency,
  memory: store === 'memory',
  ...(durability ? { agent: benchAgent(new BenchModel(), durability) } : {}),
});
process.stdout.write(`${JSON.stringify(run)}\n`);
