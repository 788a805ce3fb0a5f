package io.ringtail.redis;

import io.ringtail.BucketHistogram;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;

/**
 * The binary forms in which histograms travel to and from Redis and rest there, MessagePack arrays
 * that the scripts read and write with Redis's built-in {@code cmsgpack} (two to six bytes per
 * slot, against ten or more as decimal text): a delta is {@code [slot, count, ...]} with ascending
 * slots, each slot written less the one before (the first as is, so most take one byte); a stored
 * bucket is its exact count, sum, min, max and rejected as decimal strings, then the same pairs; a
 * group's freshness is {@code [publisher, as-of, bucket, ...]} as strings. Stateless.
 */
final class HistogramSlots {
  private HistogramSlots() {}

  static byte[] encode(BucketHistogram h) {
    int n = 2 * h.slotCount();
    byte[] out = new byte[5 + 18 * h.slotCount()];
    int at;
    if (n < 16) {
      out[0] = (byte) (0x90 | n);
      at = 1;
    } else if (n < 0x10000) {
      out[0] = (byte) 0xdc;
      out[1] = (byte) (n >>> 8);
      out[2] = (byte) n;
      at = 3;
    } else {
      out[0] = (byte) 0xdd;
      at = putBigEndian(out, 1, n, 4);
    }
    int last = 0;
    for (int i = 0; i < h.slotCount(); i++) {
      at = putInt(out, at, h.slotAt(i) - last);
      at = putInt(out, at, h.countAt(i));
      last = h.slotAt(i);
    }
    return Arrays.copyOf(out, at);
  }

  private static int putInt(byte[] out, int at, long v) {
    if (v < 0x80) {
      out[at] = (byte) v;
      return at + 1;
    } else if (v < 0x100) {
      out[at] = (byte) 0xcc;
      out[at + 1] = (byte) v;
      return at + 2;
    } else if (v < 0x10000) {
      out[at] = (byte) 0xcd;
      return putBigEndian(out, at + 1, v, 2);
    } else if (v < 0x1_0000_0000L) {
      out[at] = (byte) 0xce;
      return putBigEndian(out, at + 1, v, 4);
    }
    out[at] = (byte) 0xcf;
    return putBigEndian(out, at + 1, v, 8);
  }

  private static int putBigEndian(byte[] out, int at, long v, int bytes) {
    for (int i = bytes - 1; i >= 0; i--) {
      out[at++] = (byte) (v >>> (8 * i));
    }
    return at;
  }

  /**
   * Bucket {@code bucket} as stored in its counts key (exact count, sum, min, max and rejected as
   * decimal strings, then slot, count pairs); null when the key does not exist.
   *
   * @throws IllegalStateException if the bytes are not such an array or disagree with themselves
   */
  static BucketHistogram decodeBucket(long bucket, byte[] bytes) {
    if (bytes == null) {
      return null;
    }
    Reader r = new Reader(bytes);
    long n = r.arrayHeader() - 5;
    if (n < 0 || n % 2 != 0 || n > bytes.length) {
      throw new IllegalStateException(
          "bucket " + bucket + ": a header and slot pairs expected, but " + (n + 5) + " elements");
    }
    long count = r.decimal();
    long sum = r.decimal();
    long min = r.decimal();
    long max = r.decimal();
    long rejected = r.decimal();
    int[] slots = new int[(int) (n / 2)];
    long[] counts = new long[slots.length];
    long slot = 0;
    for (int i = 0; i < slots.length; i++) {
      slot += r.integer();
      slots[i] = Math.toIntExact(slot);
      counts[i] = r.integer();
    }
    BucketHistogram h = BucketHistogram.of(bucket, slots, counts, sum, min, max, rejected);
    if (h.count() != count) {
      throw new IllegalStateException(
          "bucket " + bucket + " holds " + h.count() + " samples in its slots but counts " + count);
    }
    return h;
  }

  /**
   * Adds stored buckets into one dense histogram, decoding straight from the bytes (no object per
   * bucket): what a snapshot of many buckets needs. Not thread-safe.
   */
  static final class Merge {
    private long[] dense = new long[1024];
    private int highest = -1;
    private long sum;
    private long min = Long.MAX_VALUE;
    private long max = Long.MIN_VALUE;
    private long rejected;

    /**
     * Adds bucket {@code bucket} as stored (see {@link #decodeBucket}); null adds nothing.
     *
     * @throws IllegalStateException if the bytes are not such an array or disagree with themselves
     */
    void add(long bucket, byte[] bytes) {
      if (bytes == null) {
        return;
      }
      Reader r = new Reader(bytes);
      long n = r.arrayHeader() - 5;
      if (n < 0 || n % 2 != 0 || n > bytes.length) {
        throw new IllegalStateException(
            "bucket "
                + bucket
                + ": a header and slot pairs expected, but "
                + (n + 5)
                + " elements");
      }
      long count = r.decimal();
      long bucketSum = r.decimal();
      long bucketMin = r.decimal();
      long bucketMax = r.decimal();
      rejected += r.decimal();
      long seen = 0;
      long previous = -1;
      long slot = 0;
      for (long i = n / 2; i > 0; i--) {
        slot += r.integer();
        long c = r.integer();
        if (slot <= previous || slot > Integer.MAX_VALUE - 1 || c <= 0) {
          throw new IllegalStateException(
              "bucket "
                  + bucket
                  + ": slot "
                  + slot
                  + " with count "
                  + c
                  + " after slot "
                  + previous);
        }
        previous = slot;
        if (slot >= dense.length) {
          dense =
              Arrays.copyOf(
                  dense,
                  (int) Math.min(Integer.MAX_VALUE - 8, Math.max(2L * dense.length, slot + 1)));
        }
        dense[(int) slot] += c;
        seen += c;
      }
      if (seen != count) {
        throw new IllegalStateException(
            "bucket " + bucket + " holds " + seen + " samples in its slots but counts " + count);
      }
      if (count > 0) {
        highest = Math.max(highest, (int) previous);
        sum += bucketSum;
        min = Math.min(min, bucketMin);
        max = Math.max(max, bucketMax);
      }
    }

    /** Everything added, as one bucket histogram (its index {@code bucket}). */
    BucketHistogram result(long bucket) {
      int slots = 0;
      for (int i = 0; i <= highest; i++) {
        if (dense[i] != 0) {
          slots++;
        }
      }
      int[] s = new int[slots];
      long[] c = new long[slots];
      for (int i = 0, k = 0; i <= highest; i++) {
        if (dense[i] != 0) {
          s[k] = i;
          c[k++] = dense[i];
        }
      }
      return BucketHistogram.of(bucket, s, c, sum, min, max, rejected);
    }
  }

  /**
   * Adds a group's freshness ({@code [publisher, as-of, bucket, ...]}, null when absent) to {@code
   * latest}: per publisher, the latest as-of among entries for buckets {@code first..last}.
   */
  static void decodeFreshness(byte[] bytes, long first, long last, Map<String, Long> latest) {
    if (bytes == null) {
      return;
    }
    Reader r = new Reader(bytes);
    long n = r.arrayHeader();
    for (long i = 0; i + 2 < n; i += 3) {
      String publisher = r.string();
      long asOf = r.decimal();
      long bucket = r.decimal();
      if (bucket >= first && bucket <= last) {
        latest.merge(publisher, asOf, Math::max);
      }
    }
  }

  private static final class Reader {
    private final byte[] bytes;
    private int at;

    Reader(byte[] bytes) {
      this.bytes = bytes;
    }

    long arrayHeader() {
      int head = u8();
      if ((head & 0xf0) == 0x90) {
        return head & 0x0f;
      } else if (head == 0xdc) {
        return big(2);
      } else if (head == 0xdd) {
        return big(4);
      }
      throw new IllegalStateException("array expected, but the first byte was " + head);
    }

    String string() {
      int head = u8();
      int length;
      if ((head & 0xe0) == 0xa0) {
        length = head & 0x1f;
      } else if (head == 0xd9) {
        length = (int) big(1);
      } else if (head == 0xda) {
        length = (int) big(2);
      } else {
        throw new IllegalStateException(
            "short string expected, but byte " + (at - 1) + " was " + head);
      }
      if (at + length > bytes.length) {
        throw new IllegalStateException("string cut short at byte " + at);
      }
      String s = new String(bytes, at, length, StandardCharsets.UTF_8);
      at += length;
      return s;
    }

    long decimal() {
      return Long.parseLong(string());
    }

    int u8() {
      if (at >= bytes.length) {
        throw new IllegalStateException("slot array cut short at byte " + at);
      }
      return bytes[at++] & 0xff;
    }

    long big(int n) {
      long v = 0;
      for (int i = 0; i < n; i++) {
        v = (v << 8) | u8();
      }
      return v;
    }

    long integer() {
      if (at + 3 <= bytes.length) {
        int head = bytes[at] & 0xff;
        if (head < 0x80) {
          at++;
          return head;
        } else if (head == 0xcd) {
          int v = ((bytes[at + 1] & 0xff) << 8) | (bytes[at + 2] & 0xff);
          at += 3;
          return v;
        }
      }
      int head = u8();
      if (head < 0x80) {
        return head;
      }
      return switch (head) {
        case 0xcc -> big(1);
        case 0xcd -> big(2);
        case 0xce -> big(4);
        case 0xcf, 0xd3 -> big(8);
        case 0xd0 -> (byte) big(1);
        case 0xd1 -> (short) big(2);
        case 0xd2 -> (int) big(4);
        case 0xcb -> (long) Double.longBitsToDouble(big(8));
        default ->
            throw new IllegalStateException(
                "integer expected, but byte " + (at - 1) + " was " + head);
      };
    }
  }
}
