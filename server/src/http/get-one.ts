import type { RequestHandler } from 'express';
import type { Model, ModelStatic, WhereOptions } from 'sequelize';

import { isIdOf, type IdKind } from '../common/id-shapes';
import { problems } from '../common/problem';
import { callerOf } from './auth';

export interface GetDefinition<M extends Model> {
	model: ModelStatic<M>;
	idKind: IdKind;
	/** What a person calls it, for the 404's detail. */
	noun: string;
	/** Extra conditions (e.g. published only); the organization scope is always added. */
	where?: WhereOptions;
	serialize(row: M): object;
}

/**
 * GET of one record by id. An id of the wrong shape, another organization's id and a hidden
 * record all answer the same 404, so nothing about other organizations leaks.
 */
export function getEndpoint<M extends Model>(definition: GetDefinition<M>): RequestHandler {
	return async (req, res) => {
		const id = req.params.id;
		if (!isIdOf(definition.idKind, id)) throw problems.notFound(definition.noun);
		const row = await definition.model.findOne({
			where: { ...definition.where, id, organizationId: callerOf(res).organization.id } as WhereOptions,
		});
		if (!row) throw problems.notFound(definition.noun);
		res.json(definition.serialize(row));
	};
}
