package io.ringtail.spring.limit;

import io.ringtail.decision.CountsDecisions;
import io.ringtail.decision.RateLimiter;
import io.ringtail.decision.SumCap;
import io.ringtail.internal.Checks;
import io.ringtail.spring.limit.RingtailLimitProperties.Kind;
import java.math.BigDecimal;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;
import org.springframework.http.server.PathContainer;

/**
 * One limit of {@link HttpLimits}, of one {@link Kind}: its settings and the decider of its kind,
 * whose decision it answers ({@link LimitAnswer}). Built once by {@link #of}; thread-safe.
 */
abstract sealed class HttpLimit permits HttpLimit.Requests, HttpLimit.SumCapped {
  final LimitSettings settings;
  final RateLimitFields.Policy policy;

  /** Requests answered 503 because this limit's decision could not be made. */
  final LongAdder unavailable = new LongAdder();

  private HttpLimit(LimitSettings settings) {
    this.settings = settings;
    this.policy = settings.policy();
  }

  /**
   * The limit {@code settings} describe, its decider from {@code decisions}; a check the decider
   * makes names the limit, or the property or attribute of {@code maximumKeys}.
   */
  static HttpLimit of(LimitSettings settings, LimitDecisions decisions) {
    String name = settings.name();
    long maximumKeys = settings.maximumKeys();
    return switch (settings.kind()) {
      case SLIDING_LOG ->
          new SlidingLog(
              settings,
              built(settings, () -> decisions.slidingLog(name, settings.requests(), maximumKeys)));
      case BUCKETED ->
          new Bucketed(
              settings,
              built(settings, () -> decisions.bucketed(name, settings.requests(), maximumKeys)));
      case SUM_CAP ->
          new SumCapped(
              settings,
              built(settings, () -> decisions.sumCap(name, settings.amounts(), maximumKeys)));
    };
  }

  private static <T> T built(LimitSettings settings, Supplier<T> build) {
    try {
      return build.get();
    } catch (IllegalArgumentException e) {
      String message = e.getMessage() == null ? "" : e.getMessage();
      throw message.startsWith("maximumKeys ")
          ? Checks.asProperty("maximumKeys", settings.at().apply("maximumKeys"), e)
          : Checks.atProperty(settings.source(), e);
    }
  }

  /** This limit's kind. */
  abstract Kind kind();

  /** The decider, as its meters read it. */
  abstract CountsDecisions counts();

  /**
   * Decides {@code request}, after the limits decided {@code before}: its answer, with their header
   * field members and this limit's.
   *
   * @throws RuntimeException when no decision can be made (the key cannot be read, the decider
   *     cannot decide)
   */
  abstract LimitAnswer decide(LimitedRequest request, RateLimitFields before);

  final String name() {
    return settings.name();
  }

  final boolean matches(String method, PathContainer path) {
    for (HttpLimits.Route r : settings.routes()) {
      if (r.matches(method, path)) {
        return true;
      }
    }
    return false;
  }

  /** A limit on the number of requests per key: a sliding log or a bucketed limiter. */
  abstract static sealed class Requests extends HttpLimit permits SlidingLog, Bucketed {
    final RateLimiter limiter;

    private Requests(LimitSettings settings, RateLimiter limiter) {
      super(settings);
      this.limiter = limiter;
    }

    @Override
    final CountsDecisions counts() {
      return (CountsDecisions) limiter; // every limiter LimitDecisions builds counts
    }

    @Override
    final LimitAnswer decide(LimitedRequest request, RateLimitFields before) {
      return LimitAnswer.of(policy, limiter.tryAcquire(settings.keyOf(request)), before);
    }
  }

  /** {@code sliding-log}: exact, the last {@code limit} admitted times per key. */
  static final class SlidingLog extends Requests {
    SlidingLog(LimitSettings settings, RateLimiter limiter) {
      super(settings, limiter);
    }

    @Override
    Kind kind() {
      return Kind.SLIDING_LOG;
    }
  }

  /** {@code bucketed}: counters by sub-window per key, whatever the limit. */
  static final class Bucketed extends Requests {
    Bucketed(LimitSettings settings, RateLimiter limiter) {
      super(settings, limiter);
    }

    @Override
    Kind kind() {
      return Kind.BUCKETED;
    }
  }

  /** {@code sum-cap}: at most {@code limit} of the requests' amounts per key. */
  static final class SumCapped extends HttpLimit {
    final SumCap cap;

    SumCapped(LimitSettings settings, SumCap cap) {
      super(settings);
      this.cap = cap;
    }

    @Override
    Kind kind() {
      return Kind.SUM_CAP;
    }

    @Override
    CountsDecisions counts() {
      return (CountsDecisions) cap; // every sum cap LimitDecisions builds counts
    }

    @Override
    LimitAnswer decide(LimitedRequest request, RateLimitFields before) {
      String key = settings.keyOf(request);
      String source = settings.amount().source();
      Object v = settings.amount().read().apply(request);
      if (v == null) {
        return LimitAnswer.badAmount(
            policy, "missing amount (" + source + ") for " + policy.quoted, before);
      }
      BigDecimal a;
      try {
        a = v instanceof BigDecimal b ? b : new BigDecimal(v.toString().trim());
      } catch (NumberFormatException e) {
        return bad(" is not a number: " + v, before);
      }
      if (a.signum() < 0) {
        return bad(" is negative: " + a, before);
      }
      try {
        cap.config().toUnits(a);
      } catch (IllegalArgumentException e) {
        return bad(": " + e.getMessage(), before);
      }
      return LimitAnswer.of(policy, cap.tryAdd(key, a), before);
    }

    private LimitAnswer bad(String problem, RateLimitFields before) {
      String of = "amount (" + settings.amount().source() + ") for " + policy.quoted;
      return LimitAnswer.badAmount(policy, of + problem, before);
    }
  }
}
