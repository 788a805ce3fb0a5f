package io.ringtail.redis;

import io.ringtail.BucketHistogram;
import java.util.Arrays;

/**
 * The binary form in which histogram slots travel to and from Redis and rest there: a
 * MessagePack array of non-negative integers {@code [slot, count, slot, count, ...]} with
 * ascending slots, which the scripts read and write with Redis's built-in {@code cmsgpack}
 * (five to six bytes per slot at the usual counts, against ten as decimal text). Stateless.
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
    for (int i = 0; i < h.slotCount(); i++) {
      at = putInt(out, at, h.slotAt(i));
      at = putInt(out, at, h.countAt(i));
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
   * Slots and counts read from {@code bytes}; null or empty is the empty histogram.
   *
   * @throws IllegalStateException if the bytes are not such an array
   */
  static Parsed decode(byte[] bytes) {
    if (bytes == null || bytes.length == 0) {
      return new Parsed(new int[0], new long[0]);
    }
    Reader r = new Reader(bytes);
    int head = r.u8();
    long n;
    if ((head & 0xf0) == 0x90) {
      n = head & 0x0f;
    } else if (head == 0xdc) {
      n = r.big(2);
    } else if (head == 0xdd) {
      n = r.big(4);
    } else {
      throw new IllegalStateException("slot array expected, but the first byte was " + head);
    }
    if (n % 2 != 0 || n > bytes.length) {
      throw new IllegalStateException("slot array of length " + n + " in " + bytes.length + " bytes");
    }
    int[] slots = new int[(int) (n / 2)];
    long[] counts = new long[slots.length];
    for (int i = 0; i < slots.length; i++) {
      slots[i] = Math.toIntExact(r.integer());
      counts[i] = r.integer();
    }
    return new Parsed(slots, counts);
  }

  /** Slots ascending, counts positive (as stored). */
  record Parsed(int[] slots, long[] counts) {}

  private static final class Reader {
    private final byte[] bytes;
    private int at;

    Reader(byte[] bytes) {
      this.bytes = bytes;
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
        default -> throw new IllegalStateException("integer expected, but byte " + (at - 1) + " was " + head);
      };
    }
  }
}
