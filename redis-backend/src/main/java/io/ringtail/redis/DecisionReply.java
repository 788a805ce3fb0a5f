package io.ringtail.redis;

import java.nio.ByteBuffer;
import java.util.List;

/**
 * The one reply of the decision scripts (decision.lua's {@code REPLY}): a verdict (1 allowed, 0
 * denied; the threshold's outcome), whether to notify the listener, a count (remaining, total units
 * or events), and two more values (durations in ns, -1 for none; the threshold's flags). The
 * functions send it packed in one string, threshold.lua as an array.
 */
record DecisionReply(int verdict, boolean notifies, long count, long first, long second) {
  /**
   * The packed reply's {@code struct.pack} format, as decision.lua's {@code REPLY} must read
   * ({@code DecisionLayoutTest}): two bytes, the count's halves, two doubles.
   */
  static final String LUA_FORMAT = ">BBI4I4dd";

  static DecisionReply of(List<Object> reply) {
    return new DecisionReply(
        ((Long) reply.get(0)).intValue(),
        (Long) reply.get(1) == 1,
        ((Long) reply.get(2) << 32) | (Long) reply.get(3),
        (Long) reply.get(4),
        (Long) reply.get(5));
  }

  /** The packed reply: two bytes, the count as a long, two doubles holding whole numbers. */
  static DecisionReply of(byte[] packed) {
    ByteBuffer b = ByteBuffer.wrap(packed);
    return new DecisionReply(
        b.get() & 0xFF, b.get() == 1, b.getLong(), (long) b.getDouble(), (long) b.getDouble());
  }

  boolean allowed() {
    return verdict == 1;
  }

  /** A long's unsigned 32-bit halves as script arguments, high first. */
  static String[] halves(long value) {
    return new String[] {Long.toString(value >>> 32), Long.toString(value & 0xFFFF_FFFFL)};
  }
}
