// Headless Chromium for the tests that render a page or a picture: where it is, whether it is there
// (absent, the test says SKIP and why; under CI it must be there), how it is started (the flags a
// machine without a network needs) and where screenshots go to be looked at.
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_BIN ?? '/usr/bin/chromium';
export const SCREENSHOTS = process.env.SCREENSHOT_DIR ?? join(tmpdir(), 'adoption-kit-screenshots');
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
  '--disable-sync',
];

/** Whether Chromium is there; `what` names what is not rendered without it (printed as the SKIP reason). */
export function chromiumAvailable(what: string): boolean {
  const available = existsSync(CHROMIUM);
  if (!available && process.env.CI === 'true') throw new Error(`${CHROMIUM} is missing; CI installs Debian's chromium`);
  if (!available) process.stdout.write(`SKIP: ${CHROMIUM} is missing, so ${what} (apt-get install chromium)\n`);
  return available;
}

/** A headless Chromium; the screenshot folder exists once it is started. */
export async function launchChromium(): Promise<Browser> {
  const { chromium } = await import('playwright-core');
  await mkdir(SCREENSHOTS, { recursive: true });
  return chromium.launch({ executablePath: CHROMIUM, args: ARGS });
}
