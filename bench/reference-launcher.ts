// Starts the reference server in a process of its own, exactly as the CLI would (file store,
// one pino line per request to stdout), but with the benchmark's own enterprise key: the
// fixture key's custom limit (100,000/min) would turn a saturating run into a run of 429s.
import { createServer } from '../server/index.ts';
import { announce, onTerminate } from './child-protocol.ts';

export interface ReferenceLaunchConfig {
  dbFile: string;
  apiKey: string;
  redisUrl?: string | undefined;
  redisPrefix: string;
  /** Only for measuring what a component costs (`--reference-options`); empty in a normal run. */
  overrides?: Record<string, unknown>;
}

const raw = process.env.BENCH_REFERENCE_CONFIG;
if (!raw) throw new Error('BENCH_REFERENCE_CONFIG must be set');
const config = JSON.parse(raw) as ReferenceLaunchConfig;

const server = await createServer({
  host: '127.0.0.1',
  port: 0,
  storage: { type: 'file', path: config.dbFile },
  logger: true,
  apiKeys: [{ key: config.apiKey, plan: 'enterprise', limits: { perMinute: 1_000_000_000, perDay: 1_000_000_000_000 } }],
  ...(config.redisUrl ? { redisUrl: config.redisUrl, rateLimit: { redisPrefix: config.redisPrefix } } : {}),
  ...config.overrides,
});
await server.start();
announce(server.info.uri);
onTerminate(() => server.stop({ timeout: 5000 }));
