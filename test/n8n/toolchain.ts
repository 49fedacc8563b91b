import { spawn } from 'node:child_process';
import { join } from 'node:path';

export const ROOT = join(__dirname, '..', '..');

export interface Toolchain {
	/** The cache folder scripts/n8n/install.sh fills: node/current, n8n/, tools/. */
	cache: string;
	/** The package as users get it: built, linted and packed by n8n's node-cli (scripts/n8n/package.sh). */
	tarball: string;
}

/**
 * Installs (or reuses) Node 24 + n8n 2.41 and packs the package; used by the global setup, and by
 * the n8n-bulk benchmark, which runs compiled from bench/dist and so names the repository root.
 */
export async function prepareToolchain(root = ROOT): Promise<Toolchain> {
	const cache = await script(root, 'install.sh');
	return { cache, tarball: await script(root, 'package.sh') };
}

/** What the global setup prepared, for the test files. */
export function toolchain(): Toolchain {
	const { LMS_N8N_CACHE: cache, LMS_N8N_TARBALL: tarball } = process.env;
	if (!cache || !tarball) throw new Error('Run the real-n8n suite with `npm run test:n8n` (its global setup installs n8n).');
	return { cache, tarball };
}

export const nodeBin = (cache: string) => join(cache, 'node', 'current', 'bin');
export const n8nBin = (cache: string) => join(cache, 'n8n', 'node_modules', 'n8n', 'bin', 'n8n');
/** node-cli, the scanner, n8n 2.41's n8n-workflow and TypeScript. */
export const toolsOf = (cache: string) => join(cache, 'tools', 'node_modules');

/** A script of scripts/n8n: its progress goes to the terminal, its last line is its answer. */
function script(root: string, name: string): Promise<string> {
	return new Promise((resolve, reject) => {
		const child = spawn('bash', [join(root, 'scripts', 'n8n', name)], { stdio: ['ignore', 'pipe', 'inherit'] });
		let out = '';
		child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
		child.on('error', reject);
		child.on('close', (code) => {
			const answer = out.trim().split('\n').pop();
			if (code === 0 && answer) resolve(answer);
			else reject(new Error(`scripts/n8n/${name} failed (exit ${code}): the real-n8n tests cannot run without it`));
		});
	});
}
