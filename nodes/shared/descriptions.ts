import type { INodeProperties } from 'n8n-workflow';

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

/** A required record ID with the API's prefix as the placeholder. */
export function idField(options: {
	displayName: string;
	name: string;
	prefix: string;
	description: string;
}): INodeProperties {
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

/** Drops unset filters: the LMS rejects empty query parameters. */
export function filterQuery(filters: Record<string, unknown>): Record<string, string> {
	const query: Record<string, string> = {};
	for (const [name, value] of Object.entries(filters)) {
		const text = typeof value === 'string' ? value.trim() : value;
		if (text !== undefined && text !== null && text !== '') query[name] = String(text);
	}
	return query;
}
