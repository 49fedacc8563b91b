import type { RequestHandler } from 'express';

import { scimErrors, sendScim } from './errors';
import { MAX_RESULTS } from './list';
import { scimBase } from './resource';
import { LIST_RESPONSE, USER_SCHEMA, userDefinition } from './schema';

/**
 * The discovery endpoints (RFC 7644 §4, RFC 7643 §5–7): what this service provider does. Users
 * only: Groups are not offered (no resource type, and /Groups answers 404).
 */

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

function userType(base: string) {
	return {
		schemas: [RESOURCE_TYPE_SCHEMA],
		id: 'User',
		name: 'User',
		endpoint: '/Users',
		description: 'A person in the organization (an LMS user). Groups are not offered.',
		schema: USER_SCHEMA,
		schemaExtensions: [],
		meta: { resourceType: 'ResourceType', location: `${base}/ResourceTypes/User` },
	};
}

export const resourceTypes: RequestHandler = (req, res) => sendScim(res, 200, list([userType(scimBase(req))]));

export const resourceType: RequestHandler = (req, res) => {
	if (req.params.id !== 'User') throw scimErrors.notFound('resource type (Users only; Groups are not offered)');
	sendScim(res, 200, userType(scimBase(req)));
};

/** The User schema as scimmy describes its definition (scim/schema.ts). */
const userSchema = (base: string) => userDefinition.describe(`${base}/Schemas`);

export const schemas: RequestHandler = (req, res) => sendScim(res, 200, list([userSchema(scimBase(req))]));

export const schema: RequestHandler = (req, res) => {
	if (req.params.id !== USER_SCHEMA) throw scimErrors.notFound('schema');
	sendScim(res, 200, userSchema(scimBase(req)));
};
