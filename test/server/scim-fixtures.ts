import { call, type CallOptions, type Reply } from './api-fixtures';
import type { TestServer } from '../helpers/server';

/** Calls for the SCIM suites: bodies go as application/scim+json unless the test says otherwise. */

const ERROR = 'urn:ietf:params:scim:api:messages:2.0:Error';
export const LIST = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';
export const USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
export const GROUP = 'urn:ietf:params:scim:schemas:core:2.0:Group';
export const ENTERPRISE = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
export const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';

export function scim(server: Pick<TestServer, 'baseUrl'>, path: string, options: CallOptions = {}): Promise<Reply> {
	const headers = { ...options.headers };
	if (options.body !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) headers['content-type'] = 'application/scim+json';
	return call(server, `/scim/v2${path}`, { ...options, headers });
}

/** RFC 7644 §3.12: the error schema, `status` as a string, a detail, the SCIM media type; nothing from inside. */
export function expectScimError(reply: Reply, status: number, scimType?: string): void {
	expect({ status: reply.status, scimType: reply.body?.scimType }).toEqual({ status, scimType });
	expect(reply.headers.get('content-type')).toBe('application/scim+json; charset=utf-8');
	expect(reply.body).toEqual({ schemas: [ERROR], status: String(status), detail: expect.any(String), ...(scimType ? { scimType } : {}) });
	expect(reply.body.detail.length).toBeGreaterThan(10);
	expect(reply.text).not.toMatch(/\bat .+\.(ts|js):\d+|SELECT |INSERT |lms_[0-9A-Za-z]{38}|problem\+json/);
}

/** A User resource as RFC 7643 §4.1 and our mapping say it must look. */
export function expectUserResource(body: Record<string, unknown>, base: string): void {
	expect(body).toMatchObject({
		schemas: expect.arrayContaining([USER]),
		id: expect.stringMatching(/^usr_/),
		userName: expect.any(String),
		active: expect.any(Boolean),
		meta: {
			resourceType: 'User',
			created: expect.stringMatching(/Z$/),
			lastModified: expect.stringMatching(/Z$/),
			location: `${base}/scim/v2/Users/${body.id as string}`,
			version: expect.stringMatching(/^W\/"\d+"$/),
		},
	});
	// The one e-mail the LMS keeps, apart from userName (SPEC §21).
	expect(body.emails).toEqual([{ value: expect.stringContaining('@'), type: 'work', primary: true }]);
}
