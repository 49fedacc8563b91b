import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

import { createTestDatabase, type TestDatabase } from '../helpers/database';
import { startInstance, type Instance } from '../helpers/instances';
import { waitUntil } from '../helpers/wait';

/**
 * Issue 30: the README's "Use the API" works as printed on a fresh demo. The server is started as
 * the quick start does (`start --demo`), the `export` line it prints is pasted, and every command
 * of the README's block runs in bash with curl failing on any 4xx or 5xx.
 *
 * Issue 42: so do the docs. Every block a doc marks ```` ```sh demo ```` runs after the README's,
 * on the same server, in document order, in one bash with the same curl, the `lms-server` of this
 * checkout on the server's database, and each answer the text shows is checked.
 */

const ROOT = join(__dirname, '..', '..');
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const BIN = join(ROOT, 'server', 'bin', 'lms-server.js');

/**
 * The docs whose demo blocks run, in this order, and how many blocks each marks at least: a block
 * whose mark is lost (a typo in the info string) would otherwise be skipped without a word.
 * settings.md has commands only in its prose (its blocks are the quick start's and a test's).
 */
const DOCS: ReadonlyArray<[file: string, marked: number]> = [
	['docs/api.md', 9],
	['docs/webhooks.md', 2],
	['docs/settings.md', 0],
	['docs/operating.md', 4],
];

interface DemoBlock {
	file: string;
	index: number;
	script: string;
	/** The answer the text prints for it (a plain block introduced by "prints"), when it shows one. */
	prints?: string;
}

function demoBlocks(file: string): DemoBlock[] {
	const text = readFileSync(join(ROOT, file), 'utf8');
	return [...text.matchAll(/^```sh demo\n([\s\S]*?)^```\n(?:\nprints\n\n```\n([\s\S]*?)^```\n)?/gm)].map((m, index) => ({
		file,
		index,
		script: m[1],
		prints: m[2],
	}));
}

/**
 * What the text says these blocks answer, each block found by a line of it. The curl wrapper ends
 * each answer with a newline, so one answer is one line (after the headers, with `-i`).
 */
const ANSWERS: ReadonlyArray<{ block: string; answers: RegExp[] }> = [
	{ block: 'curl -H "Authorization: Bearer $KEY" "$LMS/api/v1/key"\n', answers: [/"slug":"acme"/] },
	{
		block: 'search=love&role=student',
		answers: [
			// one person by e-mail, in any case; and Ada found by a word of her name
			/^\{"data":\[\{"id":"usr_\w+","name":"Ada Lovelace","email":"ada\.lovelace@example\.com".*"total":1\}\}$/m,
			/HTTP\/1\.1 201 Created/,
			/"due_at":"2026-12-31T17:00:00\.000Z"/,
			/"progress_percent":60/,
			/"status":"completed","progress_percent":100/,
			/"type":"certificate\.issued"/,
			/"student":\{"id":"usr_\w+","name":"Ada Lovelace"/,
			/^\{"data":\[\],"has_more":false\}$/m,
			/^\{"data":\[\{"id":"cert_\w+".*"total":1\}\}$/m,
		],
	},
	{
		block: 'Margaret Hamilton',
		answers: [/HTTP\/1\.1 201 Created/, /"name":"Margaret H\. Hamilton","email":"margaret\.hamilton@example\.com"/, /"status":"deactivated"/],
	},
	{ block: 'reports/course_completion"\n', answers: [/"completion_rate":/] },
	{
		block: '"name":"Sales"',
		answers: [/^\{"added":\["usr_\w+"\],"unchanged":\[\]\}$/m, /^\{"added":\["usr_\w+"\],"unchanged":\["usr_\w+"\]\}$/m, /"name":"Sales".*"member_count":2/],
	},
	{ block: '"on_removal\\":\\"withdraw', answers: [/"due_in_days":30/, /"on_removal":"withdraw"/] },
	{ block: 'course_completion?group_id=$GROUP', answers: [/^\{"data":\[\{"course_id":"crs_\w+"/m] },
	{ block: '"$LMS/api/v1/events/head"\n# {"after"', answers: [/^\{"after":"evt_\w+"\}$/m] },
	{
		block: 'Idempotency-Key',
		// the same 201 twice, the same user in both (the second created nobody), the second marked
		answers: [/HTTP\/1\.1 201 Created[\s\S]*"id":"(usr_\w+)"[\s\S]*HTTP\/1\.1 201 Created[\s\S]*"id":"\1"/, /^Idempotent-Replayed: true\r?$/im],
	},
	{ block: 'webhook_endpoints', answers: [/"id":"whe_\w+".*"secret":"whsec_\w+"/] },
	{ block: 'lms-server webhooks list', answers: [/^whe_\w+ +http:\/\/127\.0\.0\.1:5678\/webhook\/lms-docs /m, /^Deleted webhook endpoint whe_\w+/m] },
	{ block: 'npx lms-server --help', answers: [/^Usage: lms-server/m, /Demo key \(all scopes\)/] },
	{ block: '--name "Jo Park"', answers: [/^Created super_admin jo@acme\.test \(usr_\w+\) in acme, with a password\.$/m, /^Created student kai@acme\.test/m] },
	{ block: 'users reset-link', answers: [/^Password set for jo@acme\.test/m, /\/login\/reset\/\S+$/m] },
];

/** Ids, keys and secrets differ from run to run; the rest of a printed answer must not. */
const withoutIds = (text: string) => text.replace(/\b(lms|key|usr|crs|enr|cert|grp|whe|whsec|evt)_[A-Za-z0-9]+/g, '$1_…').trim();

/** The shell block of "Use the API" that starts with the users' commands. */
function walkthroughBlock(): string {
	const section = README.slice(README.indexOf('## Use the API'));
	const match = /```sh\n(# Users:[\s\S]*?)```/.exec(section);
	if (!match) throw new Error('README: no "Use the API" block starting with "# Users:"');
	return match[1];
}

let database: TestDatabase;
let server: Instance;
beforeAll(async () => {
	database = await createTestDatabase();
	server = await startInstance({ DATABASE_URL: database.databaseUrl, RATE_LIMIT_PER_MINUTE: '1000' }, ['--demo'], 60_000);
	// The banner follows the listening line on stderr: wait for it.
	await waitUntil(() => /export LMS=.*\n/.test(server.output()), { timeout: 20_000, what: 'the demo banner' });
}, 90_000);
afterAll(async () => {
	await server?.stop();
	await database?.remove();
	rmSync(join(ROOT, 'completion.csv'), { force: true });
});

const README_DONE = '@@ README done';
const marker = (block: DemoBlock) => `@@ ${block.file} block ${block.index + 1}`;

interface Walkthrough {
	status: number | null;
	blocks: DemoBlock[];
	/** stdout and stderr of each part, by the marker that starts it ('' for the README's). */
	parts: Map<string, { stdout: string; stderr: string }>;
}

function byMarker(text: string): Map<string, string> {
	const parts = new Map<string, string>();
	for (const [i, part] of text.split(/^(?=@@ )/m).entries()) {
		if (i === 0 && !part.startsWith('@@ ')) parts.set('', part);
		else parts.set(part.slice(0, part.indexOf('\n')), part.slice(part.indexOf('\n') + 1));
	}
	return parts;
}

let ran: Walkthrough | undefined;
/**
 * One bash, as a reader at the repository root: the printed export line, the README's block, then
 * each doc's demo blocks, with curl failing on any 4xx or 5xx and ending each answer with a newline
 * (so one answer is one line, after its headers with `-i`). Run once, for both tests.
 */
function walkthrough(): Walkthrough {
	if (ran) return ran;
	const exportLine = /^ {2}(export LMS=.*)$/m.exec(server.output())![1];
	const blocks = DOCS.flatMap(([file]) => demoBlocks(file));
	const both = (line: string) => `echo ${JSON.stringify(line)}; echo ${JSON.stringify(line)} >&2`;
	const script = [
		'set -euo pipefail',
		`curl() { command curl --silent --show-error --fail-with-body --max-time 10 --write-out '\\n' "$@"; }`,
		`lms-server() { node ${JSON.stringify(BIN)} "$@"; }`,
		exportLine,
		walkthroughBlock(),
		both(README_DONE),
		...blocks.flatMap((block) => [both(marker(block)), block.script]),
	].join('\n');
	const run = spawnSync('bash', ['-c', script], {
		cwd: ROOT,
		encoding: 'utf8',
		timeout: 120_000,
		stdio: ['ignore', 'pipe', 'pipe'],
		env: { ...process.env, DATABASE_URL: database.databaseUrl, NO_UPDATE_NOTIFIER: '1' },
	});
	const stdout = byMarker(run.stdout);
	const stderr = byMarker(run.stderr);
	const parts = new Map([...stdout].map(([name, text]) => [name, { stdout: text, stderr: stderr.get(name) ?? '' }]));
	ran = { status: run.status, blocks, parts };
	return ran;
}

test('the feed is not empty right after the first start', async () => {
	const key = /Demo API key for acme \(every scope, shown once\): (lms_\w+)/.exec(server.output())![1];
	const feed = (await (await fetch(`${server.url}/api/v1/events`, { headers: { Authorization: `Bearer ${key}` } })).json()) as { data: unknown[] };
	expect(feed.data.length).toBeGreaterThan(0);
});

test('the printed export line, then every command of the README, answers 2xx', () => {
	const exportLine = /^ {2}(export LMS=.*)$/m.exec(server.output())?.[1];
	expect(exportLine).toMatch(/^export LMS=http:\/\/\S+ KEY=lms_\w+ STUDENT=usr_\w+ STUDENT_EMAIL=\S+@\S+ COURSE=crs_\w+ ENROLLMENT=enr_\w+ CERTIFICATE=cert_\w+$/);

	// Only the batch's one item is expected to be refused (already enrolled), inside a 200.
	const readme = walkthrough().parts.get('')!;
	expect(readme.stderr).toBe('');
	expect(walkthrough().parts.has(README_DONE)).toBe(true);
	expect(readme.stdout).toContain('HTTP/1.1 201 Created');
	expect(readme.stdout).toContain('"status":"completed"');
	expect(readme.stdout).toContain('"certificate.issued"');
}, 150_000);

test('then every demo block of the docs, in order, answers as the text says', () => {
	for (const [file, marked] of DOCS) expect({ file, blocks: demoBlocks(file).length >= marked }).toEqual({ file, blocks: true });
	// A block that talks to the server and is not marked, or is in a doc not listed, would never run: there is none.
	for (const file of readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)) {
		const text = readFileSync(join(ROOT, file), 'utf8');
		const unmarked = [...text.matchAll(/^```(sh|sh demo)\n([\s\S]*?)^```$/gm)]
			.filter((m) => m[2].includes('"$LMS') && (m[1] !== 'sh demo' || !DOCS.some(([listed]) => listed === file)))
			.map((m) => m[2]);
		expect({ file, unmarked }).toEqual({ file, unmarked: [] });
	}

	const { status, blocks, parts } = walkthrough();
	const reached = [...parts.keys()].at(-1)!;
	const failure = status === 0 ? undefined : `exit ${String(status)} in ${reached || 'the README'}:\n${parts.get(reached)!.stdout.slice(-2000)}\n${parts.get(reached)!.stderr.slice(-2000)}`;
	expect({ status, failure }).toEqual({ status: 0, failure: undefined });
	expect([...parts.keys()]).toEqual(['', README_DONE, ...blocks.map(marker)]);
	// Nothing on stderr but what a block prints there on purpose: no curl error, no warning.
	expect(blocks.map((b) => [marker(b), parts.get(marker(b))!.stderr]).filter(([, stderr]) => stderr !== '')).toEqual([]);

	const outputOf = (block: DemoBlock) => parts.get(marker(block))!.stdout;
	for (const { block: line, answers } of ANSWERS) {
		const matching = blocks.filter((b) => b.script.includes(line));
		expect({ line, blocks: matching.length }).toEqual({ line, blocks: 1 });
		const answer = outputOf(matching[0]);
		for (const expected of answers) expect({ line, answer }).toEqual({ line, answer: expect.stringMatching(expected) });
	}
	const printed = blocks.filter((b) => b.prints !== undefined);
	expect(printed.length).toBeGreaterThan(0);
	for (const block of printed) expect(withoutIds(outputOf(block))).toBe(withoutIds(block.prints!));

	// The report's CSV, saved where the reader ran the command.
	expect(readFileSync(join(ROOT, 'completion.csv'), 'utf8')).toMatch(/^\uFEFF?course_id,title,enrolled,/);
}, 150_000);
