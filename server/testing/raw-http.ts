// One HTTP/1.1 exchange over a real socket, for what server.inject cannot send: bad framing,
// duplicate headers, chunked bodies, the asterisk-form target, stalled clients.
import { connect } from 'node:net';

export interface Raw {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** Milliseconds until the server closed the connection. */
  closedAfterMs: number;
}

/**
 * Writes `chunks` on a fresh connection and reads until the server closes it (at most `limitMs`).
 * A connection the server resets rejects, with what had arrived.
 */
export function exchange(port: number, chunks: Array<string | Buffer>, limitMs = 5000): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = connect(port, '127.0.0.1', () => {
      for (const chunk of chunks) socket.write(chunk);
    });
    const parts: Buffer[] = [];
    socket.on('data', (d: Buffer) => parts.push(d));
    socket.on('error', (error) => reject(new Error(`${error.message} after: ${Buffer.concat(parts).toString().slice(0, 200)}`)));
    const timer = setTimeout(() => socket.destroy(new Error(`still open after ${limitMs} ms: ${Buffer.concat(parts).toString().slice(0, 200)}`)), limitMs);
    socket.on('close', (hadError) => {
      clearTimeout(timer);
      if (hadError) return;
      const text = Buffer.concat(parts).toString('utf8');
      const [head = '', body = ''] = text.split('\r\n\r\n');
      const [statusLine = '', ...lines] = head.split('\r\n');
      const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body, closedAfterMs: Date.now() - started });
    });
  });
}
