import type {
	IDataObject,
	IExecuteFunctions,
	INodeProperties,
	INodeParameterResourceLocator,
	IPollFunctions,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { lmsApiRequest } from './transport';
import type { LmsList } from './types';

/**
 * Resource locators (n8n's "From list / By ID / By Email" pickers) for every LMS record, and the
 * one function that turns a picked value into a record ID. Every version-2 node and the trigger
 * build their pickers here, so a record is picked, validated and resolved the same way
 * everywhere. The list modes call the methods of list-search.ts: register them with
 * `methods: { listSearch: lmsListSearch }`.
 */

export type LmsRecordKind = 'user' | 'student' | 'course' | 'enrollment' | 'certificate' | 'group';

interface KindInfo {
	/** The API's ID prefix. */
	prefix: string;
	/** As a person calls the record in a sentence. */
	label: string;
	/** The listSearch method of list-search.ts behind the From list mode. */
	searchListMethod: string;
	searchable: boolean;
	/** The server's ID shape (server/src/common/id-shapes.ts): prefix, then 1–36 letters and digits. */
	pattern: string;
	/** Collection path under /api/v1. */
	endpoint: string;
}

export const LMS_RECORD_KINDS: Record<LmsRecordKind, KindInfo> = {
	user: { prefix: 'usr_', label: 'user', searchListMethod: 'searchUsers', searchable: true, pattern: '^usr_[A-Za-z0-9]{1,36}$', endpoint: '/users' },
	student: { prefix: 'usr_', label: 'student', searchListMethod: 'searchStudents', searchable: true, pattern: '^usr_[A-Za-z0-9]{1,36}$', endpoint: '/users' },
	course: { prefix: 'crs_', label: 'course', searchListMethod: 'searchCourses', searchable: true, pattern: '^crs_[A-Za-z0-9]{1,36}$', endpoint: '/courses' },
	enrollment: { prefix: 'enr_', label: 'enrollment', searchListMethod: 'searchEnrollments', searchable: true, pattern: '^enr_[A-Za-z0-9]{1,36}$', endpoint: '/enrollments' },
	certificate: { prefix: 'cert_', label: 'certificate', searchListMethod: 'searchCertificates', searchable: true, pattern: '^cert_[A-Za-z0-9]{1,35}$', endpoint: '/certificates' },
	group: { prefix: 'grp_', label: 'group', searchListMethod: 'searchGroups', searchable: true, pattern: '^grp_[A-Za-z0-9]{1,36}$', endpoint: '/groups' },
};

const EMAIL_PATTERN = '^[^\\s@]+@[^\\s@]+$';

export interface LocatorOptions {
	displayName: string;
	name: string;
	/** What an AI agent and a person read: which record, and what it is used for. */
	description: string;
	required?: boolean;
}


/**
 * A resource locator for one record. Users and students also have By Email (resolved with
 * `users?email=`), groups By Name and By External ID. Default mode From list, as in n8n's own nodes.
 */
export function lmsLocator(kind: LmsRecordKind, options: LocatorOptions): INodeProperties {
	const info = LMS_RECORD_KINDS[kind];
	const byEmail = kind === 'user' || kind === 'student';
	// The modes are written inside the property, as n8n's lint expects them (a mode has no default).
	const property: INodeProperties = {
		displayName: options.displayName,
		name: options.name,
		type: 'resourceLocator',
		default: { mode: 'list', value: '' },
		required: options.required ?? false,
		description: options.description,
		modes: [
			{
				displayName: 'From List',
				name: 'list',
				type: 'list',
				placeholder: info.searchable ? `Select a ${info.label}…` : `Select an ${info.label}…`,
				typeOptions: { searchListMethod: info.searchListMethod, searchable: info.searchable },
			},
			{
				displayName: 'By ID',
				name: 'id',
				type: 'string',
				placeholder: `${info.prefix}…`,
				validation: [
					{
						type: 'regex',
						properties: {
							regex: info.pattern,
							errorMessage: `Not an LMS ${info.label} ID: it starts with ${info.prefix} followed by letters and digits`,
						},
					},
				],
			},
			{
				displayName: 'By Email',
				name: 'email',
				type: 'string',
				placeholder: 'name@example.com',
				validation: [{ type: 'regex', properties: { regex: EMAIL_PATTERN, errorMessage: 'Not an email address' } }],
			},
			// Groups are also found by the name an HR system's department field gives (exact, any
			// case) and by the identity provider's id: `groups?name=` and `groups?external_id=`.
			{ displayName: 'By Name', name: 'name', type: 'string', placeholder: 'e.g. Sales' },
			{ displayName: 'By External ID', name: 'externalId', type: 'string', placeholder: 'e.g. 00g1abcd' },
		],
	};
	// Only users (and students) have an email to look up, only groups a name and an external ID.
	property.modes = property.modes!.filter((mode) =>
		mode.name === 'email' ? byEmail : mode.name === 'name' || mode.name === 'externalId' ? kind === 'group' : true,
	);
	return property;
}

function isLocator(value: unknown): value is INodeParameterResourceLocator {
	return typeof value === 'object' && value !== null && 'value' in value;
}

type LocatorFunctions = IExecuteFunctions | IPollFunctions;

/**
 * A resource locator's value (or a plain string, as older parameters and expressions give) as a
 * record ID: By Email looks the user up; every ID is checked against the server's shape first so
 * a wrong paste fails here with what to fix instead of as a 404. Empty gives undefined.
 */
export async function locatorId(
	this: LocatorFunctions,
	kind: LmsRecordKind,
	value: unknown,
	label: string,
	itemIndex?: number,
): Promise<string | undefined> {
	const info = LMS_RECORD_KINDS[kind];
	const mode = isLocator(value) ? String(value.mode ?? 'id') : 'id';
	const raw = isLocator(value) ? value.value : value;
	const text = raw === undefined || raw === null ? '' : String(raw).trim();
	if (text === '') return undefined;

	if (mode === 'email') return await userIdByEmail.call(this, text, label, itemIndex);
	if (kind === 'group' && (mode === 'name' || mode === 'externalId')) return await groupIdBy.call(this, mode, text, label, itemIndex);
	if (!new RegExp(info.pattern).test(text)) {
		throw new NodeOperationError(this.getNode(), `${label} "${text}" is not an LMS ${info.label} ID`, {
			itemIndex,
			description: `An LMS ${info.label} ID starts with ${info.prefix} followed by letters and digits. Pick the ${info.label} From List${info.searchable ? ' (type to search)' : ''}, or map the "id" field of an earlier LMS node.`,
		});
	}
	return text;
}

/** locatorId for a parameter that must be set. */
export async function requiredLocatorId(
	this: IExecuteFunctions,
	kind: LmsRecordKind,
	parameterName: string,
	label: string,
	itemIndex: number,
): Promise<string> {
	const value = this.getNodeParameter(parameterName, itemIndex, undefined, { extractValue: false });
	const id = await locatorId.call(this, kind, value, label, itemIndex);
	if (id === undefined) {
		throw new NodeOperationError(this.getNode(), `${label} is empty`, {
			itemIndex,
			description: `Pick the ${LMS_RECORD_KINDS[kind].label} From List, enter its ID, or map it from an earlier node with an expression`,
		});
	}
	return id;
}

/** By Email found nobody: a NodeOperationError that a Get can recognise and let pass (If No User Matches). */
export class NoUserWithEmailError extends NodeOperationError {}

/** The one user with this email address (`users?email=`, exact and not case-sensitive). */
async function userIdByEmail(this: LocatorFunctions, email: string, label: string, itemIndex?: number): Promise<string> {
	const list = (await lmsApiRequest.call(this, {
		method: 'GET',
		endpoint: '/users',
		qs: { email, per_page: 1 },
		itemIndex,
	})) as unknown as LmsList;
	const user = Array.isArray(list?.data) ? (list.data[0] as IDataObject | undefined) : undefined;
	if (!user || typeof user.id !== 'string') {
		throw new NoUserWithEmailError(this.getNode(), `No LMS user has the email address ${email}`, {
			itemIndex,
			description: `${label} is set By Email, and the LMS organization of this credential has no user with that address. Check the spelling, or create the user in the LMS first (the lookup ignores case).`,
		});
	}
	return user.id;
}

/** The one group with this name (exact, any case) or external ID. */
async function groupIdBy(this: LocatorFunctions, mode: 'name' | 'externalId', text: string, label: string, itemIndex?: number): Promise<string> {
	const list = (await lmsApiRequest.call(this, {
		method: 'GET',
		endpoint: '/groups',
		qs: { [mode === 'name' ? 'name' : 'external_id']: text, per_page: 1 },
		itemIndex,
	})) as unknown as LmsList;
	const group = Array.isArray(list?.data) ? (list.data[0] as IDataObject | undefined) : undefined;
	if (!group || typeof group.id !== 'string') {
		const what = mode === 'name' ? `is named "${text}"` : `has the external ID "${text}"`;
		throw new NodeOperationError(this.getNode(), `No LMS group ${what}`, {
			itemIndex,
			description: `${label} is set ${mode === 'name' ? 'By Name' : 'By External ID'}, and the LMS organization of this credential has no such group. Check the spelling${mode === 'name' ? ' (names match in any case)' : ''}, or create the group first (LMS Groups → Create).`,
		});
	}
	return group.id;
}
