import type { Permit } from '@rxgate/breaker';
import { classify, type Verdict } from '@rxgate/classifier';
import { signalAsAnswered } from '@rxgate/core';
import { isDeadlineExceededError, type Lease } from '@rxgate/ratelimit';
import { wireBody } from './claim.js';
import type { ClaimRun } from './claim-run.js';
import { commitAfter } from './commit-state.js';
import type { RouterContext } from './context.js';
import type { Step } from './decide.js';
import { isTransportError } from './errors.js';
import { LostOwnershipError } from './ledger.js';
import type { WireResponse } from './transport.js';

/**
 * One attempt on node `i`: credentials → limiter → breaker permit → write-ahead pin → send →
 * classify → observe. Whatever happens, it ends in one {@link Step} for `decide`, holds no
 * lease or permit after it, and leaves the ledger's commit state as the answer proved it.
 */
export async function attempt(ctx: RouterContext, r: ClaimRun, i: number): Promise<Step> {
  const o = ctx.o;
  const node = ctx.node(i);
  const limiter = ctx.limiterOf(i);

  // The token first: a node whose token endpoint is down spends no limiter token.
  let token: string | undefined;
  if (o.credentials !== undefined) {
    r.arm();
    try {
      token = await o.credentials.token(node, r.signal);
      r.token = token;
    } catch {
      ctx.rec.decision(r, r.path, 'credentials:unavailable', { node: node.name });
      return { kind: 'credentials-unavailable' };
    }
  }

  // Admitted now when the limiter can say so; otherwise wait in its queue.
  let lease: Lease | undefined =
    limiter.tryAcquire === undefined ? undefined : await limiter.tryAcquire({ key: r.payer, lane: r.lane });
  // When the limiter admitted this request: what it admits after is not in this answer's Remaining.
  let admittedAt = o.clock.now();
  if (lease === undefined) {
    r.arm();
    try {
      lease = await limiter.acquire({ key: r.payer, lane: r.lane, deadline: r.deadline, signal: r.signal });
      admittedAt = o.clock.now();
    } catch (e) {
      if (isDeadlineExceededError(e)) {
        ctx.rec.decision(r, r.path, 'limiter:deadline', { waitMs: e.predictedWaitMs, node: node.name });
        return { kind: 'limiter-deadline' };
      }
      return r.signal.aborted ? { kind: 'aborted' } : { kind: 'limiter-refused' };
    }
    // The wait may have outlasted the token: read it again (from the cache, as a rule).
    if (o.credentials !== undefined) {
      try {
        token = await o.credentials.token(node, r.signal);
        r.token = token;
      } catch {
        lease.release();
        ctx.rec.decision(r, r.path, 'credentials:unavailable', { node: node.name });
        return { kind: 'credentials-unavailable' };
      }
    }
  }

  const permitOrRejection = ctx.breakerOf(i, r.segment).tryAcquire();
  if (permitOrRejection.kind === 'rejected') {
    lease.release();
    ctx.rec.decision(r, r.path, 'breaker:rejected', {
      node: node.name,
      waitMs: permitOrRejection.retryAfterMs,
    });
    return { kind: 'breaker-rejected', retryAfterMs: permitOrRejection.retryAfterMs };
  }
  const permit: Permit = permitOrRejection;

  // Admitted at the last instant: nothing is sent that cannot be answered in time.
  if (o.clock.now() >= r.deadline || r.signal.aborted) {
    lease.release();
    permit.ignore();
    return { kind: r.signal.aborted && o.clock.now() < r.deadline ? 'aborted' : 'deadline' };
  }

  // Write-ahead: durable before any byte leaves. A takeover elsewhere makes this fail, and
  // then nothing is sent.
  const before = r.commit;
  if (!(before.kind === 'pinned' && before.node === node.name)) {
    try {
      if (ctx.ledgerAtOnce !== undefined) ctx.ledgerAtOnce.pin(r.claimKey, node.name);
      else await o.ledger.pin(r.claimKey, node.name);
    } catch (e) {
      lease.release();
      permit.ignore();
      if (e instanceof LostOwnershipError) return { kind: 'lost-ownership' };
      ctx.rec.log.error(
        { correlationId: r.correlationId, ledger: 'pin-failed' },
        'ledger unavailable before send',
      );
      return { kind: 'ledger-unavailable' };
    }
    r.commit = { kind: 'pinned', node: node.name };
  }

  r.attempts++;
  r.path.push(node.name);
  const sentAt = o.clock.now();
  r.body ??= wireBody(r.claim, r.productId);
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'idempotency-key': r.requestKey,
    'x-ncpdp-version': 'D.0',
    'x-correlation-id': r.correlationId,
  };
  if (token !== undefined) headers.authorization = `Bearer ${token}`;
  let verdict: Verdict;
  let answered: number;
  try {
    const sent = o.transport.send(
      node,
      { method: 'POST', path: '/adjudicate', headers, body: r.body },
      r.signal,
    );
    // The deadline must be able to cut a request in flight; an in-process transport that
    // answered at once has settled after one microtask, and needs no timer.
    let settled = false;
    const mark = () => {
      settled = true;
    };
    sent.then(mark, mark);
    await undefined;
    if (!settled) r.arm();
    const response: WireResponse = await sent;
    answered = o.clock.now();
    verdict = classify(
      response,
      o.catalogue === undefined
        ? { now: answered, transactionCode: r.claim.transactionCode }
        : { now: answered, transactionCode: r.claim.transactionCode, catalogue: o.catalogue },
    );
  } catch (e) {
    answered = o.clock.now();
    // Classify the network's own error (its code), not our wrapper around it.
    verdict = isTransportError(e)
      ? classify({ error: { code: e.transportCode, name: 'TransportError' }, phase: e.phase })
      : classify({ error: e, phase: 'sent' });
  } finally {
    lease.release();
  }
  const latency = answered - sentAt;
  permit.settle(verdict.breaker);
  if (verdict.quota !== undefined) {
    // The vendor measured its window's reset half a round trip before we read it, as NTP
    // assumes; the round trip from the admission on says which admissions came after it.
    const key = o.quotaScope(verdict.quota, r.payer);
    void limiter.observe(
      signalAsAnswered(verdict.quota, latency, answered - admittedAt),
      key === undefined ? undefined : { key },
    );
  }
  ctx.rec.attempt(r, r.attempts, node.name, verdict, latency, answered);

  // The ledger now holds the write-ahead pin; an answer that proves no payment undoes it.
  const paid = verdict.kind === 'adjudicated' || verdict.kind === 'duplicate';
  const after = commitAfter(before, node.name, verdict.commit, paid);
  if (after.kind === 'unsent' && r.commit.kind === 'pinned') {
    try {
      if (ctx.ledgerAtOnce !== undefined) ctx.ledgerAtOnce.unpin(r.claimKey);
      else await o.ledger.unpin(r.claimKey);
      r.commit = after;
    } catch {
      // Left pinned: only ever more careful.
    }
  }
  return { kind: 'verdict', verdict };
}
