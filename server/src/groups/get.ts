import { getEndpoint } from '../http/get-one';
import { GROUPS } from './queries';
import { serializeGroup } from './serialize';

/** GET /api/v1/groups/{id} */
export const getGroup = getEndpoint({ table: GROUPS, idKind: 'group', noun: 'group', serialize: serializeGroup });
