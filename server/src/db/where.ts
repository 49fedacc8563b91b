/**
 * The conditions of one read, as SQL with numbered parameters (`$1`, `$2`…). Components add
 * their filters; values always travel as parameters, never in the SQL text, so the text depends
 * only on which filters are present and each shape is prepared once (db/reads.ts).
 */
export class Where {
	readonly params: unknown[] = [];
	private readonly conditions: string[] = [];

	/** The placeholder of a new parameter holding `value`. */
	param(value: unknown): string {
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
