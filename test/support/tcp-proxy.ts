import { createServer, connect, type Server, type Socket } from 'node:net';

/**
 * A TCP forwarder to a server, on an ephemeral port of loopback: `cut()` closes every connection through it
 * and refuses new ones, as a network partition or a crashed server would look to a client; `heal()`
 * accepts connections again on the same port.
 */
export const startTcpProxy = async (target: { host: string; port: number }) => {
  const sockets = new Set<Socket>();
  let server: Server;
  let port = 0;
  const listen = () =>
    new Promise<void>((resolve) => {
      server = createServer((client) => {
        const upstream = connect(target.port, target.host);
        for (const socket of [client, upstream]) {
          sockets.add(socket);
          socket.on('close', () => sockets.delete(socket));
          socket.on('error', () => socket.destroy());
        }
        client.pipe(upstream).pipe(client);
        client.on('close', () => upstream.destroy());
        upstream.on('close', () => client.destroy());
      });
      server.listen(port, '127.0.0.1', () => {
        port = (server.address() as { port: number }).port;
        resolve();
      });
    });
  await listen();
  const close = () =>
    new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    });
  return {
    get port() {
      return port;
    },
    cut: close,
    heal: listen,
    close,
  };
};
