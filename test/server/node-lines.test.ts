/**
 * The supported Node.js lines are said one way everywhere (issue 42): `engines` of both packages,
 * the README, docs/operating.md, .ci/run and the GitHub workflow; GitHub's matrix tests only
 * supported lines, and the Node these tests run on (what CI really runs) is one of them.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');
const engines = (file: string) => (JSON.parse(read(file)) as { engines: { node: string } }).engines.node;

const RANGE = engines('package.json');
/** The range's lines, `^major.minor.patch` each (checked below): [[20, 17, 0], [22, 0, 0], [24, 0, 0]]. */
const LINES = RANGE.split('||').map((part) => /^\^(\d+)\.(\d+)\.(\d+)$/.exec(part.trim())?.slice(1).map(Number) ?? []);

/** `^20.17.0 || ^22.0.0 || ^24.0.0` → `Node.js 20.17+, 22 or 24`: the one sentence the docs use. */
function spoken(): string {
	const lines = LINES.map(([major, minor, patch]) => (minor === 0 && patch === 0 ? `${major}` : `${major}.${minor}+`));
	return `Node.js ${lines.slice(0, -1).join(', ')} or ${lines.at(-1)}`;
}

/** Whether `version` (e.g. v20.20.2) is on a supported line, at or after its first supported release. */
function supported(version: string): boolean {
	const [major, minor, patch] = version.replace(/^v/, '').split('.').map(Number);
	return LINES.some(([m, n, p]) => major === m && (minor > n || (minor === n && patch >= p)));
}

test('both packages declare the same lines, each a major line of its own', () => {
	expect(engines('server/package.json')).toBe(RANGE);
	const lock = JSON.parse(read('package-lock.json')) as { packages: Record<string, { engines?: { node: string } }> };
	expect(lock.packages[''].engines?.node).toBe(RANGE);
	expect(lock.packages.server.engines?.node).toBe(RANGE);
	for (const line of LINES) expect(line).toHaveLength(3);
});

test.each(['README.md', 'docs/operating.md', '.ci/run', '.github/workflows/ci.yml'])('%s says it the same way', (file) => {
	expect(read(file).replace(/\s*#\s*/g, ' ').replace(/\s+/g, ' ')).toContain(spoken());
});

test("GitHub's matrix tests supported lines only, and this Node is one", () => {
	const matrix = /node: \[([^\]]*)\]/.exec(read('.github/workflows/ci.yml'))![1].split(',').map((n) => n.trim());
	expect(matrix.length).toBeGreaterThan(0);
	for (const major of matrix) expect(supported(`${major}.99.0`)).toBe(true);
	expect(supported(process.version)).toBe(true);
});
