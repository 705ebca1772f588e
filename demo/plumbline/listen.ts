// One way PLUMBLINE's servers (the web app and the green screen) start listening and name their address.
import type { AddressInfo, Server } from 'node:net';

/** Listens on host:port (0 picks a free port); resolves with the port taken and `host:port` for a URL. */
export async function listenOn(server: Server, port: number, host: string): Promise<{ port: number; authority: string }> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const taken = (server.address() as AddressInfo).port;
  return { port: taken, authority: `${host.includes(':') ? `[${host}]` : host}:${taken}` };
}
