package io.ringtail.spring.limit;

import io.ringtail.decision.RateDecision;
import io.ringtail.decision.SumDecision;
import java.math.RoundingMode;

/**
 * What the limit filters answer a request that limits name, with its {@link RateLimitFields}: let
 * it through ({@link Pass}), or answer it themselves ({@link Refusal}): denied ({@link Deny}, 429),
 * not decidable now ({@link Unavailable}, 503, the {@code throw} outage policy or a key that cannot
 * be read), or carrying an amount a sum cap cannot take ({@link BadAmount}, 400). The factories map
 * a limit's decision to its answer. Immutable and thread-safe.
 */
sealed interface LimitAnswer permits LimitAnswer.Pass, LimitAnswer.Refusal {

  /** The header fields of the answer: a member per limit decided, up to this answer's. */
  RateLimitFields fields();

  /** The request goes on to its handler. */
  record Pass(RateLimitFields fields) implements LimitAnswer {}

  /** An answer the filter gives itself: the handler does not run. */
  sealed interface Refusal extends LimitAnswer
      permits LimitAnswer.Deny, LimitAnswer.Unavailable, LimitAnswer.BadAmount {

    /** The status to answer with. */
    int status();

    /** The {@code Retry-After} seconds, or -1 for none. */
    long retryAfter();

    /** The plain-text body, one line. */
    String body();
  }

  /** Denied by a limit: 429, with {@code Retry-After} unless no wait can admit it. */
  record Deny(RateLimitFields fields, long retryAfter, String body) implements Refusal {
    @Override
    public int status() {
      return 429;
    }
  }

  /** No decision could be made (Redis down under {@code throw}, a failing key): 503. */
  record Unavailable(RateLimitFields fields, long retryAfter, String body) implements Refusal {
    @Override
    public int status() {
      return 503;
    }
  }

  /** The request's amount is one a sum cap cannot take: 400, the client's error. */
  record BadAmount(RateLimitFields fields, String body) implements Refusal {
    @Override
    public int status() {
      return 400;
    }

    @Override
    public long retryAfter() {
      return -1;
    }
  }

  /**
   * A rate limiter's decision under {@code policy}, after the members {@code before}: {@code t}
   * appears once nothing remains, on the admission that takes the last request too.
   */
  static LimitAnswer of(RateLimitFields.Policy policy, RateDecision d, RateLimitFields before) {
    if (d.allowed()) {
      return new Pass(
          d.remaining() == 0
              ? before.and(policy, 0, Math.max(1, RateLimitFields.seconds(d.retryAfter())))
              : before.and(policy, d.remaining()));
    }
    long retry = Math.max(1, RateLimitFields.seconds(d.retryAfter()));
    return new Deny(
        before.and(policy, 0, retry),
        retry,
        "rate limit "
            + policy.quoted
            + " of "
            + d.limit()
            + " requests reached; retry in "
            + retry
            + " s\n");
  }

  /**
   * A sum cap's decision under {@code policy}, after the members {@code before}: what remains in
   * whole units, rounded down; {@code t} on a denial that a wait can admit only.
   */
  static LimitAnswer of(RateLimitFields.Policy policy, SumDecision d, RateLimitFields before) {
    long remaining = d.remaining().setScale(0, RoundingMode.DOWN).longValue();
    if (d.allowed()) {
      return new Pass(before.and(policy, remaining));
    }
    if (d.exceedsCap()) {
      return new Deny(
          before.and(policy, remaining),
          -1,
          "amount " + d.amount() + " is above the cap " + d.cap() + " of " + policy.quoted + "\n");
    }
    long retry = Math.max(1, RateLimitFields.seconds(d.retryAfter().orElseThrow()));
    return new Deny(
        before.and(policy, remaining, retry),
        retry,
        "cap " + policy.quoted + " of " + d.cap() + " reached; retry in " + retry + " s\n");
  }

  /**
   * No decision under {@code policy}: nothing can be admitted before {@code retryAfter} seconds,
   * and its member says so, as {@code Retry-After} does.
   */
  static Unavailable unavailable(
      RateLimitFields.Policy policy, long retryAfter, RateLimitFields before) {
    return new Unavailable(
        before.and(policy, 0, retryAfter),
        retryAfter,
        "limit " + policy.quoted + " cannot be decided now; retry in " + retryAfter + " s\n");
  }

  /** An amount {@code policy}'s sum cap cannot take, as {@code problem} (a line) says. */
  static BadAmount badAmount(
      RateLimitFields.Policy policy, String problem, RateLimitFields before) {
    return new BadAmount(before.andUndecided(policy), problem + "\n");
  }
}
