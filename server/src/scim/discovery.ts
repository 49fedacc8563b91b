import type { RequestHandler } from 'express';

import SCIMMY from 'scimmy';

import { scimErrors, sendScim } from './errors';
import { GROUP_SCHEMA } from './groups/resource';
import { MAX_RESULTS } from './list-query';
import { scimBase } from './resource';
import { ENTERPRISE_SCHEMA, enterpriseDefinition, LIST_RESPONSE, USER_SCHEMA, userDefinition } from './schema';

/** The discovery endpoints (RFC 7644 §4, RFC 7643 §5–7): what this service provider does, Users and Groups. */

const SPC_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig';
const RESOURCE_TYPE_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:ResourceType';

const list = (resources: unknown[]) => ({ schemas: [LIST_RESPONSE], totalResults: resources.length, Resources: resources, startIndex: 1, itemsPerPage: resources.length });

export const serviceProviderConfig: RequestHandler = (req, res) => {
	const base = scimBase(req);
	sendScim(res, 200, {
		schemas: [SPC_SCHEMA],
		documentationUri: 'https://github.com/n8n-nodes-lms/n8n-nodes-lms/blob/main/docs/provisioning.md',
		patch: { supported: true },
		bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
		filter: { supported: true, maxResults: MAX_RESULTS },
		changePassword: { supported: false },
		sort: { supported: false },
		etag: { supported: true },
		authenticationSchemes: [
			{
				type: 'oauthbearertoken',
				name: 'OAuth Bearer Token',
				description: 'An LMS API key with the read:users and write:users scopes, sent as "Authorization: Bearer lms_…".',
				specUri: 'https://www.rfc-editor.org/rfc/rfc6750',
				primary: true,
			},
		],
		meta: { resourceType: 'ServiceProviderConfig', location: `${base}/ServiceProviderConfig` },
	});
};

const TYPES = {
	User: {
		endpoint: '/Users',
		description: 'A person in the organization (an LMS user).',
		schema: USER_SCHEMA,
		// RFC 7643 §6: the enterprise extension is offered, never required.
		schemaExtensions: [{ schema: ENTERPRISE_SCHEMA, required: false }],
	},
	Group: {
		endpoint: '/Groups',
		description: 'A group of the organization (an LMS group): its members are users; its assignments enroll them.',
		schema: GROUP_SCHEMA,
		schemaExtensions: [],
	},
};

function resourceTypeOf(base: string, id: keyof typeof TYPES) {
	return {
		schemas: [RESOURCE_TYPE_SCHEMA],
		id,
		name: id,
		...TYPES[id],
		meta: { resourceType: 'ResourceType', location: `${base}/ResourceTypes/${id}` },
	};
}

export const resourceTypes: RequestHandler = (req, res) => sendScim(res, 200, list(['User' as const, 'Group' as const].map((id) => resourceTypeOf(scimBase(req), id))));

export const resourceType: RequestHandler = (req, res) => {
	const id = String(req.params.id);
	if (id !== 'User' && id !== 'Group') throw scimErrors.notFound('resource type (User and Group are offered)');
	sendScim(res, 200, resourceTypeOf(scimBase(req), id));
};

/** The schemas as scimmy describes their definitions: ours for User and its enterprise extension (scim/schema.ts), scimmy's own for Group (RFC 7643 §4.2). */
const DEFINITIONS: Record<string, typeof userDefinition> = {
	[USER_SCHEMA]: userDefinition,
	[ENTERPRISE_SCHEMA]: enterpriseDefinition,
	[GROUP_SCHEMA]: SCIMMY.Schemas.Group.definition,
};

export const schemas: RequestHandler = (req, res) => sendScim(res, 200, list(Object.values(DEFINITIONS).map((d) => d.describe(`${scimBase(req)}/Schemas`))));

export const schema: RequestHandler = (req, res) => {
	const definition = DEFINITIONS[String(req.params.id)];
	if (!definition) throw scimErrors.notFound('schema');
	sendScim(res, 200, definition.describe(`${scimBase(req)}/Schemas`));
};
