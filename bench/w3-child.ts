/**
 * W3 child: a fresh process that opens the T = 500 store and sends one more message.
 * Usage: node bench/w3-child.js <db folder> <spawn time, epoch ms> [message index], compiled
 * first (`built-scripts.ts`), so it runs the package as users do: plain `node`, the package
 * built as `npm run build` ships it (each entry bundled), no TypeScript loader. (`node --import tsx bench/w3-child.ts`
 * works too, but then tsx hooks every module load and the figures are tsx's.)
 * Prints one JSON line with the phases in ms. No static imports, so that the first line runs
 * before anything of the package is loaded. The package's import is split by what loads: its
 * two big dependencies first, alone (`xstate`; `zod`, a peer dependency that the app's tools
 * load anyway), then the package itself (its own modules, `ulid` and the rest).
 */
const firstLine = performance.timeOrigin + performance.now();
const [dir, spawnedAtArg, messageIndexArg] = process.argv.slice(2);
if (!dir || !spawnedAtArg)
  throw new Error('usage: w3-child.js <db folder> <spawn time> [message index]');
const spawnedAt = Number(spawnedAtArg);

const t0 = performance.now();
await import('xstate');
const tXstate = performance.now();
await import('zod');
const tZod = performance.now();
const { LevelSessionStore } = await import('../src/index.js');
const t1 = performance.now();
const { benchAgent, userMessage, W1_SESSION } = await import('./fixtures.js');
const tApp = performance.now();
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
    /** Spawn to the first line of this script (Node's own boot). */
    startupMs: firstLine - spawnedAt,
    /** Importing the package in all: the three parts below. */
    importsMs: t1 - t0,
    xstateMs: tXstate - t0,
    zodMs: tZod - tXstate,
    packageMs: t1 - tZod,
    /** The app: the bench agent's module (its tool, the scripted model of agentstate/testing). */
    appMs: tApp - t1,
    openMs: t2 - tApp,
    /** The message, including the session's first load in this process. */
    messageMs: t3 - t2,
    totalMs: end - spawnedAt,
  })}\n`,
);
