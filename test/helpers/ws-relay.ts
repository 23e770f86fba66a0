import { WebSocket, WebSocketServer } from 'ws';

/**
 * A WebSocket relay on 127.0.0.1 (what `@statelyai/inspect`'s server does, without its page):
 * each text frame one client sends goes to every other client.
 */
export interface WsRelay {
  url: string;
  close(): Promise<void>;
}

export async function startWsRelay(): Promise<WsRelay> {
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  server.on('connection', (socket) => {
    socket.on('message', (data, isBinary) => {
      for (const other of server.clients) {
        if (other !== socket && other.readyState === WebSocket.OPEN) {
          other.send(data, { binary: isBinary });
        }
      }
    });
  });
  const { port } = server.address() as { port: number };
  return {
    url: `ws://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const client of server.clients) client.terminate();
        server.close(() => resolve());
      }),
  };
}

/** A client of the relay that collects the JSON frames it receives. */
export async function relayListener(url: string): Promise<{
  frames: Record<string, unknown>[];
  until(test: (frames: Record<string, unknown>[]) => boolean): Promise<void>;
  close(): void;
}> {
  const socket = new WebSocket(url);
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  const frames: Record<string, unknown>[] = [];
  const waiters = new Set<() => void>();
  socket.on('message', (data) => {
    frames.push(JSON.parse((data as Buffer).toString('utf8')) as Record<string, unknown>);
    for (const w of [...waiters]) w();
  });
  return {
    frames,
    until: (test) =>
      new Promise<void>((resolve) => {
        const check = () => {
          if (!test(frames)) return;
          waiters.delete(check);
          resolve();
        };
        waiters.add(check);
        check();
      }),
    close: () => socket.close(),
  };
}
