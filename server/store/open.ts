// The one place a storage choice becomes a store: the server asks for a PetStore and never needs
// to know which kind it got.
import type { Pet } from '../types.ts';
import { LowPetStore } from './low-pet-store.ts';
import type { PetStore, StorageOptions, StoreOptions } from './pet-store.ts';
import { PostgresPetStore } from './postgres-store.ts';

/**
 * Seeds with `seed` when the store is new (no file yet, a schema without the table, always in memory).
 * Rejects with the store's own error when it cannot be used; `options.timeoutMs` bounds each PostgreSQL query.
 */
export function openPetStore(storage: StorageOptions, seed: readonly Pet[], options: StoreOptions & { timeoutMs?: number } = {}): Promise<PetStore> {
  switch (storage.type) {
    case 'memory':
    case 'file':
      return LowPetStore.open(storage, seed, options);
    case 'postgres':
      return PostgresPetStore.open(
        { url: storage.url, schema: storage.schema, queryTimeoutMs: options.timeoutMs, connectTimeoutMs: options.timeoutMs, log: options.log },
        seed,
      );
  }
}
