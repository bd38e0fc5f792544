import type { Server, ServerInjectOptions } from '@hapi/hapi';
import { createServer } from '../server.ts';
import type { ServerOptions } from '../options.ts';

export const FREE = 'Bearer test-free-key';
export const ENTERPRISE = 'Bearer test-enterprise-key';

/** A fresh in-memory server for one test; enterprise key by default so limits never interfere. */
export function testServer(options: ServerOptions = {}): Promise<Server> {
  return createServer({ port: 0, logger: false, ...options });
}

export interface Sent {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: any;
}

export async function send(server: Server, options: ServerInjectOptions): Promise<Sent> {
  const headers: Record<string, string | undefined> = { authorization: ENTERPRISE, ...(options.headers as Record<string, string> | undefined) };
  for (const [name, value] of Object.entries(headers)) if (value === undefined) delete headers[name];
  const response = await server.inject({ ...options, headers });
  let body: unknown = response.payload;
  try {
    body = JSON.parse(response.payload);
  } catch {
    // not JSON: keep the text
  }
  return { status: response.statusCode, headers: response.headers, body };
}
