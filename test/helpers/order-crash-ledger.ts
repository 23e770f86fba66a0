import {
  appendFileSync,
  existsSync,
  linkSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import type { OrderWorld, Payment } from '../../examples/order-flow.js';

/**
 * The outside world of the order flow for the crash test, kept in a folder every process
 * shares: each attempt of a step appends `<step> <order> <pid>` to `attempts.log`; each effect
 * is a file `effects/<key>` (the provider's own record, keyed by the step's idempotency key,
 * holding the step, the order and the value), so an effect happens once however many attempts
 * bring the same key (two files for one order: a retry came with another key). `checkpoint` is called before and after each effect, where the
 * crash test may kill the process (after the effect, before the step's outcome is journaled: a
 * step in doubt).
 */
export function ledgerWorld(
  folder: string,
  checkpoint: (label: string) => Promise<void>,
): OrderWorld {
  const effects = join(folder, 'effects');
  mkdirSync(effects, { recursive: true });
  const attempt = (step: string, orderId: string): void =>
    appendFileSync(join(folder, 'attempts.log'), `${step} ${orderId} ${process.pid}\n`);
  /**
   * The effect of `key`: made now (once), or the one made by an earlier attempt. Made whole or
   * not at all, as a provider's record is: written aside, then linked to its name (which fails
   * when the name exists), so a kill in between leaves no half-written effect.
   */
  const effect = (step: string, orderId: string, key: string, value: string): string => {
    const file = join(effects, key.replace(/[^\w-]/g, '_'));
    const aside = `${file}.${process.pid}.aside`;
    writeFileSync(aside, JSON.stringify({ step, orderId, value }));
    try {
      linkSync(aside, file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    } finally {
      unlinkSync(aside);
    }
    return (JSON.parse(readFileSync(file, 'utf8')) as { value: string }).value;
  };
  return {
    checkOrder: async ({ orderId, amountUsd }) => {
      await checkpoint(`begin validate ${orderId}`);
      attempt('validate', orderId);
      await checkpoint(`end validate ${orderId}`);
      return { ok: amountUsd <= 500, reason: `order ${orderId} is paid and damaged` };
    },
    refund: async ({ idempotencyKey, orderId, amountUsd }) => {
      await checkpoint(`begin pay ${orderId}`);
      attempt('pay', orderId);
      // The provider's own confirmation (not the key, which numbers the instance's journal).
      const payment: Payment = { confirmation: `tx-${orderId}`, amountUsd };
      const made = effect('pay', orderId, idempotencyKey, JSON.stringify(payment));
      await checkpoint(`end pay ${orderId}`);
      return JSON.parse(made) as Payment;
    },
    openTicket: async ({ idempotencyKey, orderId }) => {
      await checkpoint(`begin ticket ${orderId}`);
      attempt('ticket', orderId);
      const ticket = effect('ticket', orderId, idempotencyKey, `T-${orderId}`);
      await checkpoint(`end ticket ${orderId}`);
      return ticket;
    },
  };
}

/**
 * What the ledger holds: each attempt of a step (`<step> <order>`) and each effect made
 * (`<step> <order>`), in order.
 */
export function readLedger(folder: string): { attempts: string[]; effects: string[] } {
  const lines = (file: string): string[] =>
    existsSync(join(folder, file))
      ? readFileSync(join(folder, file), 'utf8').split('\n').filter(Boolean)
      : [];
  return {
    attempts: lines('attempts.log').map((line) => line.split(' ').slice(0, 2).join(' ')),
    effects: readdirSync(join(folder, 'effects'))
      .filter((name) => !name.endsWith('.aside'))
      .map((name) => {
        const made = readFileSync(join(folder, 'effects', name), 'utf8');
        const { step, orderId } = JSON.parse(made) as { step: string; orderId: string };
        return `${step} ${orderId}`;
      }),
  };
}
