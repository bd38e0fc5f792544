// The phases --phases chooses from. They sit below the checks because a check may need one (Need),
// and below the options, whose --phases takes them.

/** The generated phases, in the order they run. */
export const GENERATED_PHASES = ['examples', 'coverage', 'fuzzing', 'stateful'] as const;
export type GeneratedPhase = (typeof GENERATED_PHASES)[number];
/** What --phases chooses from: the generated phases, concurrency (which runs after the rate limits) and the model phase (last). */
export const OPTIONAL_PHASES = [...GENERATED_PHASES, 'concurrency', 'model'] as const;
export type OptionalPhase = (typeof OPTIONAL_PHASES)[number];
