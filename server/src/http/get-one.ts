import type { RequestHandler } from 'express';

import { isIdOf, type IdKind } from '../common/id-shapes';
import { problems } from '../common/problem';
import { readOne, type Table } from '../db/table';
import { callerOf } from './auth';

export interface GetDefinition<R> {
	table: Table<R>;
	idKind: IdKind;
	/** What a person calls it, for the 404's detail. */
	noun: string;
	serialize(row: R): object;
}

/**
 * GET of one record by id. An id of the wrong shape, another organization's id and a hidden
 * record all answer the same 404, so nothing about other organizations leaks.
 */
export function getEndpoint<R>(definition: GetDefinition<R>): RequestHandler {
	return async (req, res) => {
		const id = req.params.id;
		if (!isIdOf(definition.idKind, id)) throw problems.notFound(definition.noun);
		const row = await readOne(definition.table, callerOf(res).organization.id, id);
		if (!row) throw problems.notFound(definition.noun);
		res.json(definition.serialize(row));
	};
}
