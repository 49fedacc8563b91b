import pg from 'pg';

/**
 * Statement names for PostgreSQL, one per SQL text of ours (Database.read, rows and run), so that
 * each pooled connection parses and plans a statement once and then only binds and runs it.
 * Unnamed, every run was planned again: the insert of a transaction's events (events/queries.ts)
 * took 0.4 ms to plan and 0.13 ms to run, and the plan was most of what an event added to a POST
 * (issue 40, docs/benchmarks.md, Event feed). A name belongs to one text for good (a connection
 * cannot be given another text under a name it prepared), so names are only ever added; texts
 * beyond MAX_NAMED (statements built with a varying number of placeholders) run unnamed.
 */
const names = new Map<string, string>();
const MAX_NAMED = 1000;

/** The name `sql` is prepared under on every connection, given at its first use; undefined once MAX_NAMED are given. */
export function statementName(sql: string): string | undefined {
	let name = names.get(sql);
	if (name === undefined && names.size < MAX_NAMED) names.set(sql, (name = `lms_${names.size + 1}`));
	return name;
}

type Callback = (error: Error | null, result: unknown) => void;

/**
 * pg's Client, given to Sequelize as its driver (its `dialectModule` option): a statement
 * Sequelize runs for Database.rows or run, with parameters, in a transaction or not, is sent under
 * its name (what Sequelize itself never does). Every other call is pg's own.
 */
class Client extends pg.Client {
	// @ts-expect-error pg's overloads name the calls it serves; this one serves them all and hands on what is not Sequelize's (text, values, callback).
	override query(...args: unknown[]): unknown {
		const [text, values, callback] = args;
		const name = typeof text === 'string' && Array.isArray(values) && typeof callback === 'function' ? names.get(text) : undefined;
		if (name !== undefined) return super.query({ name, text: text as string, values: values as unknown[] }, callback as Callback);
		return super.query.apply(this, args as Parameters<pg.Client['query']>);
	}
}

export const postgresDriver = { ...pg, Client };
