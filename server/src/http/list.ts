import type { Request, RequestHandler } from 'express';
import Joi from 'joi';

import { countedTotal, type Counter } from '../db/list-counts';
import { countRows, newestFirstOf, readPage, type Expansion, type PageRequest, type Table } from '../db/table';
import { Where } from '../db/where';
import type { SearchRead } from '../search/pages';
import type { Caller } from '../api-keys/authenticate';
import { problems } from '../common/problem';
import { callerOf } from './auth';
import { publicOrigin } from './public-url';
import { integerParam, parseQuery, type QuerySchema } from './validate';

/**
 * Every list endpoint: the same query rules, envelope, order and Link header. A list only
 * says which table (its component's queries.ts), which filters and how to show a row; the SQL
 * is made in db/table.ts.
 */

const DEFAULT_PER_PAGE = 50;
const MAX_PER_PAGE = 100;
/** The largest page number any list takes (a 32-bit integer, what OFFSET arithmetic stays safe with). */
export const MAX_PAGE = 2_147_483_647;

export interface ListDefinition<R, F extends Record<string, string>> {
	table: Table<R>;
	/** Joi schemas of the filters this list accepts, by query parameter name. */
	filters: { [K in keyof F]-?: Joi.Schema };
	/**
	 * Adds the filters' conditions (and the path's, `params`; the calling key's, `caller`); the
	 * organization scope is already in `where`.
	 */
	where(where: Where, filters: Partial<F>, organizationId: string, params: Record<string, string>, caller: Caller): void;
	/** A row as the API shows it; `caller` for what only some keys may see. */
	serialize(row: R, caller: Caller): object;
	/**
	 * The counter that holds this list's total with these filters (db/list-counts.ts), or
	 * undefined for a filter no counter covers (a student, an e-mail, a search, a date window:
	 * those are counted through their index, which only reads the matching rows).
	 */
	counter?(filters: Partial<F>): Counter | undefined;
	/**
	 * Whether the organization scope is left to `where` (a search scopes through its index and
	 * checks the record's organization in a way that keeps the planner off the list-order index).
	 */
	scopesItself?(filters: Partial<F>): boolean;
	/**
	 * For `search` given alone, or with no other filter than those of `searchWith`: a read of the
	 * total, and maybe the page, faster than the general one for a broad search (search/pages.ts),
	 * with the same answer; undefined leaves both to the general read, a total without rows leaves
	 * it the page.
	 */
	searchRead?(search: string, others: Partial<F>, organizationId: string, table: Table<R>, page: PageRequest, caller: Caller): Promise<SearchRead<R> | undefined>;
	/** The filters searchRead takes beside `search` (users: `role`, which the Students picker sends). */
	searchWith?: ReadonlyArray<keyof F>;
	/** Accepts `sort=-created_at` (newest first; the default `created_at` is oldest first). */
	sortable?: boolean;
	/**
	 * Records `expand=` may embed in each item, by name (`expand=student,course`): a picker shows
	 * names, not ids, without a request per row. Each is read for the whole page in one query.
	 */
	expansions?: Record<string, Expansion<R>>;
}

/** Every list's paging, one rule each (the document lists them once, as components.parameters). */
export const PAGING: QuerySchema = {
	page: integerParam(1, MAX_PAGE, 'Page number, from 1.', 1),
	per_page: integerParam(1, MAX_PER_PAGE, `Records per page, 1 to ${MAX_PER_PAGE}.`, DEFAULT_PER_PAGE),
};

const sortParam = Joi.string()
	.valid('created_at', '-created_at')
	.description('`created_at` (the default: oldest first, then by id) or `-created_at` (newest first, then by id descending).');

/** A list's handler, with the query schema it validates with (for the document). */
export type ListHandler = RequestHandler & { query: QuerySchema };

interface Page {
	page: number;
	perPage: number;
}

/** `first`, `prev`, `next`, `last` (those that exist), absolute, keeping the caller's filters. */
function linkHeader(req: Request, filters: Record<string, string | string[]>, { page, perPage }: Page, total: number): string {
	const last = Math.max(1, Math.ceil(total / perPage));
	const base = `${publicOrigin(req)}${req.baseUrl}${req.path}`;
	// A repeated parameter (users' external_id) stays repeated, never joined into one value.
	const kept = Object.entries(filters).flatMap(([name, value]) => (Array.isArray(value) ? value : [value]).map((one): [string, string] => [name, one]));
	const url = (p: number) => {
		const query = new URLSearchParams([...kept, ['page', String(p)], ['per_page', String(perPage)]]);
		return `<${base}?${query.toString()}>`;
	};
	const links = [`${url(1)}; rel="first"`];
	if (page > 1) links.push(`${url(Math.min(page - 1, last))}; rel="prev"`);
	if (page < last) links.push(`${url(page + 1)}; rel="next"`);
	links.push(`${url(last)}; rel="last"`);
	return links.join(', ');
}

/** Builds the GET handler of one list endpoint. */
export function listEndpoint<R, F extends Record<string, string>>(definition: ListDefinition<R, F>): ListHandler {
	const expansions = definition.expansions ?? {};
	const schema: QuerySchema = {
		...PAGING,
		...definition.filters,
		...(definition.sortable ? { sort: sortParam } : {}),
		...(Object.keys(expansions).length > 0 ? { expand: expandParam(expansions) } : {}),
	};
	const handler: RequestHandler = async (req, res) => {
		const {
			page = 1,
			per_page: perPage = DEFAULT_PER_PAGE,
			sort,
			expand,
			...query
		} = parseQuery<{ page?: number; per_page?: number; sort?: string; expand?: string } & Partial<F>>(schema, req.query);
		const filters = query as Partial<F>;
		const caller = callerOf(res);
		const organizationId = caller.organization.id;
		const expanded = expand === undefined ? [] : [...new Set(expand.split(','))];
		// Before any read: an expansion showing what the key may not read is refused whole, never left out quietly.
		for (const name of expanded) {
			const { scope } = definition.expansions![name];
			if (scope !== undefined && !caller.apiKey.scopeList.includes(scope)) throw problems.insufficientScope(scope);
		}
		const table = sort === '-created_at' ? newestFirstOf(definition.table) : definition.table;
		const [rows, count] = await readListPage(definition, filters, caller, req.params as Record<string, string>, table, { page, perPage });
		const items = rows.map((row) => definition.serialize(row, caller) as Record<string, unknown>);
		for (const name of expanded) {
			const expansion = definition.expansions![name];
			const records = new Map((await expansion.read(organizationId, [...new Set(rows.map(expansion.idOf))])).map((r) => [r.id, r]));
			rows.forEach((row, i) => (items[i][name] = records.get(expansion.idOf(row)) ?? null));
		}
		const kept = { ...filters, ...(sort === undefined ? {} : { sort }), ...(expand === undefined ? {} : { expand }) };
		res.setHeader('Link', linkHeader(req, kept as Record<string, string | string[]>, { page, perPage }, count));
		res.json({ data: items, pagination: { page, per_page: perPage, total: count } });
	};
	return Object.assign(handler, { query: schema });
}

/** The page and the total: searchRead's where it answers, the general read (db/table.ts) for the rest. */
async function readListPage<R, F extends Record<string, string>>(
	definition: ListDefinition<R, F>,
	filters: Partial<F>,
	caller: Caller,
	params: Record<string, string>,
	table: Table<R>,
	request: PageRequest,
): Promise<[R[], number]> {
	const organizationId = caller.organization.id;
	const { search, ...others } = filters as Partial<F> & { search?: string };
	const taken = search !== undefined && Object.entries(others).every(([name, v]) => v === undefined || definition.searchWith?.includes(name));
	const searched = taken ? await definition.searchRead?.(search, others as Partial<F>, organizationId, table, request, caller) : undefined;
	if (searched?.rows !== undefined) return [searched.rows, searched.total];
	const where = new Where();
	if (!definition.scopesItself?.(filters)) where.equals('organization_id', organizationId);
	definition.where(where, filters, organizationId, params, caller);
	const counter = definition.counter?.(filters);
	const total = searched !== undefined ? searched.total : counter ? countedTotal(organizationId, counter) : countRows(definition.table, where);
	return Promise.all([readPage(table, where, request), total]);
}

/** `expand`: a comma-separated list of the list's expansion names. */
function expandParam(expansions: Record<string, Expansion<never>>): Joi.Schema {
	const names = Object.keys(expansions);
	const rule = `a comma-separated list of ${names.join(', ')}`;
	const shown = Object.entries(expansions).map(([name, { shows, scope }]) => `\`${name}\` (${shows}${scope ? `; needs ${scope} as well` : ''})`);
	return Joi.string()
		.pattern(new RegExp(`^(${names.join('|')})(,(${names.join('|')}))*$`), 'expansions')
		.messages({ 'string.pattern.name': `{{#label}} must be ${rule}`, 'string.empty': `{{#label}} must be ${rule}` })
		.description(
			`${names.map((name) => `\`${name}\``).join(', ')} or \`${names.join(',')}\`: each item also carries ${shown.join(' and/or ')}, ` +
				'read for the whole page at once, so a list can be shown by name.',
		);
}
