#!/usr/bin/env node
// Committed rather than built: npm links a package's bins at install time and silently skips
// a target that does not exist yet, which dist/cli.js never does on a fresh clone.
try {
	require.resolve('../dist/cli.js');
} catch {
	process.stderr.write('lms-server: not built yet; run `npm run build` at the repository root first.\n');
	process.exit(1);
}
require('../dist/cli.js');
