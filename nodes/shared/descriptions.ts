import type { IDataObject, INodeProperties, INodePropertyOptions } from 'n8n-workflow';

/** Return All / Limit, worded the way n8n's own nodes word them. */
export function returnAllAndLimit(pluralLabel: string): INodeProperties[] {
	return [
		{
			displayName: 'Return All',
			name: 'returnAll',
			type: 'boolean',
			default: false,
			description: 'Whether to return all results or only up to a given limit',
			hint: `Fetches every page of ${pluralLabel}, 100 at a time, waiting when the LMS rate limit is reached`,
		},
		{
			displayName: 'Limit',
			name: 'limit',
			type: 'number',
			typeOptions: { minValue: 1 },
			default: 50,
			description: 'Max number of results to return',
			displayOptions: { show: { returnAll: [false] } },
		},
	];
}

export interface IdFieldOptions {
	displayName: string;
	name: string;
	/** The API's ID prefix, such as `usr_`. */
	prefix: string;
	description: string;
}

/** A required record ID with the API's prefix as the placeholder. */
export function idField(options: IdFieldOptions): INodeProperties {
	return {
		displayName: options.displayName,
		name: options.name,
		type: 'string',
		required: true,
		default: '',
		placeholder: `${options.prefix}…`,
		description: options.description,
	};
}

/** The Filters collection of a Get Many operation or of the trigger; keep `options` sorted by name. */
export function filtersCollection(options: INodeProperties[], description?: string): INodeProperties {
	return {
		displayName: 'Filters',
		name: 'filters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		// Version 2 describes it for AI agents; version 1's description stays as it shipped (none).
		...(description ? { description } : {}),
		options,
	};
}

/** Version 2's description of the Filters collection. */
export const FILTERS_DESCRIPTION = 'Optional conditions the records must all meet; leave out the ones that do not matter';

/** A record ID filter, with the API's prefix as the placeholder. */
function idFilter(displayName: string, name: string, prefix: string, description: string): INodeProperties {
	return { displayName, name, type: 'string', placeholder: `${prefix}…`, default: '', description };
}

/** The Course ID filter (query parameter `course_id`). */
export function courseIdFilter(description: string): INodeProperties {
	return idFilter('Course ID', 'courseId', 'crs_', description);
}

/** The Student ID filter (query parameter `student_id`). */
export function studentIdFilter(description: string): INodeProperties {
	return idFilter('Student ID', 'studentId', 'usr_', description);
}

/** The Role filter (query parameter `role`), with the LMS's roles. */
export function roleFilter(description: string): INodeProperties {
	return {
		displayName: 'Role',
		name: 'role',
		type: 'options',
		default: 'student',
		description,
		options: [
			{ name: 'Admin', value: 'admin' },
			{ name: 'Instructor', value: 'instructor' },
			{ name: 'Student', value: 'student' },
			{ name: 'Super Admin', value: 'super_admin' },
		],
	};
}

/** For each list query parameter, the name of the filter in the Filters collection it comes from. */
export type FilterMap = Record<string, string>;

/**
 * The Filters collection as list query parameters, in the order of `map`. Unset filters are
 * dropped: the LMS rejects empty query parameters.
 */
export function filterQuery(filters: IDataObject, map: FilterMap): Record<string, string> {
	const query: Record<string, string> = {};
	for (const [queryName, filterName] of Object.entries(map)) {
		const value = filters[filterName];
		const text = typeof value === 'string' ? value.trim() : value;
		if (text !== undefined && text !== null && text !== '') query[queryName] = String(text);
	}
	return query;
}

/** The Search filter (query parameter `search`, SPEC §13: 1–100 characters, a prefix of a word). */
export function searchFilter(description: string): INodeProperties {
	return {
		displayName: 'Search',
		name: 'search',
		type: 'string',
		placeholder: 'e.g. ali',
		default: '',
		description,
	};
}

/** The Operation selector; keep `options` sorted by name, each with an `action` an AI agent reads. */
export function operationSelector(options: INodePropertyOptions[]): INodeProperties {
	return {
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		options,
		default: 'getAll',
	};
}

/** The Email filter of LMS Users (query parameter `email`: exact, not case-sensitive). */
export function emailFilter(description: string): INodeProperties {
	return {
		displayName: 'Email',
		name: 'email',
		type: 'string',
		placeholder: 'name@email.com',
		default: '',
		description,
	};
}
