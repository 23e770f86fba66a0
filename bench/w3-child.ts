/**
 * W3 child: a fresh process that opens the T = 500 store and sends one more message.
 * Usage: node --import tsx bench/w3-child.ts <db folder> <spawn time, epoch ms>
 * Prints one JSON line with the phases in ms. No static imports, so that the first line runs
 * before anything of the package is loaded.
 */
const firstLine = performance.timeOrigin + performance.now();
const [dir, spawnedAtArg, messageIndexArg] = process.argv.slice(2);
if (!dir || !spawnedAtArg)
  throw new Error('usage: w3-child.ts <db folder> <spawn time> [message index]');
const spawnedAt = Number(spawnedAtArg);

const t0 = performance.now();
const { LevelSessionStore } = await import('../src/index.js');
const { benchAgent, userMessage, W1_SESSION } = await import('./fixtures.js');
const t1 = performance.now();
const store = await LevelSessionStore.open({ path: dir });
const t2 = performance.now();
const result = await benchAgent().run(userMessage(Number(messageIndexArg ?? 500)), {
  ...W1_SESSION,
  store,
});
const t3 = performance.now();
const after = await store.load(W1_SESSION);
await store.close();
if (result.turns !== 2 || result.newItems.length !== 3 || after.historyLength < 8) {
  throw new Error(`unexpected resume: ${result.turns} turn(s), history ${after.historyLength}`);
}
const end = performance.timeOrigin + t3;
process.stdout.write(
  `${JSON.stringify({
    /** History items the session had before this message. */
    historyLength: after.historyLength - 4,
    /** Spawn to process start (as Node records it). */
    processMs: performance.timeOrigin - spawnedAt,
    /** Spawn to the first line of this script (Node boot plus the tsx loader). */
    startupMs: firstLine - spawnedAt,
    importsMs: t1 - t0,
    openMs: t2 - t1,
    /** The message, including the session's first load in this process. */
    messageMs: t3 - t2,
    totalMs: end - spawnedAt,
  })}\n`,
);
