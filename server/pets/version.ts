// The pets' version a request saw on its limiter round trip, before its handler ran: set by the
// limiter (rate-limit/limiter.ts), read by the pet routes, so that a shared store may answer from its cache
// (store/pet-cache.ts). Absent when the limiter did not ask Redis.
import type { Request } from '@hapi/hapi';
import type { PetsVersion } from '../store/pet-cache.ts';

declare module '@hapi/hapi' {
  interface PluginsStates {
    'pets-version'?: PetsVersion;
  }
}

export const petsVersionOf = (request: Request): PetsVersion | undefined => request.plugins['pets-version'];

export function notePetsVersion(request: Request, seen: PetsVersion | undefined): void {
  if (seen) request.plugins['pets-version'] = seen;
}
