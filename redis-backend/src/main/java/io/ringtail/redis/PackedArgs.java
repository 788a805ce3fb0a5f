package io.ringtail.redis;

import io.ringtail.internal.Checks;
import java.nio.ByteBuffer;

/**
 * The numbers of a decision function, packed in its first argument as the script reads them with
 * one {@code struct.unpack}, in the fields of its {@link DecisionLayout}: 8 bytes each, big-endian,
 * a double for a whole number below 2^53 and a long for a time or an amount (its unsigned 32-bit
 * halves, high first). Bytes 0 to 7 hold the deadline, which {@link RedisDecision#decide} writes.
 * An instance is the template of one decision, holding its constants, set by name; {@link #with}
 * copies it for a call. Not thread-safe while being filled; immutable once built.
 */
final class PackedArgs {
  /** Byte offset of the deadline. */
  static final int DEADLINE = 0;

  /** Largest whole number a double, and so a Lua number, holds exactly. */
  static final long MAX_EXACT = 1L << 53;

  private final DecisionLayout layout;
  private final byte[] template;

  PackedArgs(DecisionLayout layout) {
    if (layout.index("deadline", false) != DEADLINE) {
      throw Checks.invalid("layout", "one whose deadline comes first", layout.script());
    }
    this.layout = layout;
    this.template = new byte[layout.size() * 8];
  }

  /** Sets the whole-number field {@code name} to {@code value}, at most {@link #MAX_EXACT}. */
  PackedArgs number(String name, long value) {
    if (value < 0 || value > MAX_EXACT) {
      throw Checks.invalid(name, "a whole number in [0, 2^53]", value);
    }
    ByteBuffer.wrap(template).putDouble(layout.index(name, false) * 8, value);
    return this;
  }

  /** Sets the long field {@code name} to {@code value}. */
  PackedArgs halves(String name, long value) {
    ByteBuffer.wrap(template).putLong(layout.index(name, true) * 8, value);
    return this;
  }

  /** A copy for one call, with the long fields {@code name} and {@code other} set. */
  byte[] with(String name, long value, String otherName, long other) {
    byte[] copy = with(name, value);
    ByteBuffer.wrap(copy).putLong(layout.index(otherName, true) * 8, other);
    return copy;
  }

  /** A copy for one call, with the long field {@code name} set. */
  byte[] with(String name, long value) {
    byte[] copy = template.clone();
    ByteBuffer.wrap(copy).putLong(layout.index(name, true) * 8, value);
    return copy;
  }

  /** Writes the deadline (server microseconds) into a copy. */
  static void deadline(byte[] packed, long micros) {
    ByteBuffer.wrap(packed).putDouble(DEADLINE, micros);
  }
}
