import type { DecisionInbox } from './decision-inbox.js';
import type { MemoryStore } from './memory-store.js';
import type { MessageInbox } from './message-inbox.js';
import type { ScheduleStore } from './schedule-store.js';
import type { SessionLeases } from './session-leases.js';
import type { SessionStore, StoreSupports } from './session-store.js';
import type { SessionWatches } from './session-watches.js';

/**
 * The SessionStore contract's parts, in one place: the methods every store has, and each
 * optional capability with the methods that make it. The runtime reads it to decide what a store
 * can do (`storeSupports`), the exported suite (`storeContract`) to run exactly the required
 * tests plus those of each capability a store claims, and `STORE-CONTRACT.md`'s table is checked
 * against it. A store says which capabilities it has in its `supports` manifest.
 */
export const STORE_CONTRACT = {
  required: [
    'create',
    'load',
    'loadForUpdate',
    'save',
    'readHistory',
    'readJournal',
    'readRunJournal',
    'list',
    'userUsage',
    'purge',
    'readAudit',
    'stats',
    'close',
  ],
  capabilities: {
    leases: {
      methods: ['acquireLease', 'renewLease', 'releaseLease', 'expiredLeases'],
      needs: [],
      what: 'one writer per session, fenced by token; what `recover()` resumes (`SessionLeases`)',
    },
    leaseReads: {
      methods: ['leaseOf'],
      needs: ['leases'],
      what: 'reads a session’s lease as held, so `getSession` tells a crashed run from a running one',
    },
    deadlineIndex: {
      methods: ['dueApprovals', 'dropStaleDeadline'],
      needs: [],
      what: 'the approval-deadline index the scheduler (`startScheduler`) reads',
    },
    decisionInbox: {
      methods: ['submitDecisions', 'submittedDecisions', 'dropDecisions', 'watchDecisions'],
      needs: [],
      what: 'approval decisions submitted in one process, applied by another (`DecisionInbox`)',
    },
    messageInbox: {
      methods: ['queueMessage', 'queuedMessages', 'dropQueuedMessage'],
      needs: [],
      what: 'messages sent while a run is busy (`whileBusy` `queue` or `steer`, `MessageInbox`)',
    },
    queuedSessions: {
      methods: ['queuedSessions'],
      needs: ['messageInbox'],
      what: 'lists sessions whose inbox holds a message, where `recover()` looks for them',
    },
    sessionWatches: {
      methods: ['watchSession'],
      needs: [],
      what: 'tells of a session’s saves, so `agent.attach` follows a run without polling',
    },
    memory: {
      methods: [
        'putMemories',
        'searchMemories',
        'listMemories',
        'getMemories',
        'deleteMemories',
        'readWorkingMemory',
        'writeWorkingMemory',
        'forgetMemories',
        'memoryResources',
      ],
      needs: [],
      what: 'memory across sessions: memories with vectors searched by similarity, working memory per scope, erased to the byte (`MemoryStore`)',
    },
    schedules: {
      methods: [
        'createSchedule',
        'getSchedule',
        'listSchedules',
        'saveSchedule',
        'deleteSchedule',
        'dueSchedules',
      ],
      needs: [],
      what: 'schedules (cron, interval, one time) with their next-tick index, each write versioned and audited (`ScheduleStore`)',
    },
  },
} as const satisfies {
  required: readonly (keyof SessionStore)[];
  capabilities: {
    readonly [C in keyof StoreSupports]-?: {
      methods: readonly (keyof SessionStore)[];
      needs: readonly (keyof StoreSupports)[];
      what: string;
    };
  };
};

/** An optional part of the store contract (a key of `STORE_CONTRACT.capabilities`). */
export type StoreCapability = keyof StoreSupports;

/** The capabilities in the contract's order. */
export const STORE_CAPABILITIES = Object.keys(STORE_CONTRACT.capabilities) as StoreCapability[];

export type { StoreSupports };

/** A manifest read whole: every capability, claimed or not. */
export type StoreManifest = { readonly [C in StoreCapability]: boolean };

type RequiredMethod = (typeof STORE_CONTRACT.required)[number];
type OptionalMethod = (typeof STORE_CONTRACT.capabilities)[StoreCapability]['methods'][number];
type RequiredKeys<T> = {
  [K in keyof T]-?: object extends Pick<T, K> ? never : K;
}[keyof T];
/** The properties of a store that are not methods of a part. */
type Properties = 'supports' | 'leasesInProcess';
/** Compiles only while `STORE_CONTRACT` names every method of `SessionStore` as it is typed. */
export type ContractCoversStore = [
  Exclude<keyof SessionStore, RequiredMethod | OptionalMethod | Properties>,
  Exclude<RequiredKeys<SessionStore>, RequiredMethod>,
  Exclude<RequiredMethod, RequiredKeys<SessionStore>>,
  Extract<OptionalMethod, RequiredKeys<SessionStore>>,
] extends [never, never, never, never]
  ? true
  : never;
const covered: ContractCoversStore = true;
void covered;

/** Whether `store` keeps leases (its `supports` manifest claims `leases`). */
export function hasLeases(store: SessionStore): store is SessionStore & SessionLeases {
  return supportsCapability(store, 'leases');
}

/** Whether `store` keeps a decision inbox (its manifest claims `decisionInbox`). */
export function hasDecisionInbox(store: SessionStore): store is SessionStore & DecisionInbox {
  return supportsCapability(store, 'decisionInbox');
}

/** Whether `store` keeps a message inbox (its manifest claims `messageInbox`). */
export function hasMessageInbox(store: SessionStore): store is SessionStore & MessageInbox {
  return supportsCapability(store, 'messageInbox');
}

/** Whether `store` keeps memory across sessions (its manifest claims `memory`). */
export function hasMemory(store: SessionStore): store is SessionStore & MemoryStore {
  return supportsCapability(store, 'memory');
}

/** Whether `store` keeps schedules (its manifest claims `schedules`). */
export function hasSchedules(store: SessionStore): store is SessionStore & ScheduleStore {
  return supportsCapability(store, 'schedules');
}

/** Whether `store` can tell when a session is saved (its manifest claims `sessionWatches`). */
export function canWatchSessions(store: SessionStore): store is SessionStore & SessionWatches {
  return supportsCapability(store, 'sessionWatches');
}

const has = (store: object, name: string): boolean =>
  typeof (store as Record<string, unknown>)[name] === 'function';

/** The capabilities whose methods `store` has, all of them. */
function methodsPresent(store: object): StoreManifest {
  const manifest = {} as Record<StoreCapability, boolean>;
  for (const capability of STORE_CAPABILITIES) {
    manifest[capability] = STORE_CONTRACT.capabilities[capability].methods.every((name) =>
      has(store, name),
    );
  }
  return manifest;
}

/**
 * What `store` can do, from its `supports` manifest. A store written before manifests (no
 * `supports`) is read by the methods it has, as the runtime did then.
 */
export function storeSupports(store: SessionStore): StoreManifest {
  const declared = store.supports;
  return declared === undefined ? methodsPresent(store) : wholeManifest(declared);
}

/** `supports` with every capability named: `true` for those it claims, `false` for the rest. */
export function wholeManifest(supports: StoreSupports): StoreManifest {
  const manifest = {} as Record<StoreCapability, boolean>;
  for (const capability of STORE_CAPABILITIES) manifest[capability] = supports[capability] === true;
  return manifest;
}

/**
 * Checks `store`'s manifest against what it has, when a runtime or a suite is handed it: a
 * claimed capability without all its methods (or without one it needs), a capability whose
 * methods are all there but not claimed, an unknown name: a `TypeError` naming them (`call`:
 * where the store was handed over). A store without `supports` is not checked (see
 * `storeSupports`).
 */
export function checkStoreSupports(store: SessionStore, call = 'store'): void {
  const declared: unknown = store.supports;
  if (declared === undefined) return;
  const name = store.constructor?.name ?? 'the store';
  const problem = (text: string) => new TypeError(`${call}: ${name}'s supports manifest ${text}`);
  if (typeof declared !== 'object' || declared === null) {
    throw problem('must be an object of capabilities (true or false each)');
  }
  const unknown = Object.keys(declared).filter((key) => !(key in STORE_CONTRACT.capabilities));
  if (unknown.length > 0) {
    throw problem(
      `names unknown capabilities: ${unknown.join(', ')} (known: ${STORE_CAPABILITIES.join(', ')})`,
    );
  }
  const claimed = storeSupports(store);
  for (const capability of STORE_CAPABILITIES) {
    const { methods, needs } = STORE_CONTRACT.capabilities[capability];
    const missing = methods.filter((method) => !has(store, method));
    if (claimed[capability]) {
      if (missing.length > 0) {
        throw problem(`claims '${capability}' but the store lacks ${missing.join(', ')}`);
      }
      const unmet = needs.filter((need) => !claimed[need]);
      if (unmet.length > 0) {
        throw problem(`claims '${capability}', which needs '${unmet.join("', '")}' claimed too`);
      }
    } else if (missing.length === 0) {
      throw problem(`does not claim '${capability}' but the store has ${methods.join(', ')}`);
    }
  }
}

/** What an object must have to pass for a `SessionStore` where it is handed over. */
export const SESSION_STORE_METHODS: readonly (keyof SessionStore)[] = STORE_CONTRACT.required;

/** The methods of `capability`, as a store that has it has them. */
export type CapabilityMethods<C extends StoreCapability> = Pick<
  Required<SessionStore>,
  (typeof STORE_CONTRACT.capabilities)[C]['methods'][number]
>;

/**
 * Whether `store` has `capability`, by its manifest (`storeSupports`): what the runtime asks
 * before it calls an optional method.
 */
export function supportsCapability<C extends StoreCapability>(
  store: SessionStore,
  capability: C,
): store is SessionStore & CapabilityMethods<C> {
  const declared = store.supports;
  if (declared !== undefined) return declared[capability] === true;
  return STORE_CONTRACT.capabilities[capability].methods.every((name) => has(store, name));
}

/** Checks the `store` option of a call's `options` by its manifest (`checkStoreSupports`). */
export function checkStoreOption(call: string, options: unknown): void {
  if (typeof options !== 'object' || options === null) return;
  const store = (options as { store?: unknown }).store;
  if (typeof store !== 'object' || store === null) return;
  checkStoreSupports(store as SessionStore, `${call}: option "store"`);
}
