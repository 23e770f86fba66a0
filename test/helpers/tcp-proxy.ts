import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy on 127.0.0.1 in front of a server, for a network partition: `freeze` stops
 * forwarding both ways without closing a socket, as a link that drops packets (not one that
 * refuses them). Frozen, it reads and drops what comes and answers no goodbye (a FIN is not
 * returned: its sockets stay half open), so a peer waiting for one waits for ever.
 */
export class TcpProxy {
  /** Bytes read and dropped since `freeze`. */
  dropped = 0;

  private constructor(
    private readonly server: Server,
    private readonly sockets: Set<Socket>,
    readonly port: number,
  ) {}

  /** Listens on a free port of 127.0.0.1, forwarding each connection to `target`. */
  static async start(target: { host: string; port: number }): Promise<TcpProxy> {
    const sockets = new Set<Socket>();
    const server = createServer({ allowHalfOpen: true }, (inbound) => {
      const outbound = connect({ ...target, allowHalfOpen: true });
      for (const socket of [inbound, outbound]) {
        sockets.add(socket);
        socket.on('error', () => socket.destroy());
        socket.on('close', () => sockets.delete(socket));
      }
      inbound.pipe(outbound);
      outbound.pipe(inbound);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('no TCP address');
    return new TcpProxy(server, sockets, address.port);
  }

  /** Stops forwarding, both ways, for good: what comes is read and dropped, nothing answers. */
  freeze(): void {
    for (const socket of this.sockets) {
      socket.unpipe();
      socket.on('data', (chunk: Buffer) => (this.dropped += chunk.length));
      socket.resume(); // unpiped, it was paused
    }
  }

  /** Destroys every socket and stops listening. */
  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
