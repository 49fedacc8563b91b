// Copies what tsc does not: the settings pages' templates and static assets, next to the
// compiled code that loads them (dist/settings/views, dist/settings/assets).
const { cpSync, rmSync } = require('node:fs');
const { join } = require('node:path');

const root = join(__dirname, '..');
for (const dir of ['settings/views', 'settings/assets']) {
	const to = join(root, 'dist', dir);
	rmSync(to, { recursive: true, force: true });
	cpSync(join(root, 'src', dir), to, { recursive: true });
}
