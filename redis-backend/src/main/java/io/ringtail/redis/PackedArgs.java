package io.ringtail.redis;

import java.nio.ByteBuffer;

/**
 * The numbers of a decision function, packed in its first argument as decision.lua reads them with
 * one {@code struct.unpack}: 8 bytes each, big-endian, a double for a whole number below 2^53 and a
 * long for a time or an amount (its unsigned 32-bit halves, high first). Bytes 0 to 7 hold the
 * deadline, which {@link RedisDecision#decide} writes. An instance is the template of one decision,
 * holding its constants; {@link #with} copies it for a call. Immutable once built.
 */
final class PackedArgs {
  /** Byte offset of the deadline. */
  static final int DEADLINE = 0;

  /** Largest whole number a double, and so a Lua number, holds exactly. */
  static final long MAX_EXACT = 1L << 53;

  private final byte[] template;

  PackedArgs(int fields) {
    this.template = new byte[fields * 8];
  }

  /** Sets field {@code index} (0 the deadline) to {@code value}, at most {@link #MAX_EXACT}. */
  PackedArgs number(int index, long value) {
    if (value < 0 || value > MAX_EXACT) {
      throw new IllegalArgumentException(value + " is not a whole number in [0, 2^53]");
    }
    ByteBuffer.wrap(template).putDouble(index * 8, value);
    return this;
  }

  /** Sets field {@code index} to the long {@code value}. */
  PackedArgs halves(int index, long value) {
    ByteBuffer.wrap(template).putLong(index * 8, value);
    return this;
  }

  /**
   * A copy for one call, with the longs {@code value} at field {@code index}, {@code other} at
   * field {@code otherIndex}.
   */
  byte[] with(int index, long value, int otherIndex, long other) {
    byte[] copy = template.clone();
    ByteBuffer.wrap(copy).putLong(index * 8, value).putLong(otherIndex * 8, other);
    return copy;
  }

  /** A copy for one call, with the long at field {@code index}. */
  byte[] with(int index, long value) {
    byte[] copy = template.clone();
    ByteBuffer.wrap(copy).putLong(index * 8, value);
    return copy;
  }

  /** Writes the deadline (server microseconds) into a copy. */
  static void deadline(byte[] packed, long micros) {
    ByteBuffer.wrap(packed).putDouble(DEADLINE, micros);
  }
}
