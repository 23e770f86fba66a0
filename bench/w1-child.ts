/**
 * W1 child: W1 in a fresh process of its own, for the runs side by side with the peer
 * (`--peers`), where every figure comes from a fresh process. Usage:
 * node bench/w1-child.js <messages> <warm-up messages> <level|memory> [keep the store at],
 * compiled first (`built-scripts.ts`): plain `node`, the package as `npm run build` ships it.
 * Warms V8 up as the bench's own process is warmed (`warmUp`), then runs W1 and its floor.
 * Prints one JSON line (a `W1Run`).
 */
import { warmUp } from './warmup.js';
import { runW1 } from './workloads/w1-long-conversation.js';

const [messagesArg, warmUpArg, store, keepAt] = process.argv.slice(2);
const [messages, warmUpMessages] = [Number(messagesArg), Number(warmUpArg)];
if (!Number.isInteger(messages) || !Number.isInteger(warmUpMessages) || !store) {
  throw new Error('usage: w1-child.js <messages> <warm-up> <level|memory> [keep at]');
}
await warmUp(warmUpMessages);
const run = await runW1({ messages, keepAt: keepAt || undefined, memory: store === 'memory' });
process.stdout.write(`${JSON.stringify(run)}\n`);
