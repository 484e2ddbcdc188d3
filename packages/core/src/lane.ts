/** A lane of traffic: live point-of-sale claims (`pos`) go before `batch` work. */
export type Lane = 'pos' | 'batch';

/** The lanes, highest priority first. */
export const LANES: readonly Lane[] = Object.freeze(['pos', 'batch']);
