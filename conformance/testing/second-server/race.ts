// The gap between reading a counter and writing it back that a server whose counter lives in a
// store has, for the racy builds. By default it is real time on purpose: tests freeze the injected
// clock, and only a real yield to the event loop lets concurrent requests read the same value.
// Tests that must see the race every time inject a gap of their own (`race.gap`).
export const RACE_GAP_MS = 5;

export const raceGap = () => new Promise<void>((resolve) => setTimeout(resolve, RACE_GAP_MS));
