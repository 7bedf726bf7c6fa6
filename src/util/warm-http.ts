import net from 'node:net';

/**
 * Node's fetch loads its HTTP client and compiles its parser on the first real request (~80 ms).
 * One request to a throwaway loopback socket pays that while the user is still typing, without
 * sending anything anywhere. A raw socket answers, so Node's HTTP server is never loaded.
 */
export async function warmHttpClient(): Promise<void> {
  const server = net.createServer((socket) => {
    socket.once('data', () => socket.end('HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n'));
    socket.on('error', () => undefined);
  });
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', resolve);
    });
    const address = server.address();
    if (address && typeof address === 'object') {
      const res = await fetch(`http://127.0.0.1:${address.port}/`, { signal: AbortSignal.timeout(2000) });
      await res.arrayBuffer();
    }
  } finally {
    server.close();
  }
}
