// The gap between reading a counter and writing it back that a server whose counter lives in a
// store has, for the racy builds. It is real time on purpose: tests freeze the injected clock, and
// only a real yield to the event loop lets concurrent requests read the same value.
export const RACE_GAP_MS = 5;

export const raceGap = () => new Promise<void>((resolve) => setTimeout(resolve, RACE_GAP_MS));
