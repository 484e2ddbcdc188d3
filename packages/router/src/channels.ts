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

/** Whether anyone listens on the channel of events of `type`. */
export function hasSubscribers(type: RouterEvent['type']): boolean {
  return channels[type].hasSubscribers;
}

/** Publishes `e` on its channel, when anyone listens. */
export function publish(e: RouterEvent): void {
  const c = channels[e.type];
  if (c.hasSubscribers) c.publish(e);
}
