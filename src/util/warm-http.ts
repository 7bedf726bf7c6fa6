import http from 'node:http';

/**
 * Node's fetch loads its HTTP client and compiles its parser on the first real request (~80 ms).
 * One request to a throwaway loopback server pays that while the user is still typing, without
 * sending anything anywhere.
 */
export async function warmHttpClient(): Promise<void> {
  const server = http.createServer((_req, res) => res.writeHead(204).end());
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
    server.closeAllConnections();
    server.close();
  }
}
