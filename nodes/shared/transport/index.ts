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
export {
	FALLBACK_RETRY_WAIT_SECONDS,
	LMS_CREDENTIAL_TYPE,
	lmsApiRequest,
	MAX_ATTEMPTS,
	MAX_RETRY_WAIT_SECONDS,
	retryAfterSeconds,
	type LmsFunctions,
	type LmsRequest,
} from './request';
