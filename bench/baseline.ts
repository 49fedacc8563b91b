/**
 * The yardstick of the API-overhead benchmark: a minimal Express app doing by hand the work the
 * users list cannot avoid, on the same driver and database as the server. Per request: SHA-256
 * of the bearer key; one query for the key and its organization (checked as the server checks
 * them: active key, Enterprise plan, read:users scope); the total (the list_counts counter, as the
 * server reads it) and the page as prepared statements; the same JSON and Link header. No logging, no limiter, no validation framework.
 * The benchmark checks that it sends the server's exact bytes before measuring anything, so the
 * ratio server ÷ baseline is the price of everything the server adds on top of its queries.
 */
import { createHash } from 'node:crypto';

import express, { type Request } from 'express';
import { Pool } from 'pg';
import sqlite3 from 'sqlite3';

const KEY_SQL =
	'SELECT k.status, k.scopes, o.id AS org_id, o.plan FROM api_keys k ' +
	'LEFT JOIN organizations o ON o.id = k.organization_id WHERE k.key_hash = $1';
// The total as the server reads it: the counter migration 0009's triggers keep (list_counts).
const COUNT_SQL = "SELECT n FROM list_counts WHERE organization_id = $1 AND list = 'users' AND filter = ''";
const PAGE_SQL =
	'SELECT id, name, email, username, role, status, external_id, title, department, employee_number, manager_id, created_at, updated_at, deactivated_at FROM users WHERE organization_id = $1 ' +
	'ORDER BY created_at, id LIMIT $2 OFFSET $3';

type Row = Record<string, unknown>;
type Query = (name: string, sql: string, params: unknown[]) => Promise<Row[]>;

/**
 * Prepared statements: sqlite3 Statements kept open on one connection (as many as the server
 * reads on: Sequelize's SQLite pool is one connection), or pg named statements on a pool of 10
 * (the server's default DATABASE_POOL_MAX).
 */
function driver(databaseUrl: string): Query {
	if (databaseUrl.startsWith('sqlite:')) {
		const db = new sqlite3.Database(databaseUrl.slice('sqlite:'.length), sqlite3.OPEN_READONLY);
		db.configure('busyTimeout', 5000);
		const statements = new Map<string, sqlite3.Statement>();
		return (name, sql, params) => {
			let statement = statements.get(name);
			if (!statement) {
				// In SQLite `$1` is a name; `?1` is the numbered parameter the array binds to.
				statement = db.prepare(sql.replace(/\$(\d+)/g, '?$1'));
				statements.set(name, statement);
			}
			return new Promise<Row[]>((resolve, reject) => statement.all(params, (err: Error | null, rows: Row[]) => (err ? reject(err) : resolve(rows))));
		};
	}
	const pool = new Pool({ connectionString: databaseUrl, max: 10 });
	return async (name, sql, params) => (await pool.query({ name, text: sql, values: params })).rows as Row[];
}

const iso = (value: unknown) => (value instanceof Date ? value : new Date(String(value).includes('+') ? String(value) : `${String(value)}+00:00`)).toISOString();

function linkHeader(req: Request, page: number, perPage: number, total: number): string {
	const last = Math.max(1, Math.ceil(total / perPage));
	const base = `${req.protocol}://${req.get('host')}${req.baseUrl}${req.path}`;
	const url = (p: number) => `<${base}?${new URLSearchParams({ page: String(p), per_page: String(perPage) }).toString()}>`;
	const links = [`${url(1)}; rel="first"`];
	if (page > 1) links.push(`${url(Math.min(page - 1, last))}; rel="prev"`);
	if (page < last) links.push(`${url(page + 1)}; rel="next"`);
	links.push(`${url(last)}; rel="last"`);
	return links.join(', ');
}

const query = driver(process.env.DATABASE_URL!);
const app = express();
app.disable('x-powered-by');
app.get('/healthz', (_req, res) => {
	res.json({ status: 'ok' });
});
app.get('/api/v1/users', (req, res, next) => {
	void (async () => {
		const token = /^Bearer (.+)$/.exec(req.get('authorization') ?? '')?.[1];
		if (!token) return void res.status(401).end();
		const [key] = await query('key', KEY_SQL, [createHash('sha256').update(token).digest('hex')]);
		if (!key || key.status !== 'active' || key.org_id == null) return void res.status(401).end();
		if (key.plan !== 'enterprise') return void res.status(403).end();
		if (!String(key.scopes).split(' ').includes('read:users')) return void res.status(403).end();
		const page = Number(req.query.page ?? 1);
		const perPage = Number(req.query.per_page ?? 50);
		const [[count], rows] = await Promise.all([
			query('count', COUNT_SQL, [key.org_id]),
			query('page', PAGE_SQL, [key.org_id, perPage, (page - 1) * perPage]),
		]);
		const total = count === undefined ? 0 : Number(count.n);
		res.setHeader('Link', linkHeader(req, page, perPage, total));
		res.json({
			data: rows.map((r) => ({
				id: r.id,
				name: r.name,
				email: r.email,
				username: r.username,
				role: r.role,
				status: r.status,
				external_id: r.external_id,
				profile: { title: r.title, department: r.department, employee_number: r.employee_number, manager_id: r.manager_id },
				created_at: iso(r.created_at),
				updated_at: iso(r.updated_at),
				deactivated_at: r.deactivated_at == null ? null : iso(r.deactivated_at),
			})),
			pagination: { page, per_page: perPage, total },
		});
	})().catch(next);
});
app.listen(Number(process.env.PORT), process.env.HOST ?? '127.0.0.1');
