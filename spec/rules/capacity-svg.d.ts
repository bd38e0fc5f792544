/**
 * What bound a search, in words: capacity.js's report line `bound found: ...` and the picture's heading.
 * @param {Bound | null | undefined} bound
 * @param {number | null} held the highest rate that held
 * @param {number | null} broke the first rate that broke
 * @param {number} maxRate the highest rate of the run
 * @returns {string}
 */
export function boundText(bound: Bound | null | undefined, held: number | null, broke: number | null, maxRate: number): string;
/**
 * A capacity search as a self-contained SVG: achieved rate, request time, p95 and p99 per offered
 * rate, the knee marked, the bound found in the heading.
 * @param {Capacity} capacity
 * @param {SvgOptions} [options]
 * @returns {string}
 */
export function capacitySvg(capacity: Capacity, options?: SvgOptions): string;
export type Bound = "server" | "key" | "generator";
export type CapacityRow = {
    rate: number;
    achieved: number;
    p95: number;
    p99: number;
    ok: boolean;
    requestMs?: number | null;
    name?: string;
    why?: string;
};
export type Capacity = {
    rows: CapacityRow[];
    held?: {
        rate: number;
    } | number | null;
    broke?: {
        rate: number;
    } | number | null;
    bound?: Bound | null;
    title?: string;
};
export type SvgOptions = {
    width?: number;
    height?: number;
};
