import { MemorySessionStore } from '../../src/persistence/kv/memory-session-store.js';
import { describeRuntimeLeases } from '../helpers/runtime-leases.js';
import { TempStores } from '../helpers/temp-store.js';

describeRuntimeLeases('MemorySessionStore', async (clock) => {
  const store = new MemorySessionStore({ clock });
  return { store, cleanup: () => store.close() };
});

const temps = new TempStores();
describeRuntimeLeases('LevelSessionStore', async (clock) => {
  const { store } = await temps.open({ clock });
  return { store, cleanup: () => temps.cleanupAll() };
});
