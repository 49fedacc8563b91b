/**
 * What n8n installs: the built package. `npm test` builds first; run `npm run build:nodes`
 * before running this file alone.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { PackageDirectoryLoader } from 'n8n-core';

const root = join(__dirname, '..', '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

const ACTION_NODES = ['lmsUsers', 'lmsGroups', 'lmsCourses', 'lmsEnrollments', 'lmsCertificates'];

describe('package.json', () => {
	it('is an n8n community package without runtime dependencies', () => {
		expect(pkg.name).toBe('n8n-nodes-lms');
		expect(pkg.keywords).toContain('n8n-community-node-package');
		expect(pkg.license).toBe('MIT');
		expect(pkg.dependencies ?? {}).toEqual({});
		expect(pkg.peerDependencies).toEqual({ 'n8n-workflow': '*' });
		// Exactly what n8n loads: no source maps or build info (issue 30).
		expect(pkg.files).toEqual(['dist/credentials/*.js', 'dist/nodes/**/*.js', 'dist/nodes/**/*.node.json', 'dist/icons/*.svg']);
		expect(pkg.n8n).toMatchObject({ n8nNodesApiVersion: 1, strict: true });
	});

	it('points at built files that exist', () => {
		const paths: string[] = [...pkg.n8n.credentials, ...pkg.n8n.nodes];
		for (const path of paths) {
			expect(path).toMatch(/^dist\//);
			expect(existsSync(join(root, path))).toBe(true);
		}
	});
});

describe('as n8n loads it', () => {
	let loader: PackageDirectoryLoader;

	beforeAll(async () => {
		loader = new PackageDirectoryLoader(root);
		await loader.loadAll();
	});

	it('finds every node and the credential', () => {
		expect(Object.keys(loader.nodeTypes)).toEqual(expect.arrayContaining(ACTION_NODES));
		expect(Object.keys(loader.credentialTypes)).toEqual(['lmsApi']);
		expect(loader.known.credentials.lmsApi.supportedNodes).toEqual(expect.arrayContaining(ACTION_NODES));
	});

	it('gives every node a codex, a subtitle and distinct light and dark icons that exist', () => {
		const described = [...loader.types.nodes, ...loader.types.credentials] as Array<{
			name: string;
			iconUrl?: { light: string; dark: string };
			codex?: { categories?: string[] };
			subtitle?: string;
		}>;
		for (const type of described) {
			expect(type.iconUrl?.light).not.toBe(type.iconUrl?.dark);
			for (const url of [type.iconUrl!.light, type.iconUrl!.dark]) {
				const file = url.replace(/^icons\/n8n-nodes-lms\//, '');
				expect(existsSync(join(root, file))).toBe(true);
			}
		}
		for (const node of loader.types.nodes.filter((type) => ACTION_NODES.includes(type.name))) {
			expect((node as { codex?: { categories?: string[] } }).codex?.categories?.length).toBeGreaterThan(0);
			expect(node.subtitle).toBeTruthy();
			expect(node.usableAsTool).toBe(true);
		}
	});

	it('tells the two triggers apart by their icons (polling: a clock, instant: a bolt), in every version and theme', () => {
		const triggers = loader.types.nodes.filter((type) => ['lmsTrigger', 'lmsInstantTrigger'].includes(type.name)) as Array<{
			name: string;
			version: number | number[];
			iconUrl?: { light: string; dark: string };
		}>;
		// One entry per version of LMS Trigger (1, 2) and one for LMS Instant Trigger.
		expect(triggers.map((type) => type.name).sort()).toEqual(['lmsInstantTrigger', 'lmsTrigger', 'lmsTrigger']);
		const svg = (url: string) => readFileSync(join(root, url.replace(/^icons\/n8n-nodes-lms\//, '')), 'utf8');
		const iconsOf = (name: string) => triggers.filter((type) => type.name === name).map((type) => type.iconUrl!);
		const polling = iconsOf('lmsTrigger');
		const [instant] = iconsOf('lmsInstantTrigger');
		for (const theme of ['light', 'dark'] as const) {
			expect(new Set(polling.map((icon) => icon[theme])).size).toBe(1);
			expect(svg(polling[0][theme])).not.toBe(svg(instant[theme]));
		}
	});

	it('gives every operation an action an AI agent can read', () => {
		for (const node of loader.types.nodes.filter((type) => ACTION_NODES.includes(type.name))) {
			const operation = node.properties.find((property) => property.name === 'operation');
			for (const option of (operation?.options ?? []) as Array<{ action?: string; description?: string }>) {
				expect(option.action).toMatch(/^[A-Z][a-z]+ /);
				expect(option.description?.length).toBeGreaterThan(20);
			}
		}
	});
});

describe('documentation links', () => {
	const REPO_FILE = 'https://github.com/n8n-nodes-lms/n8n-nodes-lms/blob/main/';

	/** Every file of the built package that n8n reads: code, codex files, package.json. */
	function builtFiles(dir = join(root, 'dist')): string[] {
		return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
			const path = join(dir, entry.name);
			if (entry.isDirectory()) return builtFiles(path);
			return /\.(js|json)$/.test(entry.name) ? [path] : [];
		});
	}

	it('no documentation URL in the built package has a #fragment (n8n appends ?utm_… after it)', () => {
		const urls = [...builtFiles(), join(root, 'package.json')].flatMap((file) =>
			[...readFileSync(file, 'utf8').matchAll(/https?:\/\/[^\s"'`)]+/g)].map((m) => ({ file, url: m[0] })),
		);
		const docs = urls.filter(({ url }) => url.includes('github.com/n8n-nodes-lms'));
		expect(docs.length).toBeGreaterThanOrEqual(11);
		expect(docs.filter(({ url }) => url.includes('#'))).toEqual([]);
	});

	it("every node's and the credential's docs link lands on a page of its own that exists in the repository", async () => {
		const loader = new PackageDirectoryLoader(root);
		await loader.loadAll();
		const links: Array<[string, string]> = [];
		for (const type of loader.types.nodes as Array<{ name: string; codex?: { resources?: Record<string, Array<{ url: string }>> } }>) {
			for (const list of Object.values(type.codex?.resources ?? {})) for (const { url } of list) links.push([type.name, url]);
		}
		for (const type of loader.types.credentials) links.push([type.name, String(type.documentationUrl)]);
		expect(links.length).toBeGreaterThanOrEqual(11);
		for (const [name, url] of links) {
			expect({ name, url: url.startsWith(REPO_FILE) }).toEqual({ name, url: true });
			// What n8n opens: the link with its tracking query; the page is the file before it.
			const opened = new URL(`${url}?utm_source=n8n_app&utm_medium=node_settings_modal-credential_link`);
			expect(opened.hash).toBe('');
			expect(existsSync(join(root, opened.pathname.replace('/n8n-nodes-lms/n8n-nodes-lms/blob/main/', '')))).toBe(true);
		}
		const primary = links.filter(([name, url]) => ACTION_NODES.includes(name) && !url.endsWith('credentials.md'));
		expect(new Set(primary.map(([, url]) => url)).size).toBe(ACTION_NODES.length);
	});
});

it('npm pack ships only dist/, the README, the licence and package.json', () => {
	const output = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
		cwd: root,
		encoding: 'utf8',
		stdio: ['ignore', 'pipe', 'ignore'],
	});
	const files: string[] = JSON.parse(output)[0].files.map((file: { path: string }) => file.path);
	const unexpected = files.filter(
		(path) => !path.startsWith('dist/') && !['README.md', 'LICENSE', 'package.json'].includes(path),
	);
	expect(unexpected).toEqual([]);
	expect(files).toEqual(expect.arrayContaining(pkg.n8n.nodes.concat(pkg.n8n.credentials)));
});
