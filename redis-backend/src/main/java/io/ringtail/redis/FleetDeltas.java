package io.ringtail.redis;

import io.ringtail.BucketHistogram;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * The bytes of one process's delta to one bucket of a keyed histogram window, as it rests in Redis
 * under its own hash field: a format byte, then unsigned LEB128 varints: the as-of time (zigzag),
 * count, sum, min, max, rejected, the number of slots, then {@code slot gap, count} pairs with
 * ascending slots, each written less the one before (most take one byte). Only Java reads it: Redis
 * stores the bytes and hands them back. Stateless.
 */
final class FleetDeltas {
  static final byte FORMAT = 1;
  static final byte MERGED = 2;

  private FleetDeltas() {}

  /** {@code delta} as of {@code asOfNanos} (a reading of the window's time base). */
  static byte[] encode(BucketHistogram delta, long asOfNanos) {
    return encode(FORMAT, delta, asOfNanos, 0);
  }

  /**
   * Several fields of one bucket merged into one ({@link #MERGED}): the merged histogram, then the
   * names of every delta field it covers, each with its as-of time, so that a reader skips a
   * covered field that a late retry wrote again.
   */
  static byte[] encodeMerged(BucketHistogram merged, List<String> covered, List<Long> asOf) {
    int extra = 10;
    for (String name : covered) {
      extra += 20 + name.length();
    }
    byte[] out = encode(MERGED, merged, 0, extra);
    int at = out.length - extra;
    at = put(out, at, covered.size());
    for (int i = 0; i < covered.size(); i++) {
      byte[] name = covered.get(i).getBytes(StandardCharsets.UTF_8);
      at = put(out, at, name.length);
      System.arraycopy(name, 0, out, at, name.length);
      at += name.length;
      long v = asOf.get(i);
      at = put(out, at, (v << 1) ^ (v >> 63));
    }
    return Arrays.copyOf(out, at);
  }

  /** Whether a field's bytes are a merged field ({@link #encodeMerged}). */
  static boolean isMerged(byte[] value) {
    return value.length > 0 && value[0] == MERGED;
  }

  /** The histogram part, with {@code extra} bytes of room after it (the result's last bytes). */
  private static byte[] encode(byte format, BucketHistogram delta, long asOfNanos, int extra) {
    boolean empty = delta.count() == 0;
    byte[] out = new byte[1 + 10 * 7 + 2 * 10 * delta.slotCount() + extra];
    out[0] = format;
    int at = 1;
    at = put(out, at, (asOfNanos << 1) ^ (asOfNanos >> 63));
    at = put(out, at, delta.count());
    at = put(out, at, delta.sum());
    at = put(out, at, empty ? 0 : delta.min());
    at = put(out, at, empty ? 0 : delta.max());
    at = put(out, at, delta.rejected());
    at = put(out, at, delta.slotCount());
    int last = 0;
    for (int i = 0; i < delta.slotCount(); i++) {
      at = put(out, at, delta.slotAt(i) - last);
      at = put(out, at, delta.countAt(i));
      last = delta.slotAt(i);
    }
    return Arrays.copyOf(out, at + extra);
  }

  private static int put(byte[] out, int at, long v) {
    while ((v & ~0x7FL) != 0) {
      out[at++] = (byte) ((v & 0x7F) | 0x80);
      v >>>= 7;
    }
    out[at++] = (byte) v;
    return at;
  }

  /**
   * Adds the deltas of one bucket, field by field, into one histogram. Reused across buckets
   * ({@link #result} clears it); not thread-safe.
   */
  static final class Merge {
    private long[] dense = new long[256];
    private int lowest = Integer.MAX_VALUE;
    private int highest = -1;
    private long sum;
    private long min = Long.MAX_VALUE;
    private long max = Long.MIN_VALUE;
    private long rejected;
    private byte[] bytes;
    private int at;

    /**
     * Adds one stored delta; returns its as-of time.
     *
     * @throws IllegalStateException if the bytes are not a delta or disagree with themselves
     */
    long add(byte[] value) {
      return add(value, null);
    }

    /**
     * Adds one stored delta or merged field; returns its as-of time (0 for a merged one, whose
     * covered fields' names and as-of times go to {@code covered}).
     */
    long add(byte[] value, Map<String, Long> covered) {
      bytes = value;
      at = 0;
      boolean merged = isMerged(value);
      if (value.length == 0 || (value[0] != FORMAT && !(merged && covered != null))) {
        throw new IllegalStateException(
            "a delta of format " + FORMAT + " expected, but " + value.length + " bytes");
      }
      at = 1;
      long zigzag = next();
      long asOf = (zigzag >>> 1) ^ -(zigzag & 1);
      long n = next();
      long s = next();
      long lo = next();
      long hi = next();
      rejected += next();
      long slots = next();
      if (slots < 0 || slots > value.length) {
        throw new IllegalStateException("a delta of " + value.length + " bytes with " + slots);
      }
      long seen = 0;
      long slot = 0;
      for (long i = 0; i < slots; i++) {
        slot += next();
        long c = next();
        if (c <= 0 || slot > Integer.MAX_VALUE - 8) {
          throw new IllegalStateException("slot " + slot + " with count " + c + " in a delta");
        }
        if (slot >= dense.length) {
          dense = Arrays.copyOf(dense, (int) Math.max(2L * dense.length, slot + 1));
        }
        dense[(int) slot] += c;
        seen += c;
        lowest = Math.min(lowest, (int) slot);
        highest = Math.max(highest, (int) slot);
      }
      if (seen != n) {
        throw new IllegalStateException("a delta holds " + seen + " samples but counts " + n);
      }
      if (n > 0) {
        sum += s;
        min = Math.min(min, lo);
        max = Math.max(max, hi);
      }
      if (merged) {
        long names = next();
        for (long i = 0; i < names; i++) {
          int length = (int) next();
          if (length < 0 || at + length > bytes.length) {
            throw new IllegalStateException("a merged field cut short at byte " + at);
          }
          String name = new String(bytes, at, length, StandardCharsets.UTF_8);
          at += length;
          long z = next();
          covered.put(name, (z >>> 1) ^ -(z & 1));
        }
      }
      return asOf;
    }

    private long next() {
      long v = 0;
      for (int shift = 0; shift < 64; shift += 7) {
        if (at >= bytes.length) {
          throw new IllegalStateException("a delta cut short at byte " + at);
        }
        byte b = bytes[at++];
        v |= (long) (b & 0x7F) << shift;
        if (b >= 0) {
          return v;
        }
      }
      throw new IllegalStateException("a varint longer than 64 bits at byte " + at);
    }

    /** Everything added since the last result, as bucket {@code bucket}; then clears. */
    BucketHistogram result(long bucket) {
      int distinct = 0;
      for (int i = lowest; i <= highest; i++) {
        if (dense[i] != 0) {
          distinct++;
        }
      }
      int[] slots = new int[distinct];
      long[] counts = new long[distinct];
      for (int i = lowest, k = 0; i <= highest; i++) {
        if (dense[i] != 0) {
          slots[k] = i;
          counts[k++] = dense[i];
          dense[i] = 0;
        }
      }
      BucketHistogram out = BucketHistogram.of(bucket, slots, counts, sum, min, max, rejected);
      lowest = Integer.MAX_VALUE;
      highest = -1;
      sum = 0;
      min = Long.MAX_VALUE;
      max = Long.MIN_VALUE;
      rejected = 0;
      return out;
    }
  }
}
