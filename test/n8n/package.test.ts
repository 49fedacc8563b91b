/**
 * The checks of n8n's own tooling, on the package as it is published: `n8n-node lint` with
 * node-cli's default configuration, and n8n's community-package scanner (what n8n's verification
 * runs) on the packed tarball and on the source. Each check is also shown to fail on a copy with a
 * planted violation, so a pass means something.
 */
import { execFile } from 'node:child_process';
import { appendFileSync, cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

import { nodeBin, ROOT, toolchain, toolsOf } from './toolchain';

const run = promisify(execFile);
// Both tools run eslint-plugin-n8n-nodes-base, which checks made-up file names when NODE_ENV=test
// (its own test mode), and jest sets NODE_ENV=test: the child processes run without it.
const STAGE = join(ROOT, '.n8n-package');
const { cache, tarball } = toolchain();
const node = join(nodeBin(cache), 'node');
const scanner = join(toolsOf(cache), '@n8n', 'scan-community-package', 'scanner', 'scanner.mjs');

let unpacked: string;
const scratch: string[] = [];

function folder(): string {
	const path = mkdtempSync(join(tmpdir(), 'lms-package-'));
	scratch.push(path);
	return path;
}

async function scan(path: string, mode?: 'source'): Promise<{ passed: boolean; details?: string }> {
	const { stdout } = await run(node, [join(__dirname, 'scan.mjs'), scanner, path, ...(mode ? [mode] : [])], {
		env: { ...process.env, NODE_ENV: undefined },
		maxBuffer: 16 * 1024 * 1024,
	});
	return JSON.parse(stdout.trim().split('\n').pop()!) as { passed: boolean; details?: string };
}

async function lint(path: string): Promise<{ code: number; output: string }> {
	try {
		const { stdout, stderr } = await run(join(toolsOf(cache), '.bin', 'n8n-node'), ['lint'], {
			cwd: path,
			env: { ...process.env, NODE_ENV: undefined, CI: 'true', PATH: `${nodeBin(cache)}:${join(toolsOf(cache), '.bin')}:${process.env.PATH}` },
		});
		return { code: 0, output: stdout + stderr };
	} catch (err) {
		const { code, stdout = '', stderr = '' } = err as { code: number; stdout?: string; stderr?: string };
		return { code, output: stdout + stderr };
	}
}

/** A copy of the staged package whose LMS Users node does what n8n Cloud forbids. */
function stagedWithViolation(): string {
	const copy = folder();
	cpSync(STAGE, copy, { recursive: true, verbatimSymlinks: true, filter: (src) => !src.includes(`${STAGE}/dist`) });
	appendFileSync(join(copy, 'nodes', 'LmsUsers', 'LmsUsers.node.ts'), '\nexport const leak = () => setTimeout(() => undefined, 1);\n');
	return copy;
}

beforeAll(async () => {
	unpacked = folder();
	await run('tar', ['xzf', tarball, '-C', unpacked]);
	unpacked = join(unpacked, 'package');
});

afterAll(() => scratch.forEach((path) => rmSync(path, { recursive: true, force: true })));

it('the tarball holds the built package only: every node and credential package.json names, codex files and icons', () => {
	const manifest = JSON.parse(readFileSync(join(unpacked, 'package.json'), 'utf8')) as {
		n8n: { nodes: string[]; credentials: string[] };
		devDependencies?: unknown;
		dependencies?: unknown;
	};
	for (const file of [...manifest.n8n.nodes, ...manifest.n8n.credentials]) {
		expect(readFileSync(join(unpacked, file), 'utf8')).toContain('exports.');
		const codex = file.replace(/\.js$/, '.json');
		if (file.includes('/nodes/')) expect(JSON.parse(readFileSync(join(unpacked, codex), 'utf8'))).toHaveProperty('node');
	}
	expect(readFileSync(join(unpacked, 'dist', 'icons', 'lmsUsers.svg'), 'utf8')).toContain('<svg');
	expect(manifest.dependencies).toBeUndefined();
	expect(manifest.devDependencies).toBeUndefined();
});

it('the tarball holds exactly what n8n loads: no source maps, build info or a second package.json', async () => {
	const listing = (await run('tar', ['tzf', tarball])).stdout.trim().split('\n');
	const unexpected = listing.filter(
		(file) => !/^package\/(package\.json|README\.md|LICENSE|dist\/(credentials|nodes)\/.+\.js|dist\/nodes\/.+\.node\.json|dist\/icons\/[\w.]+\.svg)$/.test(file),
	);
	expect(unexpected).toEqual([]);
});

it("n8n's scanner passes the packed tarball and the source", async () => {
	await expect(scan(unpacked)).resolves.toEqual({ passed: true });
	await expect(scan(ROOT, 'source')).resolves.toEqual({ passed: true });
}, 120_000);

it("n8n's scanner fails a package that reads process.env", async () => {
	const copy = folder();
	cpSync(unpacked, copy, { recursive: true });
	appendFileSync(join(copy, 'dist', 'nodes', 'LmsUsers', 'LmsUsers.node.js'), '\nexports.leak = () => process.env;\n');
	const result = await scan(copy);
	expect(result.passed).toBe(false);
	expect(result.details).toMatch(/process/);
}, 120_000);

it("`n8n-node lint` passes with node-cli's own configuration, unchanged, and fails a planted violation", async () => {
	const template = join(toolsOf(cache), '@n8n', 'node-cli', 'dist', 'template', 'templates', 'shared', 'default', 'eslint.config.mjs');
	expect(readFileSync(join(STAGE, 'eslint.config.mjs'), 'utf8')).toBe(readFileSync(template, 'utf8'));
	expect(await lint(STAGE)).toMatchObject({ code: 0 });

	const broken = await lint(stagedWithViolation());
	expect(broken.code).not.toBe(0);
	expect(broken.output).toMatch(/setTimeout/);
}, 180_000);
