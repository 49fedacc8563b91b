import { getEndpoint } from '../http/get-one';
import { CERTIFICATES } from './queries';
import { serializeCertificate } from './serialize';

/** GET /api/v1/certificates/{id} */
export const getCertificate = getEndpoint({ table: CERTIFICATES, idKind: 'certificate', noun: 'certificate', serialize: serializeCertificate });
