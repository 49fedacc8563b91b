import type {
	IAuthenticateGeneric,
	ICredentialTestRequest,
	ICredentialType,
	Icon,
	INodeProperties,
} from 'n8n-workflow';

const CHECK_BASE_URL =
	"Check the credential's Base URL: it must be the LMS's own address, e.g. https://lms.example.com";

/** An LMS answers an unknown path before it looks at the key: a Base URL with a path after the LMS's address. */
const EXTRA_PATH =
	"No LMS API at this Base URL: it must be the LMS's own address with nothing after it (remove a path such as /api, /api/v2 or /lms), e.g. https://lms.example.com";

/** The test fails with this sentence when the answer has the LMS's `code`, in rule order. */
const REFUSALS: Array<[code: string, message: string]> = [
	['missing_api_key', 'The LMS received no API key: paste the key into the API Key field.'],
	// The LMS's own sentences for a key that cannot work (server/src/common/problem.ts; a test
	// keeps them equal).
	['invalid_api_key', 'The API key is not valid. Check that it was copied whole, or ask a Super Admin for a new key in Settings → API Keys.'],
	['api_key_revoked', 'This API key was revoked and no longer works. Ask a Super Admin to create a new key in Settings → API Keys.'],
	['api_key_rotated', 'This API key was rotated and replaced by a new one. Use the new key shown when it was rotated.'],
	['api_key_expired', 'This API key passed the expiry date set when it was created and no longer works. Ask a Super Admin to create a new key in Settings → API Keys.'],
	['plan_required', 'The REST API is available on the Enterprise plan only. Upgrade the organization to use its API keys.'],
	['rate_limited', 'The LMS is rate limiting this IP address (100 requests a minute): wait a minute and test again.'],
	['rate_limit_unavailable', 'The LMS could not answer right now: test again in a minute, or ask its operator.'],
	['not_ready', 'The LMS could not answer right now: test again in a minute, or ask its operator.'],
	['internal_error', 'The LMS could not answer right now: test again in a minute, or ask its operator.'],
];

export class LmsApi implements ICredentialType {
	name = 'lmsApi';

	displayName = 'LMS API';

	icon: Icon = { light: 'file:../icons/lms.svg', dark: 'file:../icons/lms.dark.svg' };

	documentationUrl = 'https://github.com/n8n-nodes-lms/n8n-nodes-lms/blob/main/docs/credentials.md';

	properties: INodeProperties[] = [
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'https://lms.example.com',
			description:
				'The address of your LMS, starting with https:// (or http://). The nodes add /api/v1 themselves; a trailing slash or a pasted /api/v1 is fine.',
		},
		{
			displayName: 'API Key',
			name: 'apiKey',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			placeholder: 'lms_…',
			description:
				'A key created by a Super Admin in the LMS under Settings → API Keys. It is shown only once, when created or rotated. Give it the scopes the workflows need: read:users, read:courses, read:enrollments (also covers certificates and the completion report), write:enrollments, write:users (creating, changing and deactivating people), manage:webhooks (the LMS Instant Trigger).',
		},
	];

	authenticate: IAuthenticateGeneric = {
		type: 'generic',
		properties: {
			headers: {
				// Keys are often pasted with a stray space or newline; the LMS would call that invalid.
				Authorization: '={{ "Bearer " + String($credentials.apiKey).trim() }}',
			},
		},
	};

	/**
	 * Declarative, as n8n's verification requires (its scanner refuses `helpers.request`, the only
	 * HTTP helper n8n gives a test function). It asks the LMS who the key is (`GET /api/v1/key`, SPEC
	 * §19, any valid key, no scope needed), so it passes only on an authenticated answer: the key's
	 * `id`, `scopes` and organization. Any LMS code fails it with a sentence that says what to do
	 * (`not_found`: a path after the LMS's address, answered before the key is looked at); an answer
	 * without the key's fields — a web page, another API, a bare 404 — is not an LMS. The Base URL is
	 * cleaned as the nodes clean it (nodes/shared/transport/baseUrl.ts): a trailing slash or pasted
	 * /api/v1 is fine.
	 */
	test: ICredentialTestRequest = {
		request: {
			baseURL:
				'={{ String($credentials.baseUrl).trim().replace(/\\/+$/, "").replace(/\\/api\\/v1$/i, "").replace(/\\/+$/, "") }}/api/v1',
			url: '/key',
			ignoreHttpStatusErrors: true,
		},
		rules: [
			...REFUSALS.map(([code, message]) => ({
				type: 'responseSuccessBody' as const,
				properties: { key: 'code', value: code, message },
			})),
			{ type: 'responseSuccessBody', properties: { key: 'code', value: 'not_found', message: EXTRA_PATH } },
			// Only the LMS's answer about the key itself passes.
			...['id', 'scopes', 'organization.id'].map((key) => ({
				type: 'responseSuccessBody' as const,
				properties: { key, value: undefined, message: `Something other than the LMS API answers there. ${CHECK_BASE_URL}` },
			})),
		],
	};
}
