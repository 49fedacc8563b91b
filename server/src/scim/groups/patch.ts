import type { RequestHandler } from 'express';

import { callerOf } from '../../http/auth';
import { bodyObject } from '../body';
import { scimErrors } from '../errors';
import { checkPatchPath } from '../filter-parse';
import { PATCH_OP } from '../schema';
import { memberIdsOf } from './body';
import { changeGroup, type GroupChange, MEMBERS_PER_REQUEST, noChange } from './change';
import { memberIdsOfPath } from './filter';
import { findGroup, sendGroup } from './get';
import { GROUP_SCHEMA } from './resource';

type Op = 'add' | 'remove' | 'replace';

/** The attribute a path or a path-less value's key names: lower-cased, without the Group schema's URN. */
const attributeOf = (name: string) => name.trim().toLowerCase().replace(`${GROUP_SCHEMA.toLowerCase()}:`, '');

/**
 * The operations folded into one change, in order (RFC 7644 §3.5.2): a member list that is
 * replaced becomes the list, later adds and removes edit it; otherwise adds and removes cancel
 * each other. Sets of ids keep this linear in the number of members named.
 */
class Plan {
	readonly change: GroupChange = noChange();
	private named = 0;

	private count(ids: string[]): string[] {
		this.named += ids.length;
		if (this.named > MEMBERS_PER_REQUEST) throw scimErrors.invalidValue(`The operations name more than ${MEMBERS_PER_REQUEST} members; send at most ${MEMBERS_PER_REQUEST} per request.`);
		return ids;
	}

	setMembers(ids: string[]): void {
		this.change.members = [...new Set(this.count(ids))];
		this.change.add.clear();
		this.change.remove.clear();
	}

	addMembers(ids: string[]): void {
		const { members } = this.change;
		if (members) this.change.members = [...new Set([...members, ...this.count(ids)])];
		else for (const id of this.count(ids)) if (!this.change.remove.delete(id)) this.change.add.add(id);
	}

	removeMembers(ids: string[]): void {
		const gone = new Set(this.count(ids));
		if (this.change.members) this.change.members = this.change.members.filter((id) => !gone.has(id));
		else for (const id of gone) if (!this.change.add.delete(id)) this.change.remove.add(id);
	}

	/** One attribute of the group: displayName, externalId or members; any other is ignored (SPEC §21). */
	attribute(op: Op, name: string, value: unknown): void {
		switch (attributeOf(name)) {
			case 'displayname':
				if (op === 'remove') throw scimErrors.invalidValue("displayName is required and cannot be removed: it is the group's name.");
				if (typeof value !== 'string') throw scimErrors.invalidValue('displayName takes a string: the group\'s name.');
				this.change.name = value.trim();
				return;
			case 'externalid':
				if (op !== 'remove' && value !== null && typeof value !== 'string') throw scimErrors.invalidValue('externalId takes a string, or null to clear it.');
				this.change.externalId = op === 'remove' ? null : ((value as string | null) ?? null);
				return;
			case 'members':
				if (op === 'replace') this.setMembers(memberIdsOf(value, 'value'));
				else if (op === 'add') this.addMembers(memberIdsOf(value, 'value'));
				// Entra removes members with a value array; a remove without one empties the group.
				else if (value === undefined || value === null) this.setMembers([]);
				else this.removeMembers(memberIdsOf(value, 'value'));
				return;
			default:
				return;
		}
	}

	operation(op: Op, path: string | undefined, value: unknown): void {
		if (path === undefined) {
			// A path-less add or replace holds attributes by name (Okta: `{ "id", "displayName" }`).
			if (op === 'remove') throw scimErrors.invalidPath('A remove needs a path, e.g. members[value eq "usr_…"].');
			if (value === null || typeof value !== 'object' || Array.isArray(value)) throw scimErrors.invalidValue('An operation without a path takes an object of attributes, e.g. { "displayName": "Sales" }.');
			for (const [name, v] of Object.entries(value)) this.attribute(op, name, v);
			return;
		}
		const open = path.indexOf('[');
		if (open === -1) return this.attribute(op, path, value);
		if (attributeOf(path.slice(0, open)) !== 'members' || !path.trimEnd().endsWith(']')) {
			throw scimErrors.invalidPath('A filtered path on a Group names members only: members[value eq "usr_…"].');
		}
		const ids = memberIdsOfPath(path.slice(open + 1, path.lastIndexOf(']')));
		if (op === 'remove') this.removeMembers(ids);
		else if (op === 'add') this.addMembers(ids);
		else throw scimErrors.invalidPath('Replace the members with path "members" and the whole list, or remove and add them one by one.');
	}
}

/** An operation's field by name in any case (Entra and Okta both send `op`, some clients `Op`). */
const field = (operation: object, name: string): unknown => Object.entries(operation as Record<string, unknown>).find(([k]) => k.toLowerCase() === name)?.[1];

/**
 * PATCH /scim/v2/Groups/{id} (RFC 7644 §3.5.2) as Okta's Push Groups and Entra's group
 * provisioning send it: op `add`/`remove`/`replace` in any case (Entra's "Add", "Remove",
 * "Replace"), paths `members`/`Members`, `members[value eq "…"]`, `displayName`, `externalId`,
 * path-less values; other attributes are ignored. Every path is bounded before anything reads it;
 * the operations become one change applied in one transaction through the groups domain (so a
 * member added here is enrolled by the group's assignments and emits group.member_added).
 * Members are changed here rather than by scimmy's PatchOp on the whole resource, which would
 * read and compare every member of a large group for each operation.
 */
export const patchGroup: RequestHandler = async (req, res) => {
	const body = bodyObject(req);
	const operations = field(body, 'operations');
	if (!Array.isArray(body.schemas) || !body.schemas.includes(PATCH_OP)) throw scimErrors.invalidSyntax(`The body's "schemas" must be ["${PATCH_OP}"].`);
	if (!Array.isArray(operations)) throw scimErrors.invalidSyntax('The body needs "Operations": a list of { "op", "path", "value" }.');
	const plan = new Plan();
	const checked = operations.map((operation: unknown) => {
		if (operation === null || typeof operation !== 'object' || Array.isArray(operation)) throw scimErrors.invalidSyntax('Each operation is an object { "op", "path", "value" }.');
		const op = field(operation, 'op');
		if (typeof op !== 'string' || !['add', 'remove', 'replace'].includes(op.toLowerCase())) throw scimErrors.invalidSyntax('Each operation\'s "op" is add, remove or replace.');
		const path = field(operation, 'path');
		if (path !== undefined && typeof path !== 'string') throw scimErrors.invalidPath('An operation\'s "path" is a string, e.g. "members".');
		if (path !== undefined) checkPatchPath(path);
		return { op: op.toLowerCase() as Op, path, value: field(operation, 'value') };
	});
	for (const { op, path, value } of checked) plan.operation(op, path, value);
	const organizationId = callerOf(res).organization.id;
	const row = await findGroup(organizationId, String(req.params.id));
	await sendGroup(req, res, 200, await changeGroup(organizationId, row.id, plan.change));
};
