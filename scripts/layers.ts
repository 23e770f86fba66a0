/**
 * The layers of `src/`: the one source for the layering rule and the folder map. Seven named
 * layers, lowest first, each listing its folders lowest first with what each holds.
 *
 * The rule (`test/house/layering.test.ts`, with `test/helpers/layering-check.ts`): a folder imports
 * only folders of a lower layer, or folders listed before it in its own layer; type imports
 * count too, and no folders form a cycle. Every folder of `src/` is listed here, once. A
 * sub-folder is a folder of its own (`persistence/kv` is not `persistence`); `.` is the
 * package's entry files (`src/*.ts`).
 *
 * `docs/folders.md` is written from this list by `npm run docs:folders`
 * (`scripts/folder-map.ts`); `test/house/folder-map.test.ts` fails when the page is stale. To add,
 * move or rename a folder: edit its row here, run `npm run docs:folders`.
 */

/** One folder of `src/` (its path from `src/`) and what it holds, in one line. */
export interface LayerFolder {
  readonly folder: string;
  readonly holds: string;
}

/** A named layer: what it is, and its folders lowest first. */
export interface Layer {
  readonly name: string;
  readonly holds: string;
  readonly folders: readonly LayerFolder[];
}

export const LAYERS: readonly Layer[] = [
  {
    name: 'Core',
    holds: 'leaf types and checks every layer may use',
    folders: [
      { folder: 'errors', holds: '`AgentStateError` and every typed error with its stable `code`' },
      {
        folder: 'items',
        holds: 'the conversation items (messages, tool calls and results) and their checks',
      },
      {
        folder: 'validation',
        holds: 'option checks and plain-JSON checks with clear `TypeError`s',
      },
      {
        folder: 'core',
        holds:
          'leaf parts every layer may use: `RunContext`, `Clock`, ids, a time written in a zone, the durability and permission policies',
      },
    ],
  },
  {
    name: 'Machines',
    holds:
      'the pure XState definitions of the session and the run: no I/O, every actor referred to by name, provided through `setup({ actors })` and swapped in tests with `machine.provide()`',
    folders: [
      {
        folder: 'machines/schemas',
        holds:
          "the zod schemas of what the machines leave stored: the run's state, the persisted session snapshot and each journaled step's output, checked on every read",
      },
      {
        folder: 'machines',
        holds: 'the pure XState machines: the session lifecycle and the run execution, their types',
      },
    ],
  },
  {
    name: 'Capabilities',
    holds:
      'what the layers above use to reach the outside world: models, tools and tool sources, context windows, guardrails, telemetry',
    folders: [
      {
        folder: 'models',
        holds:
          'the `Model` and `Embedder` interfaces and their adapters: OpenAI, the AI SDK, the scripted ones; prices',
      },
      { folder: 'tools', holds: '`tool()` with zod and toolkits' },
      { folder: 'context-window', holds: 'what of a history the model sees' },
      { folder: 'guardrails', holds: 'input and output guardrails' },
      { folder: 'mcp', holds: 'MCP servers as toolkits (`agentstate-runtime/mcp`)' },
      { folder: 'telemetry', holds: 'OpenTelemetry spans and metrics, the logger' },
    ],
  },
  {
    name: 'Persistence',
    holds:
      'the `SessionStore` contract and its stores (LevelDB by default, memory, PostgreSQL behind `agentstate-runtime/postgres`), codecs, seals, schema versions and migrations',
    folders: [
      {
        folder: 'persistence',
        holds:
          'the `SessionStore` contract, the record format: keys, schemas, seals, codecs, migrations',
      },
      {
        folder: 'persistence/entries',
        holds:
          "the entries every store writes beside a record, the same in each: the listing entry, history items, the list orders' positions",
      },
      {
        folder: 'persistence/vectors',
        holds:
          "the vectors of memory's similarity search: one scope's vectors in one array, exact search with usearch's native kernels",
      },
      {
        folder: 'persistence/kv/backends',
        holds:
          "the ordered key-value backends under the KV store (LevelDB, memory) and the view of a group's pending writes",
      },
      {
        folder: 'persistence/postgres/notifications',
        holds:
          "the one LISTEN connection the PostgreSQL store's watchers share (decision inbox, saves, cancels), with its linger and loss",
      },
      { folder: 'persistence/kv', holds: 'the key-value stores (LevelDB, memory)' },
      {
        folder: 'persistence/postgres',
        holds: 'the PostgreSQL store (`agentstate-runtime/postgres`)',
      },
    ],
  },
  {
    name: 'Actors',
    holds:
      "the run's steps: actor logic that does I/O, each step journaled before the machine moves on; the memory a run reads and writes across sessions",
    folders: [
      {
        folder: 'memory',
        holds:
          'memory across sessions as runs use it: the agent option, working memory and its tool, recall before a model call, the `remember` tool, the operator handle (`openMemory`)',
      },
      {
        folder: 'actors',
        holds:
          'the actor logic that does I/O: the model step, the tool call, guardrails, the durable timer',
      },
    ],
  },
  {
    name: 'Public API by subsystem',
    holds:
      'the `Agent` facade; sessions, the `SessionRuntime` and their actions; runs, recovery and replays; approvals and scheduling; audit; hosted app machines (workflows)',
    folders: [
      {
        folder: 'runs',
        holds:
          'read models of runs and stored sessions: run state, result, tree, status, leases, checks',
      },
      {
        folder: 'audit',
        holds: 'the audit trail a session action writes and the reader of the audit log',
      },
      {
        folder: 'definition',
        holds:
          'what defines an agent: its options, its binding to one context, its model, handoffs',
      },
      {
        folder: 'session-host',
        holds:
          'a live session actor held in memory: its host, loader, committer, cache, events, sub-agents, and `run-wiring.ts`, the one place that hands each step actor its dependencies',
      },
      {
        folder: 'actions',
        holds:
          "the session actions (send a message, continue a run, cancel, fork, delete, ...), the `Message` a call's checked arguments become, and their checks",
      },
      {
        folder: 'schedules',
        holds:
          'schedules (cron in a time zone, intervals, one time): their rules, the operator handle (`openSchedules`), the model’s tools, and how the one scheduler claims, fires and settles their ticks',
      },
      {
        folder: 'approvals',
        holds:
          'the one loop over the deadline index (approval deadlines, workflow timers, schedules’ ticks), the approval scheduler and decision inbox, and how an agent’s scheduler fires message ticks',
      },
      { folder: 'recovery', holds: 'recovery of crashed runs and replay export' },
      {
        folder: 'sessions',
        holds:
          '`SessionRuntime`: the service that executes actions on stored sessions in two stages, admission (once per message id, busy policy, queue, lease) then execution (load, host, apply, commit), with its options',
      },
      {
        folder: 'agent',
        holds:
          'the `Agent` facade: `run`, `stream`, `resume`, `approve`, sessions, the agent as an XState actor and as a tool',
      },
      {
        folder: 'agent-check',
        holds:
          'the agent check: the run chart specialised to an agent tree, the certificate of what it can reach (tools through which approvals, in-doubt risks, loops), its compare with a baseline, markdown and file check',
      },
      {
        folder: 'workflow-host',
        holds:
          "a hosted app machine's instance held in memory: its host (restore, leases, inbox), durable steps and timers, linked agents, the stored snapshot beside the machine's",
      },
      {
        folder: 'workflows',
        holds:
          "`workflows(machine, options)`: an app's own XState machine hosted like a session (start, send, get, list, cancel, approvals, journal), its options and scheduler",
      },
      {
        folder: 'evals',
        holds:
          'evals from what ran (`agentstate-runtime/evals`): dataset rows from stored runs or by hand (JSONL), seam and whole-run evaluation, scorers, the persisted eval run, chart coverage, compare',
      },
      {
        folder: 'evals/scorers',
        holds:
          'the eval scorers, one per concept: exact output, regex, JSON schema, tool calls, trajectory, budget, an LLM judge, a custom function',
      },
    ],
  },
  {
    name: 'Entry points',
    holds:
      "what a user starts or imports: the package's entry files (one per `package.json` export), the command line, the inspector's server and page, the HTTP handler, the shipped test helpers and store contract",
    folders: [
      {
        folder: 'testing',
        holds: 'test helpers shipped as `agentstate-runtime/testing` (the fake clock)',
      },
      {
        folder: 'crash-exploration',
        holds:
          'crash exploration of a scenario (`exploreCrashes`, shipped in `agentstate-runtime/testing`): the scenario, the effect ledger, simulated processes dying at each durable write of a store, the invariants checked after recovery, the report and replay files',
      },
      {
        folder: 'writer-simulation',
        holds:
          'the many-writers simulation (`simulateWriters`, in `agentstate-runtime/testing`): seeded workers on one store with injected faults, what each write and send did, and the forks, stale writes, lost and doubled messages found',
      },
      {
        folder: 'store-contract',
        holds:
          'the store contract suite shipped in `agentstate-runtime/store`: every case a `SessionStore` must pass, asserted with `node:assert`',
      },
      {
        folder: 'http',
        holds:
          'the chat HTTP handler on web-standard Request/Response (`agentstate-runtime/http`): routes, body checks, the AI SDK UI message stream and AG-UI events, UI history, the Node listener',
      },
      {
        folder: 'a2a',
        holds:
          "agents over the A2A protocol (`agentstate-runtime/a2a`), the only user of `@a2a-js/sdk`: an agent served (the handler and agent card, the request handler over the agent's public calls, tasks read from the store) and a remote agent as a local sub-agent (`remoteAgent`, its model), with the convention for approvals, decisions and usage both keep",
      },
      {
        folder: 'inspect/page/browser',
        holds:
          "the inspector page's base in TypeScript (DOM types, its own `tsconfig.json`): API types and client, page state, DOM and format helpers, filters",
      },
      {
        folder: 'inspect/page/browser/charts',
        holds:
          "the statecharts (the session and run machines laid out at build time in `chart-layouts.ts`, an app's machine in the page by `graph-layout.ts`), the run's path and a workflow's",
      },
      {
        folder: 'inspect/page/browser/trace',
        holds: "a run's steps: timeline, waterfall, what the model saw, time travel",
      },
      {
        folder: 'inspect/page/browser/app',
        holds:
          "the page's views and its entry `main.ts`: the session list, a session, actions, approvals, controls, the live feed, the workflow instances and one instance, a user's memory and schedules",
      },
      {
        folder: 'inspect/page',
        holds:
          "the inspector's page as the server sends it: HTML and style (its script, bundled from `browser/`, is generated outside `src/`: `generated/inspector-page-script.js`, written by `npm run build:page`)",
      },
      {
        folder: 'inspect',
        holds:
          "the inspector: its HTTP server, access checks, reads, actions and live feed; the session list (`/api/sessions`): its query, checked (filters, sort, cursor, page size), and the listing that pages through the store's list order; the app's workflow instances (`/api/workflows`) and a machine's graph; a user's memory across sessions (`/api/memory`); a user's schedules with their last tick's run (`/api/schedules`), paused and resumed from the page",
      },
      {
        folder: 'cli/shared',
        holds:
          'what the commands share: the store they open, output formats, errors and exit codes, help',
      },
      {
        folder: 'cli/commands',
        holds: 'one file per command (`sessions list`, `approve`, `resume`, `inspect`, ...)',
      },
      {
        folder: 'cli',
        holds: 'the command line program: parses a command line and runs its command',
      },
      {
        folder: '.',
        holds:
          'the entry files, one per package export: `index.ts` (`agentstate`), `testing.ts`, `postgres.ts`, `inspect.ts`, `http.ts`, `a2a.ts`, `mcp.ts`, `ai-sdk.ts`, `store.ts` (`agentstate-runtime/store`), and `cli.ts` (the `agentstate` command)',
      },
    ],
  },
];
