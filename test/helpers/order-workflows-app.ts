/**
 * The app's module of `agentstate workflows ... --module`: the order flow's host on the folder
 * `$ORDERS_DB` (the clock a minute after the fixture's start), as an app exports it.
 */
import { LevelSessionStore } from '../../src/index.js';
import { FakeClock } from '../../src/testing.js';
import { T0, orderWorkflows } from './order-workflows.js';

const path = process.env['ORDERS_DB'];
if (!path) throw new Error('order-workflows-app: set ORDERS_DB to the folder');

export const orders = orderWorkflows(
  await LevelSessionStore.open({ path }),
  new FakeClock(T0 + 60_000),
).orders;
