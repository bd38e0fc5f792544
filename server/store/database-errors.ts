// The errors a PostgreSQL pet store raises, and how a database is named in them: by its URL with
// the password hidden, plus the schema, so the message tells the operator which database to fix
// without leaking a secret into a log.
import { KitError, UsageError } from '../../lib/errors.ts';

/** The database cannot be reached or refused the store's work (down, wrong host, auth, no such database). */
export class DatabaseUnavailableError extends KitError {
  /** `reason`: what pg said, without the database's address (for answers to clients). */
  constructor(
    readonly database: string,
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super('database_unavailable', `The database ${database} is unavailable: ${reason}.`, options);
  }
}

/** The schema holds a `pets` table (or sequence) the store cannot use. Nothing in it was changed. */
export class IncompatibleSchemaError extends KitError {
  constructor(
    readonly database: string,
    reason: string,
    options?: { cause?: unknown },
  ) {
    super(
      'incompatible_schema',
      `The database ${database} cannot be used: ${reason}. It was left untouched; use another schema (?schema=) or fix it, then start again.`,
      options,
    );
  }
}

export interface DatabaseTarget {
  /** What pg connects with: the URL less the kit's own `schema` parameter. */
  connectionString: string;
  schema: string;
  /** For messages: the URL with its password hidden, and the schema. */
  description: string;
}

const HIDDEN = '***';

/** Splits a postgres:// URL into what pg needs and the schema (`schema` option, else `?schema=`, else public). */
export function parseDatabaseUrl(url: string, schemaOption?: string): DatabaseTarget {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UsageError(`The database URL is not a URL (expected postgres://user:password@host:5432/database).`);
  }
  if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') {
    throw new UsageError(`The database URL must start with postgres:// or postgresql://, not ${parsed.protocol}//.`);
  }
  const schema = schemaOption ?? parsed.searchParams.get('schema') ?? 'public';
  if (schema === '') throw new UsageError('The database schema name is empty.');
  parsed.searchParams.delete('schema');
  const shown = new URL(parsed.href);
  if (shown.password) shown.password = HIDDEN;
  if (shown.searchParams.has('password')) shown.searchParams.set('password', HIDDEN);
  return { connectionString: parsed.href, schema, description: `${shown.href} (schema "${schema}")` };
}

// SQLSTATE classes that mean the server or the login is the trouble, not the data.
const UNAVAILABLE_STATES = /^(08|28|3D|53|57)/;
// What pg says, without a SQLSTATE, when a connection fails, times out or ends.
const CONNECTION_MESSAGES = /connect|terminated|timeout|timed out|closed|ended/i;

/** Whether an error from pg means the database could not be reached or talked to at all. */
export function isConnectionFailure(error: unknown): boolean {
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof code === 'string') return code.startsWith('E') || UNAVAILABLE_STATES.test(code);
  return error instanceof AggregateError || (typeof message === 'string' && CONNECTION_MESSAGES.test(message));
}

/** The reason pg gave, in a form that reads well after "unavailable: ". */
export function reasonOf(error: unknown): string {
  // Node reports a refused connection to every address of a host as an AggregateError without a message.
  if (error instanceof AggregateError && error.errors.length > 0) return [...new Set(error.errors.map(reasonOf))].join('; ');
  const { message, code } = error as { message?: string; code?: string };
  const text = message && message.length > 0 ? message : typeof code === 'string' ? code : String(error);
  return code && !code.startsWith('E') ? `${text} (SQLSTATE ${code})` : text;
}
