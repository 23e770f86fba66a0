/**
 * W3 on the peer: a fresh process opens a copy of the peer's W1 database (T = 500) and sends
 * one more message, as agentstate's `w3-child` does with its LevelDB store. Usage:
 * node w3-child.js <sqlite|level> <database> <spawn time, epoch ms> <message index>,
 * compiled first.
 * No static imports, so that the first line runs before anything of the peer is loaded.
 * Prints one JSON line with the phases in ms.
 */
const firstLine = performance.timeOrigin + performance.now();
const [mode, path, spawnedAtArg, messageIndexArg] = process.argv.slice(2);
if ((mode !== 'sqlite' && mode !== 'level') || !path || !spawnedAtArg)
  throw new Error('usage: w3-child.js <sqlite|level> <database> <spawn time> [index]');
const spawnedAt = Number(spawnedAtArg);

const t0 = performance.now();
await import('zod');
const tZod = performance.now();
await import('@openai/agents');
const tPackage = performance.now();
const { benchPeerAgent, benchRunner, W1_SESSION_ID } = await import('./bench-agent.js');
const { openPeerStore } = await import('./peer-store.js');
const { sendMessage } = await import('./workloads.js');
const tApp = performance.now();
const store = await openPeerStore(mode, path);
const t2 = performance.now();
await sendMessage(
  benchRunner(),
  benchPeerAgent(),
  store,
  W1_SESSION_ID,
  Number(messageIndexArg ?? 500),
);
const t3 = performance.now();
const historyLength = (await store.session(W1_SESSION_ID).getItems()).length;
await store.close();
if (historyLength < 8) throw new Error(`unexpected resume: history ${historyLength}`);
process.stdout.write(
  `${JSON.stringify({
    /** History items the conversation had before this message. */
    historyLength: historyLength - 4,
    startupMs: firstLine - spawnedAt,
    /** zod, then `@openai/agents` (which loads `openai` and the realtime part). */
    importsMs: tPackage - t0,
    zodMs: tZod - t0,
    packageMs: tPackage - tZod,
    /** The app's own modules: the agent, its tool, the scripted model, the stores. */
    appMs: tApp - tPackage,
    /** Opening the database (and, for SQLite, preparing its statements). */
    openMs: t2 - tApp,
    /** The message: its history read, two model calls, one tool call, items and RunState saved. */
    messageMs: t3 - t2,
    totalMs: performance.timeOrigin + t3 - spawnedAt,
  })}\n`,
);
