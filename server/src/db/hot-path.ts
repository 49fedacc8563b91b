import { DataTypes, type Model, type ModelStatic } from 'sequelize';

/**
 * Helpers for the per-request path (key lookup, list pages), where Sequelize's own overhead is
 * a large part of the request.
 *
 * Sequelize's SQLite dialect runs `PRAGMA table_info(<table>)` before every SELECT whose SQL has
 * FROM `table` (its column-type cache lives for one query only), just to parse DATETIME strings.
 * Passing `tableNames: []` in the query options makes it skip that round trip; the rows then come
 * back raw and `parseDates` does the one conversion it would have done (same rule as its SQLite
 * DATE parser: a stored timestamp without an offset is UTC). PostgreSQL ignores the option and
 * its driver already returns Date objects.
 */
export const SKIP_SQLITE_COLUMN_TYPES = { tableNames: [] as string[] } as Record<string, unknown>;

function dateAttributes(model: ModelStatic<Model>): string[] {
	return Object.entries(model.getAttributes())
		.filter(([, attribute]) => attribute.type instanceof DataTypes.DATE)
		.map(([name]) => name);
}

const DATE_ATTRIBUTES = new WeakMap<object, string[]>();

export function toDate(value: unknown): unknown {
	if (typeof value !== 'string') return value;
	return new Date(value.includes('+') ? value : `${value}+00:00`);
}

/** Turns the DATE attributes of raw rows into Date objects, in place (SQLite gives strings). */
export function parseDates<R extends Record<string, unknown>>(model: ModelStatic<Model>, rows: R[]): R[] {
	let names = DATE_ATTRIBUTES.get(model);
	if (!names) {
		names = dateAttributes(model);
		DATE_ATTRIBUTES.set(model, names);
	}
	for (const row of rows) {
		for (const name of names) if (name in row) (row as Record<string, unknown>)[name] = toDate(row[name]);
	}
	return rows;
}

/** `alias.field AS "prefixattr", …` for every attribute of the model. */
export function selectList(model: ModelStatic<Model>, alias: string, prefix: string): string {
	return Object.entries(model.getAttributes())
		.map(([name, attribute]) => `${alias}."${attribute.field ?? name}" AS "${prefix}${name}"`)
		.join(', ');
}

/** Model instances from raw rows, as Sequelize's own finders build them (not new records). */
export function buildRows<M extends Model>(model: ModelStatic<M>, rows: Array<Record<string, unknown>>): M[] {
	return model.bulkBuild(parseDates(model as unknown as ModelStatic<Model>, rows) as never, { raw: true, isNewRecord: false });
}

/**
 * What a list serializer reads: the attribute values, dates as Date. Plain objects when the model
 * has no custom getters (then an instance's property is exactly its raw value, and building 50
 * instances a page is pure cost, ≈ 0.2 ms); instances otherwise.
 */
export function readableRows<M extends Model>(model: ModelStatic<M>, rows: Array<Record<string, unknown>>): M[] {
	if ((model.prototype as { _hasCustomGetters?: number })._hasCustomGetters) return buildRows(model, rows);
	return parseDates(model as unknown as ModelStatic<Model>, rows) as unknown as M[];
}
