#!/usr/bin/env node
/** The `agentstate` command line (package `bin`). */
import { processIo } from './cli/shared/cli-io.js';
import { runCli } from './cli/main.js';

// The command line says itself when a query reached only the anonymous bucket; Node's own
// warning lines (IsolationWarning) would repeat it with a stack-like prefix.
process.removeAllListeners('warning');
process.on('warning', (warning) => {
  if (warning.name !== 'IsolationWarning') process.stderr.write(`warning: ${warning.message}\n`);
});

void runCli(process.argv.slice(2), processIo()).then((code) => {
  process.exitCode = code;
});
