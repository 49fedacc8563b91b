import type { RequestHandler } from 'express';

import { callerOf } from '../../http/auth';
import { bodyObject } from '../body';
import { groupFromBody } from './body';
import { changeGroup, noChange } from './change';
import { findGroup, sendGroup } from './get';

/**
 * PUT /scim/v2/Groups/{id}: displayName and externalId as sent, and the member list becomes
 * exactly the one sent, all in one transaction. An attribute left out is kept (RFC 7644 §3.5.1
 * lets the provider choose): members left out by a client renaming the group keep their place,
 * and an externalId left out stays (another door may own it); `[]` and null clear them.
 */
export const replaceGroup: RequestHandler = async (req, res) => {
	const body = bodyObject(req);
	const { displayName, externalId, members } = groupFromBody(body);
	const organizationId = callerOf(res).organization.id;
	const row = await findGroup(organizationId, String(req.params.id));
	const externalIdGiven = Object.keys(body).some((k) => k.toLowerCase() === 'externalid');
	const group = await changeGroup(organizationId, row.id, {
		...noChange(),
		name: displayName,
		...(externalIdGiven ? { externalId: externalId ?? null } : {}),
		...(members === undefined ? {} : { members }),
	});
	await sendGroup(req, res, 200, group);
};
