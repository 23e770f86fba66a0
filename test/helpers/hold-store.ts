import { LevelSessionStore } from '../../src/index.js';

/** Child process: opens the LevelDB folder given as argv[2], says so, and holds it until killed. */
const store = await LevelSessionStore.open({ path: process.argv[2] });
console.log('holding');
process.on('SIGTERM', () => {
  void store.close().then(() => process.exit(0));
});
setInterval(() => undefined, 1 << 30);
