import type { RequestHandler } from 'express';

import { database } from '../../db';
import { writeTransaction } from '../../db/write-transaction';
import { createGroup as createDomainGroup } from '../../groups/write';
import { callerOf } from '../../http/auth';
import { bodyObject } from '../body';
import { scimBase } from '../resource';
import { groupFromBody } from './body';
import { changeGroup, noChange } from './change';
import { sendGroup } from './get';

/**
 * POST /scim/v2/Groups: the same group as POST /api/v1/groups (groups/write.ts), its members
 * added through the domain in the same transaction (an unknown one: 400 and no group). A name
 * taken in any case, or a taken externalId, is 409 uniqueness.
 */
export const createGroup: RequestHandler = async (req, res) => {
	const { displayName, externalId, members } = groupFromBody(bodyObject(req));
	const organizationId = callerOf(res).organization.id;
	const group = await writeTransaction(database(), async () => {
		const made = await createDomainGroup(organizationId, { name: displayName, description: null, externalId: externalId ?? null });
		return members === undefined || members.length === 0 ? made : changeGroup(organizationId, made.id, { ...noChange(), add: new Set(members) });
	});
	await sendGroup(req, res, 201, group, { Location: `${scimBase(req)}/Groups/${group.id}` });
};
