import { currentKeySchema } from '../api-keys/schema';
import { assignmentSchema } from '../assignments/schema';
import { certificateSchema } from '../certificates/schema';
import { courseSchema } from '../courses/schema';
import { enrollmentSchema } from '../enrollments/schema';
import { eventListSchema, eventSchema, feedHeadSchema } from '../events/schema';
import { groupMembershipSchema, groupSchema, membersAddedSchema, membersRemovedSchema } from '../groups/schema';
import { listSchema, paginationSchema } from '../http/list-schema';
import { fieldErrorSchema, problemSchema } from '../http/problem-schema';
import { courseCompletionReportSchema, courseCompletionSchema } from '../reports/schema';
import { userSchema } from '../users/schema';
import { webhookDeliveryAttemptListSchema, webhookDeliveryAttemptSchema } from '../webhooks/attempts/schema';
import { webhookDeliverySchema } from '../webhooks/deliveries/schema';
import { webhookReceiptSchema } from '../webhooks/receipts/schema';
import { newWebhookEndpointSchema, rotatedWebhookEndpointSchema, webhookEndpointSchema } from '../webhooks/schema';

/**
 * The document's `components.schemas`: every answer of the API, each the schema that sits next to
 * the serializer making it (users/schema.ts beside users/serialize.ts, and so on), so a field
 * added to a serializer is added here by its schema. test/server/serializer-schemas.test.ts checks
 * real output against each of them, and that none is left unchecked.
 */
export const componentSchemas = {
	User: userSchema,
	Course: courseSchema,
	Enrollment: enrollmentSchema,
	Certificate: certificateSchema,
	Group: groupSchema,
	GroupList: listSchema('Group'),
	GroupMembership: groupMembershipSchema,
	MembersAdded: membersAddedSchema,
	MembersRemoved: membersRemovedSchema,
	Assignment: assignmentSchema,
	AssignmentList: listSchema('Assignment'),
	CourseCompletion: courseCompletionSchema,
	CourseCompletionReport: courseCompletionReportSchema,
	UserList: listSchema('User'),
	CourseList: listSchema('Course'),
	EnrollmentList: listSchema('Enrollment'),
	CertificateList: listSchema('Certificate'),
	ApiKey: currentKeySchema,
	FeedHead: feedHeadSchema,
	Event: eventSchema,
	EventList: eventListSchema,
	WebhookEndpoint: webhookEndpointSchema,
	NewWebhookEndpoint: newWebhookEndpointSchema,
	WebhookEndpointList: listSchema('WebhookEndpoint'),
	WebhookDelivery: webhookDeliverySchema,
	WebhookDeliveryList: listSchema('WebhookDelivery'),
	RotatedWebhookEndpoint: rotatedWebhookEndpointSchema,
	WebhookDeliveryAttempt: webhookDeliveryAttemptSchema,
	WebhookDeliveryAttemptList: webhookDeliveryAttemptListSchema,
	WebhookReceipt: webhookReceiptSchema,
	Pagination: paginationSchema,
	FieldError: fieldErrorSchema,
	Problem: problemSchema,
};
