/**
 * A capacity search as a self-contained SVG: achieved rate and p95/p99 per offered rate, the knee marked.
 * @param {Capacity} capacity
 * @param {SvgOptions} [options]
 * @returns {string}
 */
export function capacitySvg(capacity: Capacity, options?: SvgOptions): string;
export type CapacityRow = {
    rate: number;
    achieved: number;
    p95: number;
    p99: number;
    ok: boolean;
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
    title?: string;
};
export type SvgOptions = {
    width?: number;
    height?: number;
};
