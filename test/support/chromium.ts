import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

/** Debian's Chromium (`apt-get install chromium`; .ci/run installs it), or another binary named by CHROMIUM_PATH. */
export const chromiumPath = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

/** Headless, no sandbox (CI runs as root), nothing fetched from the network by the browser itself. */
const chromiumArgs = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

/**
 * Launches the machine's Chromium through playwright-core (which downloads no browser); fails
 * at once, saying what to install, when there is none. `purpose` names the test in that message.
 */
export const launchChromium = async (purpose: string): Promise<Browser> => {
  if (!existsSync(chromiumPath)) {
    throw new Error(`${purpose} needs Chromium at ${chromiumPath}: apt-get update && apt-get install -y chromium (Debian), or set CHROMIUM_PATH.`);
  }
  return chromium.launch({ executablePath: chromiumPath, args: chromiumArgs });
};
