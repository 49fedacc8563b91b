import type {
	IAuthenticateGeneric,
	ICredentialType,
	Icon,
	INodeProperties,
} from 'n8n-workflow';

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

	// Tested by every LMS node's `lmsApiTest` (nodes/shared/credential-test.ts), not by a declarative
	// `test`: only code can tell an LMS's answer from any other server's.
}
