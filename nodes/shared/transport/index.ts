export { lmsApiBaseUrl } from './baseUrl';
export {
	asNodeError,
	httpFailureOf,
	lmsApiError,
	lmsProblemOf,
	type LmsHttpFailure,
	type LmsRequestSummary,
} from './errors';
export {
	lmsApiList,
	lmsApiPage,
	lmsApiPages,
	MAX_PER_PAGE,
	type LmsListOptions,
	type LmsPageOptions,
	type LmsPagesOptions,
} from './pagination';
export { idempotencyKeyFor } from './idempotency';
export {
	FALLBACK_RETRY_WAIT_SECONDS,
	inUseWaitSeconds,
	LMS_CREDENTIAL_TYPE,
	lmsAnswerError,
	lmsApiRequest,
	MAX_ATTEMPTS,
	MAX_RETRY_WAIT_SECONDS,
	retryAfterSeconds,
	type LmsFunctions,
	type LmsRequest,
} from './request';
