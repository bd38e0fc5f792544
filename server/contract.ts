// The values the server enforces that the contract states: read from spec/openapi.yaml so that
// the OpenAPI document stays the single source of truth.
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';

export const SPEC_PATH = new URL('../spec/openapi.yaml', import.meta.url);

interface IntegerSchema {
  minimum: number;
  maximum: number;
  default: number;
}

function load() {
  const doc = parse(readFileSync(SPEC_PATH, 'utf8'));
  const petStatuses: string[] = doc.components.schemas.PetStatus.enum;
  const limitParam = doc.paths['/pets'].get.parameters.find((p: { name: string }) => p.name === 'limit');
  const limit: IntegerSchema = limitParam.schema;
  const basePath = new URL(doc.servers.at(-1).url).pathname.replace(/\/$/, '');
  return { petStatuses, limit, basePath, apiVersion: String(doc.info.version) };
}

export const contract = load();
