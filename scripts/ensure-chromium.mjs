// The browser tests drive Debian's Chromium. On a fresh Debian machine where we are root, install
// it rather than fail; anywhere else, say exactly what is missing. Never download a browser build
// of its own (`npx playwright install`): only the distribution's package is used.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

// CHROMIUM_PATH points the browser tests at another Chromium build (CI on GitHub's runners).
const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

if (!existsSync(CHROMIUM)) {
	const canInstall = process.getuid?.() === 0 && existsSync('/usr/bin/apt-get');
	if (!canInstall) {
		console.error(`The browser tests need Chromium at ${CHROMIUM}. Install it (Debian: apt-get install -y chromium) and run npm test again.`);
		process.exit(1);
	}
	console.error(`Chromium is missing: installing Debian's chromium package for the browser tests…`);
	const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
	execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
	execFileSync('apt-get', ['install', '-y', '-qq', 'chromium'], { stdio: 'inherit', env });
}
