import { InvalidArgumentError, type Command } from 'commander';

import { createKey, findKey, listKeys, revokeKey, rotateKey, type IssuedKey } from '../api-keys/lifecycle';
import { keyJson } from '../api-keys/present';
import type { ApiKey } from '../api-keys/model';
import { parseGraceHours } from '../api-keys/rules';
import { findOrganization } from '../organizations/service';
import type { OwnedEndpoint } from '../webhooks/owners';
import { withDatabase } from './context';
import { printJson, printLines, printList, printToStderr } from './output';

/** `--expire-old-after 24h` (or 24): an unusable value is a usage error (exit 2), said in the rule's words. */
function graceHoursOption(value: string): number {
	try {
		return parseGraceHours(value);
	} catch (err) {
		throw new InvalidArgumentError((err as Error).message);
	}
}

/** The CLI is the operator's console: it acts as `cli` in the audit log. */
const actor = { kind: 'cli' } as const;

/** `--scopes read:users,read:courses`; the key service judges what is left. */
const splitScopes = (value: string | undefined) => (value ?? '').split(',').map((s) => s.trim());

function describe(apiKey: ApiKey): string {
	return `${apiKey.id} "${apiKey.label}" (${apiKey.scopeList.join(', ')})`;
}

/** For people: an active key past its date reads "expired" (its stored status stays active). */
function statusOf(apiKey: ApiKey): string {
	return apiKey.status === 'active' && apiKey.isExpired() ? 'expired' : apiKey.status;
}

/** A new key, shown once: as JSON, or as a headline about it followed by the secret. */
function printIssued({ apiKey, secret }: IssuedKey, json: boolean | undefined, headline: string): void {
	if (json) return printJson(keyJson(apiKey, secret));
	printLines(headline, '', `  ${secret}`, '', 'Copy it now: this is the only time the full key is shown. Only its hash is stored.');
}

/** What became of a key's webhook endpoints, on stderr: --json promises one document on stdout. */
function endpointsNote(what: string, endpoints: OwnedEndpoint[] | undefined): void {
	if (endpoints && endpoints.length > 0) printToStderr(`Its webhook endpoints ${what}: ${endpoints.map((e) => `${e.id} (${e.url})`).join(', ')}.`);
}

export function registerKeys(program: Command): void {
	const keys = program.command('keys').description('manage API keys (same rules and audit log as Settings → API Keys)');

	keys
		.command('create')
		.description('create a key and print it once')
		.requiredOption('--org <slug>', 'organization slug (Enterprise plan)')
		.option('--label <label>', 'a name for the key, 1–100 characters')
		.option('--scopes <list>', 'comma-separated: read:users,read:courses,read:enrollments,write:enrollments,manage:webhooks,write:users')
		.option('--expires <when>', 'optional: days from now (30), a date (2026-12-31, from midnight UTC) or an ISO 8601 date-time; default never')
		.option('--json', 'print the key as JSON')
		.action((opts: { org: string; label?: string; scopes?: string; expires?: string; json?: boolean }) =>
			withDatabase(async () => {
				const organization = await findOrganization(opts.org);
				const issued = await createKey({
					organizationId: organization.id,
					label: opts.label,
					scopes: splitScopes(opts.scopes),
					expires: opts.expires,
					actor,
				});
				const until = issued.apiKey.expiresAt ? ` It expires at ${issued.apiKey.expiresAt.toISOString()}.` : '';
				printIssued(issued, opts.json, `Created API key ${describe(issued.apiKey)} for ${organization.slug}.${until}`);
			}),
		);

	keys
		.command('list')
		.description('list the keys of an organization (masked)')
		.requiredOption('--org <slug>', 'organization slug')
		.option('--json', 'print the keys as a JSON array')
		.action((opts: { org: string; json?: boolean }) =>
			withDatabase(async () => {
				const organization = await findOrganization(opts.org);
				const list = await listKeys(organization.id);
				// The EXPIRES column only when a key has a date: the table stays as it was for everyone else.
				const withExpiry = list.some((k) => k.expiresAt !== null);
				printList(list, {
					json: opts.json,
					toJson: (k) => keyJson(k),
					none: `${organization.slug} has no API keys.`,
					headers: ['ID', 'LABEL', 'SCOPES', 'STATUS', 'KEY', 'CREATED', 'LAST USED', ...(withExpiry ? ['EXPIRES'] : [])],
					row: (k) => [
						k.id,
						k.label,
						k.scopeList.join(','),
						statusOf(k),
						k.masked,
						k.createdAt.toISOString(),
						k.lastUsedAt?.toISOString() ?? 'never',
						...(withExpiry ? [k.expiresAt?.toISOString() ?? 'never'] : []),
					],
				});
			}),
		);

	/** show and revoke: one key by id, printed for people or, with --json, as JSON. */
	const byId = (name: string, description: string, jsonHelp: string, work: (id: string, json: boolean | undefined) => Promise<void>) =>
		keys
			.command(name)
			.description(description)
			.argument('<id>', 'key id (key_…)')
			.option('--json', jsonHelp)
			.action((id: string, opts: { json?: boolean }) => withDatabase(() => work(id, opts.json)));

	byId('show', 'show one key (masked): label, scopes, status, when it was created, expires and was last used', 'print the key as JSON', async (id, json) => {
		const apiKey = await findKey(id);
		if (json) return printJson(keyJson(apiKey));
		printLines(
			`${apiKey.id} "${apiKey.label}"`,
			`  key:        ${apiKey.masked}`,
			`  scopes:     ${apiKey.scopeList.join(', ')}`,
			`  status:     ${statusOf(apiKey)}${apiKey.replacedBy ? ` (replaced by ${apiKey.replacedBy})` : ''}`,
			...(apiKey.inGrace() ? [`  works until: ${apiKey.graceUntil!.toISOString()}`] : []),
			`  created:    ${apiKey.createdAt.toISOString()}`,
			`  last used:  ${apiKey.lastUsedAt?.toISOString() ?? 'never'}`,
			...(apiKey.expiresAt ? [`  expires:    ${apiKey.expiresAt.toISOString()}`] : []),
		);
	});

	keys
		.command('rotate')
		.description('replace a key: new secret, same label and scopes; the old one stops working now, or after --expire-old-after')
		.argument('<id>', 'key id (key_…)')
		.option('--expire-old-after <hours>', 'keep the old key working for this many hours (0–168, e.g. 24h); default 0: it stops now', graceHoursOption)
		.option('--json', 'print the new key as JSON')
		.action((id: string, opts: { expireOldAfter?: number; json?: boolean }) =>
			withDatabase(async () => {
				const issued = await rotateKey({ keyId: id, actor, expireOldAfter: opts.expireOldAfter });
				const old = await findKey(id);
				const stops = old.inGrace() ? `it keeps working until ${old.graceUntil!.toISOString()}` : 'it stops working now';
				printIssued(issued, opts.json, `Rotated ${id}: ${stops}. Its replacement is ${describe(issued.apiKey)}.`);
				endpointsNote('passed to the new key', issued.movedEndpoints);
			}),
		);

	byId('revoke', 'disable a key now, with no replacement', 'print the revoked key as JSON', async (id, json) => {
		const apiKey = await revokeKey({ keyId: id, actor });
		endpointsNote('are disabled', apiKey.disabledEndpoints);
		if (json) return printJson(keyJson(apiKey));
		printLines(`Revoked ${describe(apiKey)}: it stops working now.`);
	});
}
