import { record } from '../common/json-schema';

// The `pagination` of every list listEndpoint (./list.ts) answers: the OpenAPI document's Pagination.
export const paginationSchema = record(
	{
		page: { type: 'integer', minimum: 1 },
		per_page: { type: 'integer', minimum: 1, maximum: 100 },
		total: { type: 'integer', minimum: 0, description: 'Records matching the filters, across all pages.' },
	},
	'Where this page sits in the whole list.',
);

/** What listEndpoint (./list.ts) answers for a list of `item` (a schema of the document): `{ data, pagination }`. */
export function listSchema(item: string) {
	return record(
		{ data: { type: 'array', items: { $ref: `#/components/schemas/${item}` } }, pagination: { $ref: '#/components/schemas/Pagination' } },
		`A page of ${item} records.`,
	);
}
