// tsc only emits JavaScript. n8n also loads each node's codex file (X.node.json next to
// X.node.js) and the SVG icons from the installed package, so they are copied into dist/
// alongside, keeping their relative paths (the `file:` icon paths are relative).
import { cpSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = join(root, 'dist');

if (process.argv.includes('--clean')) {
	// A file deleted from the sources must not linger in the published package.
	rmSync(dist, { recursive: true, force: true });
	process.exit(0);
}

const isStatic = (file) => /\.(svg|png)$/.test(file) || /\.node\.json$/.test(file);
let copied = 0;
for (const folder of ['icons', 'nodes', 'credentials']) {
	for (const file of readdirSync(join(root, folder), { recursive: true })) {
		if (!isStatic(file)) continue;
		const target = join(dist, folder, file);
		mkdirSync(dirname(target), { recursive: true });
		cpSync(join(root, folder, file), target);
		copied++;
	}
}
console.log(`copied ${copied} icons and codex files into dist/`);
