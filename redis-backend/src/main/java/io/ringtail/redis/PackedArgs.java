package io.ringtail.redis;

import io.ringtail.internal.Checks;
import io.ringtail.redis.DecisionLayout.Arg;
import java.nio.ByteBuffer;

/**
 * The numbers of a decision function, packed in its first argument as the script reads them with
 * one {@code struct.unpack}, in the fields of its {@link DecisionLayout}: 8 bytes each, big-endian,
 * a double for a whole number below 2^53 and a long for a time or an amount (its unsigned 32-bit
 * halves, high first). Bytes 0 to 7 hold the deadline, which {@link RedisDecision#decide} writes.
 * An instance is the template of one decision, holding its constants, set by {@link Arg}; {@link
 * #with} copies it for a call. Not thread-safe while being filled; immutable once built.
 */
final class PackedArgs {
  /** Byte offset of the deadline. */
  static final int DEADLINE = 0;

  /** Largest whole number a double, and so a Lua number, holds exactly. */
  static final long MAX_EXACT = 1L << 53;

  private final DecisionLayout layout;
  private final byte[] template;

  PackedArgs(DecisionLayout layout) {
    if (layout.index(Arg.DEADLINE, false) != DEADLINE) {
      throw Checks.invalid("layout", "one whose first argument is the deadline", layout.script());
    }
    this.layout = layout;
    this.template = new byte[layout.size() * 8];
  }

  /** Sets the whole-number field {@code arg} to {@code value}, 0 to {@link #MAX_EXACT}. */
  PackedArgs number(Arg arg, long value) {
    Checks.requireBetween(arg.toString(), value, 0, MAX_EXACT);
    ByteBuffer.wrap(template).putDouble(layout.index(arg, false) * 8, value);
    return this;
  }

  /** Sets the long field {@code arg} to {@code value}. */
  PackedArgs halves(Arg arg, long value) {
    ByteBuffer.wrap(template).putLong(layout.index(arg, true) * 8, value);
    return this;
  }

  /** A copy for one call, with the long fields {@code arg} and {@code other} set. */
  byte[] with(Arg arg, long value, Arg other, long otherValue) {
    byte[] copy = with(arg, value);
    ByteBuffer.wrap(copy).putLong(layout.index(other, true) * 8, otherValue);
    return copy;
  }

  /** A copy for one call, with the long field {@code arg} set. */
  byte[] with(Arg arg, long value) {
    byte[] copy = template.clone();
    ByteBuffer.wrap(copy).putLong(layout.index(arg, true) * 8, value);
    return copy;
  }

  /** Writes the deadline (server microseconds) into a copy. */
  static void deadline(byte[] packed, long micros) {
    ByteBuffer.wrap(packed).putDouble(DEADLINE, micros);
  }
}
