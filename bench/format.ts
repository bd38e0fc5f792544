// How the benchmark writes its figures: counts with thousands separators, ratios cut (not rounded).
// Apart from figures.ts so that settle.ts, which figures.ts uses, can word its reasons the same way.

export const formatCount = (n: number) => Math.round(n).toLocaleString('en-US');
/** A ratio, cut (not rounded) to `digits`, so that a value shown as meeting a target does meet it. */
// The epsilon keeps 0.29 (28.999... hundredths in binary) from being cut to 0.28.
export const formatRatio = (n: number, digits = 2) => `${(Math.floor(n * 10 ** digits + 1e-9) / 10 ** digits).toFixed(digits)}x`;
