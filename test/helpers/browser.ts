import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';

/**
 * The browser tests drive Debian's Chromium (`apt-get install -y chromium`, done by .ci/run)
 * through playwright-core. They never download a browser of their own, and they never skip:
 * a missing Chromium is a failure that says how to fix it.
 */
const CHROMIUM_PATH = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

/** Screenshots taken by tests: kept as CI artifacts, ignored by git. */
const ARTIFACTS_DIR = join(__dirname, '..', '..', 'artifacts');

const CHROMIUM_ARGS = [
	'--headless',
	'--no-sandbox',
	'--disable-gpu',
	'--disable-background-networking',
	'--disable-component-update',
	'--disable-sync',
	'--no-first-run',
	'--disable-quic',
];

export async function launchBrowser(): Promise<Browser> {
	if (!existsSync(CHROMIUM_PATH)) {
		throw new Error(
			`Chromium is not installed at ${CHROMIUM_PATH}. Install it with "apt-get install -y chromium" ` +
				'(or set CHROMIUM_PATH); the browser tests never download a browser themselves.',
		);
	}
	return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_ARGS, timeout: 60_000 });
}

/** `artifacts/<name>.png`, creating the folder on first use. */
export function artifactPath(name: string): string {
	mkdirSync(ARTIFACTS_DIR, { recursive: true });
	return join(ARTIFACTS_DIR, `${name}.png`);
}
