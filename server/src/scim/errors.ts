import type { RequestHandler, Response } from 'express';
import SCIMMY from 'scimmy';

import type { Problem } from '../common/problem';
import { errorHandlerOf, knownProblem } from '../http/errors';

const ERROR_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:Error';
const SCIM_JSON = 'application/scim+json; charset=utf-8';

/** RFC 7644 §3.12's detail keywords. */
export type ScimType = 'uniqueness' | 'tooMany' | 'invalidFilter' | 'mutability' | 'invalidSyntax' | 'invalidPath' | 'noTarget' | 'invalidValue' | 'invalidVers' | 'sensitive';

/** A refusal answered in SCIM's error schema (thrown by the SCIM operations, like Problem by the API's). */
export class ScimError extends Error {
	constructor(
		readonly status: number,
		readonly scimType: ScimType | undefined,
		readonly detail: string,
		readonly headers: Record<string, string> = {},
	) {
		super(detail);
		this.name = 'ScimError';
	}
}

export const scimErrors = {
	notFound: (what = 'resource') => new ScimError(404, undefined, `No ${what} exists at this address. Check the path and the id.`),
	invalidValue: (detail: string) => new ScimError(400, 'invalidValue', detail),
	invalidFilter: (detail: string) => new ScimError(400, 'invalidFilter', detail),
	invalidSyntax: (detail: string) => new ScimError(400, 'invalidSyntax', detail),
	invalidPath: (detail: string) => new ScimError(400, 'invalidPath', detail),
	preconditionFailed: () =>
		new ScimError(412, undefined, 'The user changed since you read it (If-Match does not match its ETag). Read it again and retry with the new version.'),
};

/** The API's problem codes that SCIM names with a detail keyword. */
const SCIM_TYPES: Record<string, ScimType> = {
	malformed_json: 'invalidSyntax',
	invalid_request: 'invalidValue',
	invalid_email: 'invalidValue',
	invalid_name: 'invalidValue',
	invalid_external_id: 'invalidValue',
	email_taken: 'uniqueness',
	username_taken: 'uniqueness',
	external_id_taken: 'uniqueness',
	group_name_taken: 'uniqueness',
	invalid_description: 'invalidValue',
	too_many_members: 'invalidValue',
};

/** A 409 names who holds the value on /api/v1 (`user_id`); a SCIM client reads only the sentence. */
function fromProblem(problem: Problem): ScimError {
	const userId = problem.extra.user_id;
	const groupId = problem.extra.group_id;
	const detail =
		typeof userId === 'string' && problem.status === 409
			? `${problem.detail.replace(/ See \/api\/v1\/users\/\S+$/, '')} It is user ${userId} (/scim/v2/Users/${userId}).`
			: typeof groupId === 'string' && problem.status === 409
				? `${problem.detail.replace(/ See \/api\/v1\/groups\/\S+$/, '')} It is group ${groupId} (/scim/v2/Groups/${groupId}).`
				: problem.detail;
	return new ScimError(problem.status, SCIM_TYPES[problem.code], detail, problem.headers);
}

/**
 * What any error on /scim/v2 answers, in SCIM's error schema: our own ScimErrors; scimmy's
 * (a filter or PATCH it refused, with its detail keyword); the API's problems and broken rules
 * (authentication, scope, rate limit, a taken e-mail, a body that cannot be read) with their
 * status and sentence; anything else is a bug, answered 500 with nothing from inside.
 */
function scimErrorOf(err: unknown): ScimError | undefined {
	if (err instanceof ScimError) return err;
	if (err instanceof SCIMMY.Types.Error) {
		const e = err;
		return new ScimError(e.status, e.scimType as ScimType | undefined, e.message);
	}
	const problem = knownProblem(err);
	return problem && problem.status < 500 ? fromProblem(problem) : problem ? new ScimError(problem.status, undefined, problem.detail, problem.headers) : undefined;
}

export function sendScim(res: Response, status: number, body: unknown, headers: Record<string, string> = {}): void {
	const text = Buffer.from(JSON.stringify(body));
	res.status(status);
	for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
	res.setHeader('Content-Type', SCIM_JSON);
	res.setHeader('Content-Length', text.length);
	res.setHeader('Cache-Control', 'no-store');
	res.end(res.req.method === 'HEAD' ? undefined : text);
}

function sendScimError(res: Response, error: ScimError): void {
	const body = { schemas: [ERROR_SCHEMA], status: String(error.status), ...(error.scimType ? { scimType: error.scimType } : {}), detail: error.detail };
	sendScim(res, error.status, body, error.headers);
}

/** Every error under /scim/v2, mounted there ahead of the API's problem+json handler. */
export const scimErrorHandler = errorHandlerOf(
	scimErrorOf,
	() => new ScimError(500, undefined, 'Something went wrong on our side. Try again; if it persists, report the X-Request-Id to the operator.'),
	sendScimError,
);

/** An unknown path under /scim/v2. */
export const scimNotFound: RequestHandler = (_req, _res, next) => next(scimErrors.notFound('endpoint'));

export function methodNotAllowed(allow: string[]): RequestHandler {
	return (_req, _res, next) => next(new ScimError(405, undefined, `This path accepts ${allow.join(', ')} only.`, { Allow: allow.join(', ') }));
}

export function notImplemented(what: string): RequestHandler {
	return (_req, _res, next) => next(new ScimError(501, undefined, `${what} is not implemented: the caller is an API key, not a user. Read the user at /scim/v2/Users/{id}.`));
}
