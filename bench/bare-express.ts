/**
 * The baseline of the API-overhead benchmark: Express with nothing in front, answering the
 * users list with the very bytes the LMS server sent (read once from BODY_FILE). Whatever the
 * LMS does beyond this (logging, limit, key lookup, validation, queries, JSON) is its overhead.
 */
import { readFileSync } from 'node:fs';

import express from 'express';

const body = readFileSync(process.env.BODY_FILE!);
const app = express();
app.disable('x-powered-by');
app.get('/healthz', (_req, res) => {
	res.json({ status: 'ok' });
});
app.get('/api/v1/users', (_req, res) => {
	res.type('application/json').send(body);
});
app.listen(Number(process.env.PORT), process.env.HOST ?? '127.0.0.1');
