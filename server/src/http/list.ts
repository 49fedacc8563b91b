import type { Request, RequestHandler } from 'express';
import Joi from 'joi';
import type { FindOptions, Model, ModelStatic, WhereOptions } from 'sequelize';

import { readableRows, SKIP_SQLITE_COLUMN_TYPES } from '../db/hot-path';
import { countedTotal, type Counter } from '../db/list-counts';
import { callerOf } from './auth';
import { integerParam, parseQuery } from './validate';

/**
 * Every list endpoint: the same query rules, envelope, order and Link header. A list only
 * says which model, which filters and how to show a row.
 */

export const DEFAULT_PER_PAGE = 50;
export const MAX_PER_PAGE = 100;
const MAX_PAGE = 2_147_483_647;

export interface ListDefinition<M extends Model, F extends Record<string, string>> {
	model: ModelStatic<M>;
	/** Joi schemas of the filters this list accepts, by query parameter name. */
	filters: { [K in keyof F]-?: Joi.Schema };
	/** The rows a caller may see with these filters; always scoped to the caller's organization. */
	where(organizationId: string, filters: Partial<F>): WhereOptions;
	/** Reads attributes as properties only: it gets plain rows when the model has no custom getters. */
	serialize(row: M): object;
	/**
	 * The counter that holds this list's total with these filters (db/list-counts.ts), or
	 * undefined for a filter no counter covers (a student, an e-mail, a search, a date window:
	 * those are counted through their index, which only reads the matching rows).
	 */
	counter?(filters: Partial<F>): Counter | undefined;
}

interface Page {
	page: number;
	perPage: number;
}

/**
 * Up to this many skipped rows, a page is read in one query. Beyond it, reading whole rows only
 * to skip them costs more than a second query: PostgreSQL fetches every skipped row from the
 * table (≈ 490 ms to reach offset 999,900 of 1M users, against ≈ 140 ms through the index alone).
 */
const DEFERRED_JOIN_FROM_OFFSET = 1_000;

const ORDER: Array<[string, string]> = [
	['createdAt', 'ASC'],
	['id', 'ASC'],
];

/**
 * Pages through `where` in (created_at, id) order; the count uses the same where. Near the
 * start of a list the page is one query. Deep pages stay cheap by paging over ids only (served
 * from the (organization, …, created_at, id) indexes, without touching the table) and then
 * loading just the rows of this page: a deferred join.
 */
export async function pageOf<M extends Model>(
	model: ModelStatic<M>,
	where: WhereOptions,
	{ page, perPage }: Page,
	countedTotal?: () => Promise<number>,
) {
	const offset = (page - 1) * perPage;
	const deferred = offset >= DEFERRED_JOIN_FROM_OFFSET;
	const [pageRows, total] = await Promise.all([
		rawRows(model, { ...(deferred ? { attributes: ['id'] } : {}), where, order: ORDER, limit: perPage, offset }),
		countedTotal ? countedTotal() : model.count({ where, ...SKIP_SQLITE_COLUMN_TYPES }),
	]);
	if (!deferred) return { rows: readableRows(model, pageRows), total };
	const ids = pageRows.map((r) => r.id as string);
	const byId = new Map(
		(ids.length === 0 ? [] : await rawRows(model, { where: { id: ids } })).map((row) => [row.id, row]),
	);
	const rows = ids.map((id) => byId.get(id)).filter((row) => row !== undefined);
	return { rows: readableRows(model, rows), total };
}

function rawRows<M extends Model>(model: ModelStatic<M>, options: FindOptions): Promise<Array<Record<string, unknown>>> {
	return model.findAll({ ...options, raw: true, ...SKIP_SQLITE_COLUMN_TYPES }) as unknown as Promise<Array<Record<string, unknown>>>;
}

/** `first`, `prev`, `next`, `last` (those that exist), absolute, keeping the caller's filters. */
export function linkHeader(req: Request, filters: Record<string, string>, { page, perPage }: Page, total: number): string {
	const last = Math.max(1, Math.ceil(total / perPage));
	const base = `${req.protocol}://${req.get('host')}${req.baseUrl}${req.path}`;
	const url = (p: number) => {
		const query = new URLSearchParams({ ...filters, page: String(p), per_page: String(perPage) });
		return `<${base}?${query.toString()}>`;
	};
	const links = [`${url(1)}; rel="first"`];
	if (page > 1) links.push(`${url(Math.min(page - 1, last))}; rel="prev"`);
	if (page < last) links.push(`${url(page + 1)}; rel="next"`);
	links.push(`${url(last)}; rel="last"`);
	return links.join(', ');
}

/** Builds the GET handler of one list endpoint. */
export function listEndpoint<M extends Model, F extends Record<string, string>>(
	definition: ListDefinition<M, F>,
): RequestHandler {
	const schema = Joi.object({
		page: integerParam(1, MAX_PAGE),
		per_page: integerParam(1, MAX_PER_PAGE),
		...definition.filters,
	});
	return async (req, res) => {
		const { page = 1, per_page: perPage = DEFAULT_PER_PAGE, ...filters } = parseQuery(
			schema as Joi.ObjectSchema<{ page?: number; per_page?: number } & Partial<F>>,
			req.query as Record<string, unknown>,
		);
		const organizationId = callerOf(res).organization.id;
		const where = definition.where(organizationId, filters as Partial<F>);
		const counter = definition.counter?.(filters as Partial<F>);
		const { rows, total } = await pageOf(
			definition.model,
			where,
			{ page, perPage },
			counter && (() => countedTotal(definition.model.sequelize!, organizationId, counter)),
		);
		res.setHeader('Link', linkHeader(req, filters as Record<string, string>, { page, perPage }, total));
		res.json({ data: rows.map((row) => definition.serialize(row)), pagination: { page, per_page: perPage, total } });
	};
}
