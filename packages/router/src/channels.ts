// The router's events on node:diagnostics_channel, as undici publishes its own: a subscriber
// sees every event of every router in the process, with no option to pass. An event is
// published only while its channel has subscribers, and is the same PHI-free object `onEvent`
// receives.
import diagnostics_channel from 'node:diagnostics_channel';
import type { RouterEvent } from './telemetry.js';

/** The channel names, one per event type. Subscribe with `diagnostics_channel.subscribe(name, fn)`. */
export const ROUTER_CHANNELS = {
  attempt: 'rxgate:router:attempt',
  decision: 'rxgate:router:decision',
  outcome: 'rxgate:router:outcome',
  breaker: 'rxgate:router:breaker',
  credentials: 'rxgate:router:credentials',
  audit: 'rxgate:router:audit',
  reconciled: 'rxgate:router:reconciled',
} as const satisfies Record<RouterEvent['type'], string>;

const channels = Object.fromEntries(
  Object.entries(ROUTER_CHANNELS).map(([type, name]) => [type, diagnostics_channel.channel(name)]),
) as Record<RouterEvent['type'], diagnostics_channel.Channel>;

/**
 * @internal The channel of events of `type`, read by name: `channels[type]` over seven names is
 * a megamorphic property access on every event (channels.test.ts checks every type).
 */
export function channelOf(type: RouterEvent['type']): diagnostics_channel.Channel {
  switch (type) {
    case 'attempt':
      return channels.attempt;
    case 'decision':
      return channels.decision;
    case 'outcome':
      return channels.outcome;
    case 'breaker':
      return channels.breaker;
    case 'credentials':
      return channels.credentials;
    case 'audit':
      return channels.audit;
    case 'reconciled':
      return channels.reconciled;
  }
}

/** Whether anyone listens on the channel of events of `type`. */
export function hasSubscribers(type: RouterEvent['type']): boolean {
  return channelOf(type).hasSubscribers;
}

/** Publishes `e` on its channel, when anyone listens. */
export function publish(e: RouterEvent): void {
  const c = channelOf(e.type);
  if (c.hasSubscribers) c.publish(e);
}
