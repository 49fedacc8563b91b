import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { runCli } from '../helpers/cli';

/**
 * Issue 30: the operator's console can see what is there (`orgs list`, `users list`, `keys show`)
 * and its help says which options a command cannot run without.
 */

let root: string;
let env: Record<string, string>;
let demo: { organizations: Array<{ slug: string; id: string }> };
beforeAll(async () => {
	root = mkdtempSync(join(tmpdir(), 'lms-console-'));
	env = { DATABASE_URL: `sqlite:${join(root, 'lms.sqlite')}` };
	const seeded = await runCli(['seed', '--demo', '--json'], { env });
	expect(seeded.code).toBe(0);
	demo = JSON.parse(seeded.stdout) as typeof demo;
}, 60_000);
afterAll(() => rmSync(root, { recursive: true, force: true }));

const cli = (...args: string[]) => runCli(args, { env });

test('users list: newest first, filtered, cut with a note, as JSON', async () => {
	const students = await cli('users', 'list', '--org', 'initech', '--role', 'student', '--limit', '3');
	expect(students.code).toBe(0);
	const lines = students.stdout.trim().split('\n');
	expect(lines[0]).toMatch(/^ID\s+NAME\s+EMAIL\s+ROLE\s+STATUS\s+EXTERNAL ID$/);
	expect(lines.slice(1, 4).every((line) => /^usr_\w+\s.*\sstudent\s+active\s*$/.test(line))).toBe(true);
	expect(lines[4]).toBe('(3 of 10: --limit shows more)');

	const all = JSON.parse((await cli('users', 'list', '--org', 'initech', '--json')).stdout) as Array<{ role: string; organization: string }>;
	expect(all).toHaveLength(11);
	expect(all.every((u) => u.organization === 'initech')).toBe(true);

	const bad = await cli('users', 'list', '--org', 'initech', '--role', 'ceo');
	expect(bad.code).not.toBe(0);
	expect(bad.stderr).toMatch(/--role <role>' argument 'ceo' is invalid\. Allowed choices are student, instructor, admin, super_admin/);
	expect((await cli('users', 'list', '--org', 'initech', '--limit', '0')).stderr).toMatch(/--limit must be a whole number from 1 to 10000/);
});

test('keys show: one key, masked, whatever its status; an unknown id says so', async () => {
	const created = JSON.parse((await cli('keys', 'create', '--org', 'acme', '--label', 'shown', '--scopes', 'read:users', '--json')).stdout) as { id: string; key: string };
	const shown = await cli('keys', 'show', created.id);
	expect(shown.code).toBe(0);
	expect(shown.stdout).toMatch(new RegExp(`^${created.id} "shown"\\n {2}key: +lms_\\w{4}…\\w{4}\\n {2}scopes: +read:users\\n {2}status: +active\\n`));
	expect(shown.stdout).not.toContain(created.key);
	expect((await cli('keys', 'revoke', created.id)).code).toBe(0);
	expect(JSON.parse((await cli('keys', 'show', created.id, '--json')).stdout)).toMatchObject({ id: created.id, status: 'revoked' });
	expect(JSON.parse((await cli('keys', 'show', created.id, '--json')).stdout)).not.toHaveProperty('key');
	const unknown = await cli('keys', 'show', 'key_nobody');
	expect(unknown).toMatchObject({ code: 1, stderr: 'lms-server: No API key key_nobody.\n' });
});

test('help marks the required options', async () => {
	const help = (await cli('keys', 'create', '--help')).stdout;
	expect(help).toMatch(/--org <slug> +organization slug \(Enterprise plan\) \(required\)/);
	expect(help).not.toMatch(/--json .*\(required\)/);
	expect((await cli('orgs', 'create', '--help')).stdout.match(/\(required\)/g)).toHaveLength(3);
	expect(demo.organizations.map((o) => o.slug)).toEqual(['acme', 'globex', 'initech']);
});
