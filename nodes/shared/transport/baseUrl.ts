/**
 * The credential asks for the LMS's address, but people paste what they have at hand: with a
 * trailing slash, or the full API address copied from the docs. Both must work, so a trailing
 * slash and a trailing `/api/v1` are dropped and `/api/v1` is added exactly once. A sub-path (an
 * LMS served under https://example.com/lms) is kept.
 *
 * Returns undefined when the value is not an http(s) address, so the caller can say so. The
 * credential's declarative test (credentials/LmsApi.credentials.ts) cleans it the same way.
 */
export function lmsApiBaseUrl(baseUrl: unknown): string | undefined {
	const address = String(baseUrl ?? '')
		.trim()
		.replace(/\/+$/, '')
		.replace(/\/api\/v1$/i, '')
		.replace(/\/+$/, '');
	if (!/^https?:\/\/[^/\s]+/i.test(address)) return undefined;
	return `${address}/api/v1`;
}
