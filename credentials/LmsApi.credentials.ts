import type {
	IAuthenticateGeneric,
	ICredentialTestRequest,
	ICredentialType,
	Icon,
	INodeProperties,
} from 'n8n-workflow';

/** n8n shows this message when the test request gets a problem with this `code`. */
function failsWith(code: string, message: string) {
	return { type: 'responseSuccessBody' as const, properties: { key: 'code', value: code, message } };
}

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
				'A key created by a Super Admin in the LMS under Settings → API Keys. It is shown only once, when created or rotated. Give it the scopes the workflows need: read:users, read:courses, read:enrollments (also covers certificates), write:enrollments.',
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
	 * The test must pass for any working key whatever its scopes, yet no endpoint is open to
	 * every scope. So it reads one user and judges the answer by its problem `code` instead of
	 * its HTTP status: a key without read:users gets 403 `insufficient_scope`, which proves the
	 * key itself is good, while codes that mean the key cannot work fail the test. The rules can
	 * only carry fixed messages: for an invalid, revoked or rotated key they are the server's own
	 * `detail` sentences (test/nodes/e2e.test.ts compares them with the live server's), the others
	 * say what the code means and what to do.
	 */
	test: ICredentialTestRequest = {
		request: {
			baseURL:
				"={{ String($credentials.baseUrl).trim().replace(/\\/+$/, '').replace(/\\/api\\/v1$/i, '').replace(/\\/+$/, '') }}/api/v1",
			url: '/users',
			method: 'GET',
			qs: { per_page: 1 },
			json: true,
			ignoreHttpStatusErrors: true,
		},
		rules: [
			failsWith(
				'missing_api_key',
				'The LMS received no API key (missing_api_key): paste the key into the API Key field',
			),
			failsWith(
				'invalid_api_key',
				'The API key is not valid. Check that it was copied whole, or ask a Super Admin for a new key in Settings → API Keys. (invalid_api_key)',
			),
			failsWith(
				'api_key_revoked',
				'This API key was revoked and no longer works. Ask a Super Admin to create a new key in Settings → API Keys. (api_key_revoked)',
			),
			failsWith(
				'api_key_rotated',
				'This API key was rotated and replaced by a new one. Use the new key shown when it was rotated. (api_key_rotated)',
			),
			failsWith(
				'plan_required',
				"The LMS API needs the Enterprise plan (plan_required): the key's organization is not on it",
			),
			failsWith(
				'rate_limited',
				'The LMS is rate limiting this IP address (rate_limited): wait a minute and test again',
			),
			failsWith(
				'not_found',
				'No LMS API answers at this address (not_found): check the Base URL, without any path after it',
			),
			failsWith(
				'internal_error',
				'The LMS failed to answer (internal_error): try again, or ask the LMS operator',
			),
		],
	};
}
