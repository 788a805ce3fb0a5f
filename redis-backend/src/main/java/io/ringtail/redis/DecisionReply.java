package io.ringtail.redis;

import io.ringtail.decision.ThresholdDecision;
import java.nio.ByteBuffer;

/**
 * What a decision function answers, one record per kind of decision, each naming the values its
 * script packs. On the wire every kind is decision.lua's {@code REPLY}, one string of {@link
 * #LUA_FORMAT}: two bytes (a verdict, whether to notify), a long as its 32-bit halves (a count) and
 * two doubles holding whole numbers; {@code DecisionLayoutTest} holds both sides to it.
 */
sealed interface DecisionReply {
  /**
   * The packed reply's {@code struct.pack} format, as decision.lua's {@code REPLY} must read: two
   * bytes, the count's halves, two doubles.
   */
  String LUA_FORMAT = ">BBI4I4dd";

  /** Whether the decision's listener is to be notified. */
  boolean notifies();

  /**
   * The answer of rate_limit.lua and bucketed_rate_limit.lua.
   *
   * @param remaining requests the key may still have admitted in the window
   * @param retryAfterNanos from the request's time until a request would be admitted again; 0 while
   *     requests remain
   * @param deniedForNanos from the request's time to when denials of the key end; not positive if
   *     not denied or not expressible
   */
  record RateLimit(
      boolean allowed, boolean notifies, int remaining, long retryAfterNanos, long deniedForNanos)
      implements DecisionReply {
    static RateLimit of(byte[] packed) {
      ByteBuffer b = ByteBuffer.wrap(packed);
      return new RateLimit(
          b.get() == 1,
          b.get() == 1,
          (int) b.getLong(),
          (long) b.getDouble(),
          (long) b.getDouble());
    }
  }

  /**
   * The answer of sum_cap.lua.
   *
   * @param totalUnits the key's total in the window, in units, with the amount if admitted
   * @param retryAfterNanos from the amount's time until this amount would be admitted; -1 for none
   * @param freesInNanos until capacity next frees, when the oldest amount in the window leaves it
   */
  record SumCap(
      boolean allowed, boolean notifies, long totalUnits, long retryAfterNanos, long freesInNanos)
      implements DecisionReply {
    static SumCap of(byte[] packed) {
      ByteBuffer b = ByteBuffer.wrap(packed);
      return new SumCap(
          b.get() == 1, b.get() == 1, b.getLong(), (long) b.getDouble(), (long) b.getDouble());
    }
  }

  /**
   * The answer of threshold.lua.
   *
   * @param count the key's events in the window after this one (at most the events kept)
   * @param crossed whether this event made the key reach the threshold
   * @param firstOverflow whether, for a counted event, the key overflowed its most events kept for
   *     the first time
   */
  record Threshold(
      ThresholdDecision.Outcome outcome,
      boolean notifies,
      int count,
      boolean crossed,
      boolean firstOverflow)
      implements DecisionReply {
    /** The outcomes by their number on the wire. */
    private static final ThresholdDecision.Outcome[] OUTCOMES = {
      ThresholdDecision.Outcome.COUNTED,
      ThresholdDecision.Outcome.DUPLICATE,
      ThresholdDecision.Outcome.EXPIRED
    };

    static Threshold of(byte[] packed) {
      ByteBuffer b = ByteBuffer.wrap(packed);
      return new Threshold(
          OUTCOMES[b.get() & 0xFF],
          b.get() == 1,
          (int) b.getLong(),
          b.getDouble() == 1,
          b.getDouble() == 1);
    }
  }
}
