import { execFile, spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
export const ROOT = join(__dirname, '..', '..');

export interface Toolchain {
	/** The cache folder scripts/n8n/install.sh fills: node/current, n8n/, tools/. */
	cache: string;
	/** The package as users get it: the `npm pack` tarball of this checkout. */
	tarball: string;
}

/** Installs (or reuses) Node 24 + n8n 2.41 and packs the package; used by the global setup. */
export async function prepareToolchain(): Promise<Toolchain> {
	const cache = await install();
	return { cache, tarball: await packPackage() };
}

/** What the global setup prepared, for the test files. */
export function toolchain(): Toolchain {
	const { LMS_N8N_CACHE: cache, LMS_N8N_TARBALL: tarball } = process.env;
	if (!cache || !tarball) throw new Error('Run the real-n8n suite with `npm run test:n8n` (its global setup installs n8n).');
	return { cache, tarball };
}

export const nodeBin = (cache: string) => join(cache, 'node', 'current', 'bin');
export const n8nBin = (cache: string) => join(cache, 'n8n', 'node_modules', 'n8n', 'bin', 'n8n');

/** The install script's progress goes to the terminal; its last line names the cache. */
function install(): Promise<string> {
	return new Promise((resolve, reject) => {
		const child = spawn('bash', [join(ROOT, 'scripts', 'n8n', 'install.sh')], { stdio: ['ignore', 'pipe', 'inherit'] });
		let out = '';
		child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
		child.on('error', reject);
		child.on('close', (code) => {
			const cache = out.trim().split('\n').pop();
			if (code === 0 && cache) resolve(cache);
			else reject(new Error(`scripts/n8n/install.sh failed (exit ${code}): the real-n8n tests cannot run without n8n`));
		});
	});
}

/** `npm pack` of the built package (dist/ must be current: `npm run test:n8n` builds first). */
async function packPackage(): Promise<string> {
	const destination = join(ROOT, 'artifacts');
	mkdirSync(destination, { recursive: true });
	const { stdout } = await run('npm', ['pack', '--silent', '--pack-destination', destination], { cwd: ROOT });
	return join(destination, stdout.trim().split('\n').pop()!);
}
