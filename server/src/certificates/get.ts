import { getEndpoint } from '../http/get-one';
import { Certificate } from './model';
import { serializeCertificate } from './serialize';

/** GET /api/v1/certificates/{id} */
export const getCertificate = getEndpoint({
	model: Certificate,
	idKind: 'certificate',
	noun: 'certificate',
	serialize: serializeCertificate,
});
