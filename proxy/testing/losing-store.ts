// A store that loses acknowledged pets, for the proxy's history test: it stands in front of a correct
// server and, on every list page fetched by a next link, leaves out the page's first pet (the hidden
// flaw of an earlier batch: a cursor that skips one). Everything else passes through unchanged.
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface LosingStore {
  origin: string;
  /** Pets left out so far. */
  readonly lost: number;
  close(): Promise<void>;
}

async function bodyOf(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export async function startLosingStore(upstream: string): Promise<LosingStore> {
  let lost = 0;
  const server = createServer((req, res) => {
    void (async () => {
      const body = await bodyOf(req);
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(req.headers))
        if (typeof value === 'string' && name !== 'host' && name !== 'content-length') headers[name] = value;
      const answer = await fetch(`${upstream}${req.url}`, { method: req.method!, headers, ...(body.length > 0 ? { body: new Uint8Array(body) } : {}) });
      let text = await answer.text();
      if (req.method === 'GET' && req.url?.includes('cursor=') && answer.status === 200) {
        const pets = JSON.parse(text) as unknown[];
        if (pets.length > 0) {
          lost++;
          text = JSON.stringify(pets.slice(1));
        }
      }
      const out: Record<string, string> = {};
      answer.headers.forEach((value, name) => {
        if (name !== 'content-length' && name !== 'content-encoding' && name !== 'transfer-encoding' && name !== 'connection') out[name] = value;
      });
      res.writeHead(answer.status, out).end(text);
    })().catch((error: Error) => res.writeHead(502).end(error.message));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    get lost() {
      return lost;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
