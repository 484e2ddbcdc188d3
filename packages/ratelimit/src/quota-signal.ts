// Defined once in @rxgate/core (the classifier produces it, this package observes it).
export type { QuotaSignal } from '@rxgate/core';
