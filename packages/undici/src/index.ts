export { type AttemptResponse, type InterceptorOptions, policyInterceptor } from './interceptor.js';
export { breaker, type ClassifyInterceptorOptions, classify, limit, retry } from './interceptors.js';
