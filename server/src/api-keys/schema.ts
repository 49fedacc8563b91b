import { record, timestamp } from '../common/json-schema';
import { KEY_STATUSES, SCOPES } from './model';

const keyId = { type: 'string', pattern: '^key_[A-Za-z0-9]{1,36}$', examples: ['key_9Qm2Lx7Tc4Vb8Nz1'] };
const scopes = { type: 'array', items: { type: 'string', enum: [...SCOPES] }, minItems: 1, uniqueItems: true, description: 'In catalogue order.' };

const currentKey = record(
	{
		id: keyId,
		label: { type: 'string', minLength: 1, maxLength: 100, description: 'What the Super Admin called the key.' },
		scopes,
		grace_until: {
			type: ['string', 'null'],
			format: 'date-time',
			description:
				'Null unless this key was rotated with `expire_old_after` and still works: then when it stops (401 api_key_rotated). Switch to the new key before.',
		},
		organization: record(
			{
				id: { type: 'string', pattern: '^org_[A-Za-z0-9]{1,36}$', examples: ['org_3Kd8Wq1Zp6Rt2Yv9'] },
				name: { type: 'string' },
				slug: { type: 'string' },
			},
			'The organization the key belongs to: the only one whose records it reaches.',
		),
	},
	'The calling API key, never its secret.',
);

// What serializeCurrentKey (./serialize.ts) returns: the OpenAPI document's ApiKey. `expires_at` only
// on a key created with an expiry date, hence outside `required`.
export const currentKeySchema = {
	...currentKey,
	properties: {
		...currentKey.properties,
		expires_at: {
			type: 'string',
			format: 'date-time',
			description: 'When the key stops working (401 api_key_expired), if it was created with an expiry date; absent for a key that never expires.',
		},
	},
};

// What keyJson (./present.ts) returns: a key as `lms-server keys … --json` prints it (docs/operating.md).
// The last three only on the keys that have them, hence outside `required`.
const cliKey = record(
	{
		id: keyId,
		label: { type: 'string', minLength: 1, maxLength: 100 },
		scopes,
		status: { type: 'string', enum: [...KEY_STATUSES], description: 'An expired key keeps `active`: it is refused because of its date.' },
		masked: { type: 'string', pattern: '^lms_[0-9A-Za-z]{4}…[0-9A-Za-z]{4}$', description: 'The first 8 and last 4 characters: enough to tell keys apart.' },
		created_at: timestamp,
	},
	'An API key as the CLI prints it with --json.',
);
export const cliKeySchema = {
	...cliKey,
	properties: {
		...cliKey.properties,
		expires_at: { ...timestamp, description: 'Only on a key created with an expiry date.' },
		grace_until: { ...timestamp, description: 'Only on a rotated key still working: when it stops.' },
		key: { type: 'string', pattern: '^lms_[0-9A-Za-z]{38}$', description: 'The secret: only from `keys create` and `keys rotate` (the new key).' },
	},
};
