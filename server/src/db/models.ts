import type { Sequelize } from 'sequelize';

import { ApiKey, AuditEvent } from '../api-keys/model';
import { Certificate } from '../certificates/model';
import { Course } from '../courses/model';
import { Enrollment } from '../enrollments/model';
import { Event } from '../events/model';
import { IdempotencyKey } from '../idempotency/model';
import { Organization } from '../organizations/model';
import { OneTimeKeyRow } from '../settings/one-time-key-model';
import { SignInAttempt } from '../sign-in/model';
import { User } from '../users/model';
import { WebhookDelivery, WebhookDeliveryAttempt, WebhookEndpoint } from '../webhooks/model';

/** Binds every model to the process's one Sequelize instance. */
export function initModels(sequelize: Sequelize): void {
	for (const model of [Organization, User, Course, Enrollment, Certificate, ApiKey, AuditEvent, Event, WebhookEndpoint, WebhookDelivery, WebhookDeliveryAttempt, SignInAttempt, OneTimeKeyRow, IdempotencyKey]) {
		model.initModel(sequelize);
	}
}

export { ApiKey, AuditEvent, Certificate, Course, Enrollment, Event, IdempotencyKey, Organization, User, WebhookDelivery, WebhookDeliveryAttempt, WebhookEndpoint };
