// The pets as the reference server handles them: the contract's types (spec/contract-types.ts,
// generated from the description), with the one thing the server adds to them.
import type { Pet as DescribedPet, PetStatus } from '../spec/contract-types.ts';

export type { NewPet, PetStatus, PlanLimits } from '../spec/contract-types.ts';

/**
 * A pet as the server stores and sends it. The contract leaves `status` optional in a response;
 * this server always has one, since a pet created without it gets the default (pets/service.ts).
 */
export interface Pet extends DescribedPet {
  status: PetStatus;
}
