package io.ringtail.redis;

import java.nio.ByteBuffer;

/**
 * The one reply of the decision scripts (decision.lua's {@code REPLY}): a verdict (1 allowed, 0
 * denied; the threshold's outcome), whether to notify the listener, a count (remaining, total units
 * or events), and two more values (durations in ns, -1 for none; the threshold's flags), packed in
 * one string.
 */
record DecisionReply(int verdict, boolean notifies, long count, long first, long second) {
  /**
   * The packed reply's {@code struct.pack} format, as decision.lua's {@code REPLY} must read
   * ({@code DecisionLayoutTest}): two bytes, the count's halves, two doubles.
   */
  static final String LUA_FORMAT = ">BBI4I4dd";

  /** The packed reply: two bytes, the count as a long, two doubles holding whole numbers. */
  static DecisionReply of(byte[] packed) {
    ByteBuffer b = ByteBuffer.wrap(packed);
    return new DecisionReply(
        b.get() & 0xFF, b.get() == 1, b.getLong(), (long) b.getDouble(), (long) b.getDouble());
  }

  boolean allowed() {
    return verdict == 1;
  }
}
