export { lmsApiBaseUrl } from './baseUrl';
export {
	asNodeError,
	httpFailureOf,
	lmsApiError,
	lmsProblemOf,
	type LmsRequestSummary,
} from './errors';
export {
	lmsApiList,
	lmsApiPage,
	lmsApiPages,
	MAX_PER_PAGE,
} from './pagination';
export { idempotencyKeyFor } from './idempotency';
export {
	LMS_CREDENTIAL_TYPE,
	lmsAnswerError,
	lmsApiRequest,
	MAX_ATTEMPTS,
	MAX_RETRY_WAIT_SECONDS,
	retryAfterSeconds,
} from './request';
