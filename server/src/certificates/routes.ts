import type { RouteTable } from '../http/routes';
import { getCertificate } from './get';
import { listCertificates } from './list';

/** Certificates have no scope of their own: read:enrollments covers them (source document). */
export const certificateRoutes: RouteTable = {
	'/certificates': { get: { scope: 'read:enrollments', handlers: [listCertificates] } },
	'/certificates/:id': { get: { scope: 'read:enrollments', handlers: [getCertificate] } },
};
