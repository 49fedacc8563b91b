import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type Server, type ServerResponse } from 'node:http';

import type { Request, RequestHandler } from 'express';

import { Problem } from '../common/problem';
import type { Caller } from '../api-keys/authenticate';
import { httpDuration, httpRequests, oldKeyRequests, registry } from '../metrics/registry';

/**
 * GET /metrics (SPEC §19) and the request counters behind it. The metrics say how busy the
 * server is and how its webhooks fare, so they are not public: on the server's port they answer
 * only to METRICS_TOKEN as a Bearer token (and are not there at all without one); METRICS_PORT
 * serves them on a port of their own, bound to loopback, for a scraper on the same host or a
 * sidecar.
 */

/** Counts every answer by method, route pattern and status, and times it. */
export const countRequests: RequestHandler = (req, res, next) => {
	const started = process.hrtime.bigint();
	res.once('finish', () => {
		// The pattern, never the path: /api/v1/users/:id, not one series per user. Requests no
		// route took (refused by the limiter, not found) share "none".
		const route = req.route ? `${req.baseUrl}${(req.route as { path: string }).path}` : 'none';
		const labels = { method: req.method, route, status: String(res.statusCode) };
		httpRequests.inc(labels);
		httpDuration.observe(labels, Number(process.hrtime.bigint() - started) / 1e9);
		// A rotated key in its grace time (SPEC §22): how much traffic has yet to switch keys.
		if ((res.locals.caller as Caller | undefined)?.apiKey.oldKey === true) oldKeyRequests.inc();
	});
	next();
};

async function sendMetrics(res: ServerResponse): Promise<void> {
	const text = await registry.metrics();
	res.statusCode = 200;
	res.setHeader('Content-Type', registry.contentType);
	res.setHeader('Cache-Control', 'no-store');
	res.end(text);
}

const digest = (text: string) => createHash('sha256').update(text).digest();

const invalidToken = () =>
	new Problem({
		status: 401,
		code: 'invalid_metrics_token',
		title: 'Invalid metrics token',
		detail: 'Send the server\'s METRICS_TOKEN as "Authorization: Bearer <METRICS_TOKEN>" to read /metrics (an API key does not work here).',
		headers: { 'WWW-Authenticate': 'Bearer realm="lms-metrics"' },
	});

/** /metrics on the server's port, for holders of the token; without METRICS_TOKEN, nothing (a 404 like any unknown path). */
export function metricsRoute(token: string | undefined): RequestHandler {
	const expected = token === undefined ? undefined : digest(token);
	return async (req: Request, res, next) => {
		if (expected === undefined || req.path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) return next();
		const match = /^Bearer (\S+)$/.exec(req.get('authorization') ?? '');
		// Equal-length digests compared in constant time: the answer's timing says nothing about the token.
		if (!match || !timingSafeEqual(digest(match[1]), expected)) throw invalidToken();
		await sendMetrics(res);
	};
}

/** METRICS_PORT's listener: /metrics and nothing else, on 127.0.0.1 only. */
export async function listenForMetrics(port: number): Promise<Server> {
	const server = createServer((req, res) => {
		if (req.method === 'GET' && (req.url ?? '').split('?')[0] === '/metrics') {
			sendMetrics(res).catch(() => {
				res.statusCode = 500;
				res.end();
			});
			return;
		}
		res.statusCode = 404;
		res.setHeader('Content-Type', 'text/plain; charset=utf-8');
		res.end('Only GET /metrics is served on this port.\n');
	});
	await new Promise<void>((resolve, reject) => {
		server.once('error', reject);
		server.listen(port, '127.0.0.1', () => {
			server.off('error', reject);
			resolve();
		});
	});
	return server;
}
