import type { Plugin, Request, ResponseToolkit } from '@hapi/hapi';
import { apiError } from '../errors.ts';
import type { ApiKey, KeyRing } from '../keys.ts';

export const AUTH_STRATEGY = 'api-key';

export interface AuthOptions {
  keys: KeyRing;
  /** The realm named in WWW-Authenticate challenges. */
  realm: string;
}

const BEARER = /^Bearer(?:\s+(.*))?$/i;

/**
 * The token of an `Authorization: Bearer <token>` header: `''` when the token is empty, undefined
 * when there is no header or it uses another scheme. The scheme name is case-insensitive (RFC 7235).
 */
export function bearerToken(header: unknown): string | undefined {
  if (typeof header !== 'string') return undefined;
  const match = BEARER.exec(header.trim());
  return match ? (match[1] ?? '').trim() : undefined;
}

/** The API key a request authenticated with, if it did. */
export function apiKeyOf(request: Request): ApiKey | undefined {
  // Only this strategy's credentials are API keys (the admin API authenticates its own way).
  return request.auth.isAuthenticated && request.auth.strategy === AUTH_STRATEGY ? (request.auth.credentials as unknown as ApiKey) : undefined;
}

/**
 * Bearer API keys (RFC 6750): `Authorization: Bearer <key>`, the default strategy of every route.
 * A missing, malformed or unknown key is a 401 with an Error body and a `WWW-Authenticate: Bearer`
 * challenge; a malformed or unknown one also says `error="invalid_token"`.
 */
export const authPlugin: Plugin<AuthOptions> = {
  name: 'auth',
  version: '1.0.0',
  register(server, { keys, realm }) {
    const challenge = (error?: string) => ({
      'WWW-Authenticate': error ? `Bearer realm="${realm}", error="${error}"` : `Bearer realm="${realm}"`,
    });

    server.auth.scheme('bearer-api-key', () => ({
      authenticate(request: Request, h: ResponseToolkit) {
        const header = request.headers.authorization as string | undefined;
        const token = bearerToken(header);
        if (token === undefined) {
          const message =
            header === undefined
              ? 'An API key is required: send "Authorization: Bearer <API_KEY>".'
              : 'The Authorization header must use the Bearer scheme: "Authorization: Bearer <API_KEY>".';
          throw apiError('missing_api_key', message, challenge());
        }
        const apiKey = token === '' ? undefined : keys.lookup(token);
        if (!apiKey) {
          const message = token === '' ? 'The bearer token is empty.' : 'The API key is not valid.';
          throw apiError('invalid_api_key', message, challenge('invalid_token'));
        }
        return h.authenticated({ credentials: apiKey as unknown as Record<string, unknown> });
      },
    }));
    server.auth.strategy(AUTH_STRATEGY, 'bearer-api-key');
    server.auth.default(AUTH_STRATEGY);
  },
};
