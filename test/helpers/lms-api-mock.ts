/** nock stand-ins for the LMS API, shaped like the real server's answers (SPEC §3, §4). */
import nock from 'nock';

export const ORIGIN = 'http://lms.test';
export const API_KEY = 'lms_TestKeyTestKeyTestKeyTestKey12abcdef';
export const credentials = { baseUrl: ORIGIN, apiKey: API_KEY };

/** Only requests that carry the key as a Bearer token match. */
export function lmsApi() {
	return nock(ORIGIN, { reqheaders: { authorization: `Bearer ${API_KEY}` } });
}

export function listPage(
	records: Array<Record<string, unknown>>,
	page: number,
	perPage: number,
	total: number,
) {
	return { data: records, pagination: { page, per_page: perPage, total } };
}

/** `count` fake users numbered from `first` (1-based), as the API lists them. */
export function users(first: number, count: number) {
	return Array.from({ length: count }, (_, index) => ({
		id: `usr_${first + index}`,
		name: `User ${first + index}`,
		email: `user${first + index}@example.com`,
		role: 'student',
		created_at: '2025-01-01T00:00:00.000Z',
	}));
}

/** A reply tuple for nock: problem+json with the server's fields. */
export function problem(
	status: number,
	code: string,
	detail: string,
	extra: Record<string, unknown> = {},
	headers: Record<string, string> = {},
): [number, Record<string, unknown>, Record<string, string>] {
	return [
		status,
		{
			type: `https://lms.example/problems/${code}`,
			title: code,
			status,
			detail,
			code,
			request_id: 'req_test123',
			...extra,
		},
		{ 'Content-Type': 'application/problem+json', ...headers },
	];
}
