/**
 * The docs name everything the server knows (issue 42): every event type, scope, `lms-server`
 * command and problem code appears in the README or docs/*.md. Each list is read from the code
 * (the event and scope constants, the command line's own program, the OpenAPI document's problem
 * codes and those the domain rules answer with), never written out here, so a new one fails until documented.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import type { Command } from 'commander';

import { SCOPES } from '../../server/src/api-keys/model';
import { buildProgram } from '../../server/src/cli/program';
import { EVENT_TYPES } from '../../server/src/events/types';
import { RuleError } from '../../server/src/common/rule-error';
import { RULE_CODES, ruleProblem } from '../../server/src/http/rule-problems';
import { openApiDocument } from '../../server/src/openapi/document';
import { TEST_EVENT_TYPE } from '../../server/src/webhooks/test-event';

const ROOT = join(__dirname, '..', '..');
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');
const ALL_DOCS = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)].map(read).join('\n');

/** Named as code in `text` (all the docs unless said): inside backticks, alone or starting a longer snippet. */
const documented = (name: string, text = ALL_DOCS) => new RegExp(`\`${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}[\` ]`).test(text);

function commands(command: Command, path: string[] = []): string[] {
	return command.commands.flatMap((sub) => {
		const here = [...path, sub.name()];
		return sub.commands.length === 0 ? [here.join(' ')] : commands(sub, here);
	});
}

/** Every `code` an answer of the API can carry, as the OpenAPI document lists them (its tests check real answers against it). */
function problemCodes(): string[] {
	// A broken domain rule answers with the code its problem carries (a malformed e-mail is `invalid_request`).
	const codes = new Set<string>(RULE_CODES.map((code) => ruleProblem(new RuleError(code, 'x'))!.code));
	const walk = (node: unknown): void => {
		if (Array.isArray(node)) return node.forEach(walk);
		if (node === null || typeof node !== 'object') return;
		const record = node as Record<string, unknown>;
		const code = (record.properties as { code?: { enum?: unknown } } | undefined)?.code?.enum;
		if (Array.isArray(code)) for (const c of code) if (typeof c === 'string') codes.add(c);
		Object.values(record).forEach(walk);
	};
	walk(openApiDocument());
	return [...codes].sort();
}

// Where a reader looks for them: the webhook guide lists the types an endpoint can receive, the
// API reference the scopes, the README's table every error code.
test.each([...EVENT_TYPES, TEST_EVENT_TYPE])('event type %s is in docs/webhooks.md', (type) => {
	expect(documented(type, read('docs/webhooks.md'))).toBe(true);
});

test.each([...SCOPES])('scope %s is in docs/api.md and docs/settings.md', (scope) => {
	expect(documented(scope, read('docs/api.md'))).toBe(true);
	expect(documented(scope, read('docs/settings.md'))).toBe(true);
});

test.each(commands(buildProgram()))('command `lms-server %s` is documented', (command) => {
	expect(documented(`lms-server ${command}`) || documented(command)).toBe(true);
});

test('the problem codes are read from the code', () => {
	expect(problemCodes().length).toBeGreaterThan(30);
});

test.each(problemCodes())('problem code %s is in the README', (code) => {
	expect(documented(code, read('README.md'))).toBe(true);
});
