export { createServer, EXPOSED_HEADERS } from './server.ts';
export type { ServerOptions, LoggerOptions } from './options.ts';
export { ManualClock, SystemClock, type Clock } from './clock.ts';
export type { ApiKey, ApiKeyRecord } from './keys.ts';
export type { Pet, NewPet, PetStatus, PlanLimits } from './types.ts';
export type { PetStore, StorageOptions } from './store/pet-store.ts';
export { CorruptDatabaseError } from './store/durable-json-file.ts';
export { ERRORS, type ErrorBody, type ErrorCode } from './errors.ts';
