// The benchmark's use of Redis: whether it can serve the Redis cases (and the pid of a local
// server, whose CPU the report counts), whether a server's limiter really used it, and dropping a
// run's keys at the end.
import { Redis } from 'ioredis';

async function withClient<T>(url: string, work: (client: Redis) => Promise<T>): Promise<T> {
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1, connectTimeout: 2000, retryStrategy: () => null });
  client.on('error', () => {}); // reported through the rejected connect or command
  try {
    await client.connect();
    return await work(client);
  } finally {
    client.disconnect();
  }
}

/** Why Redis cannot serve the Redis cases, or its server's pid (when it runs on this machine). */
export async function redisProblem(url: string): Promise<string | { pid: number | undefined }> {
  try {
    const pid = await withClient(url, async (client) => Number(/^process_id:(\d+)/m.exec(await client.info('server'))?.[1]));
    const local = ['127.0.0.1', 'localhost', '::1', '[::1]'].includes(new URL(url).hostname);
    return { pid: local && pid > 0 ? pid : undefined };
  } catch (error) {
    return `Redis at ${url} is not reachable (${(error as Error).message})`;
  }
}

/**
 * Why a server's limiter did not use Redis throughout, or null when it did: it wrote keys under
 * `prefix`, and its log (`log`) never says it fell back to memory.
 */
export async function redisNotUsed(url: string, prefix: string, log: string): Promise<string | null> {
  const keys = await withClient(url, (client) => client.keys(`${prefix}*`)).catch((e: Error) => e);
  const fellBack = /Redis unavailable|Redis unreachable/.test(log);
  if (!(keys instanceof Error) && keys.length > 0 && !fellBack) return null;
  return `${keys instanceof Error ? keys.message : `${keys.length} keys under ${prefix}`}${fellBack ? ', fell back to memory' : ''}`;
}

/** Deletes the keys under `prefix`; nothing to do when Redis is gone. */
export async function dropRedisKeys(url: string, prefix: string): Promise<void> {
  await withClient(url, async (client) => {
    const keys = await client.keys(`${prefix}*`);
    for (let i = 0; i < keys.length; i += 500) await client.del(...keys.slice(i, i + 500));
  }).catch(() => undefined);
}
