import type { Database } from './database';
import { database } from './index';

/**
 * The conditions of one read, as SQL with numbered parameters (`$1`, `$2`…). Components add
 * their filters; values always travel as parameters, never in the SQL text, so the text depends
 * only on which filters are present.
 */
export class Where {
	readonly params: unknown[] = [];
	private readonly conditions: string[] = [];

	constructor(private readonly db: Database = database()) {}

	/** The placeholder of a new parameter holding `value`; a Date travels as ISO text. */
	param(value: unknown): string {
		if (value instanceof Date) return this.db.storedTime(`$${this.params.push(value.toISOString())}`);
		return `$${this.params.push(value)}`;
	}

	/** Adds a condition; `sql` receives placeholders for `values` in order. */
	and(sql: (...placeholders: string[]) => string, ...values: unknown[]): this {
		this.conditions.push(sql(...values.map((value) => this.param(value))));
		return this;
	}

	/** `column = value`, unless value is undefined (a filter that was not given). */
	equals(column: string, value: unknown): this {
		return value === undefined ? this : this.and((p) => `${column} = ${p}`, value);
	}

	toString(): string {
		return this.conditions.length === 0 ? 'TRUE' : this.conditions.join(' AND ');
	}
}
