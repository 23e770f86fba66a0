/**
 * The peer's W1 or W2 in a fresh process of its own (as agentstate's W2 runs in `w2-child`),
 * compiled first and run with plain `node`. Usage:
 *   node child.js w1 <memory|sqlite|level> <messages> <warm-up messages> [keep the database at]
 *   node child.js w2 <memory|sqlite|level> <sessions> <messages per session> <concurrency> <warm-up>
 * Prints one JSON line (a `PeerW1Run` or `PeerW2Run`).
 */
import { W1_SESSION_ID } from './bench-agent.js';
import { isPeerMode } from './peer-store.js';
import { peerW1, peerW2, peerWarmUp } from './workloads.js';

const [workload, modeArg, ...rest] = process.argv.slice(2);
if (!isPeerMode(modeArg)) throw new Error(`unknown mode ${modeArg}: memory, sqlite or level`);
const mode = modeArg;
const numbers = rest.map(Number);

let result: object;
if (workload === 'w1') {
  const [messages, warmUp] = numbers;
  if (!Number.isInteger(messages) || !Number.isInteger(warmUp))
    throw new Error('usage: child.js w1 <mode> <messages> <warm-up> [keep at]');
  await peerWarmUp(mode, warmUp!);
  result = await peerW1(mode, messages!, W1_SESSION_ID, rest[2] || undefined);
} else if (workload === 'w2') {
  const [sessions, perSession, concurrency, warmUp] = numbers;
  if (![sessions, perSession, concurrency, warmUp].every(Number.isInteger))
    throw new Error('usage: child.js w2 <mode> <sessions> <per session> <concurrency> <warm-up>');
  await peerWarmUp(mode, warmUp!);
  result = await peerW2(mode, sessions!, perSession!, concurrency!);
} else {
  throw new Error(`unknown workload ${workload}: w1 or w2`);
}
process.stdout.write(`${JSON.stringify(result)}\n`);
