// What a live check is: it judges one exchange on its own, with nothing but the contract, so conform
// applies it to every exchange of its run and the proxy to live traffic.
import type { CheckDef, Profile } from '../check-def.ts';
import type { Contract } from '../contract.ts';
import type { Exchange } from '../exchange.ts';
import type { CheckLedger } from '../ledger.ts';

/** What judging one exchange on its own needs: the contract, the ledger and the profile. */
export interface InspectContext {
  ledger: CheckLedger;
  contract: Contract;
  options: { profile: Profile };
}

export interface LiveChecks {
  name: string;
  checks: readonly CheckDef[];
  inspect: (exchange: Exchange, ctx: InspectContext) => void;
}
