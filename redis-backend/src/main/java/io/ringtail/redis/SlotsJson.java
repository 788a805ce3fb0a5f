package io.ringtail.redis;

import io.ringtail.BucketHistogram;
import java.util.Arrays;

/**
 * The text form in which histogram slots travel to and from Redis: a JSON array of integers
 * {@code [slot, count, slot, count, ...]} with ascending slots, which the scripts read and write
 * with Redis's built-in {@code cjson}. Stateless.
 */
final class SlotsJson {
  private SlotsJson() {}

  static String encode(BucketHistogram h) {
    StringBuilder b = new StringBuilder(2 + h.slotCount() * 10).append('[');
    for (int i = 0; i < h.slotCount(); i++) {
      if (i > 0) {
        b.append(',');
      }
      b.append(h.slotAt(i)).append(',').append(h.countAt(i));
    }
    return b.append(']').toString();
  }

  /** Slots and counts parsed from {@code json}; {@code ""} is the empty histogram. */
  static Parsed parse(String json) {
    int[] slots = new int[16];
    long[] counts = new long[16];
    int n = 0;
    int i = json.indexOf('[') + 1;
    int len = json.length();
    boolean slot = true;
    while (i > 0 && i < len) {
      char c = json.charAt(i);
      if (c == ',' || c == ' ' || c == ']') {
        i++;
        continue;
      }
      int start = i;
      boolean plain = true;
      long v = 0;
      while (i < len && (c = json.charAt(i)) != ',' && c != ']') {
        if (c >= '0' && c <= '9') {
          v = v * 10 + (c - '0');
        } else {
          plain = false;
        }
        i++;
      }
      if (!plain) {
        // cjson writes integers of 15 or more digits in exponent form
        v = (long) Double.parseDouble(json.substring(start, i));
      }
      if (slot) {
        if (n == slots.length) {
          slots = Arrays.copyOf(slots, n * 2);
          counts = Arrays.copyOf(counts, n * 2);
        }
        slots[n] = (int) v;
      } else {
        counts[n++] = v;
      }
      slot = !slot;
    }
    if (!slot) {
      throw new IllegalStateException("slot array of odd length: " + json);
    }
    return new Parsed(Arrays.copyOf(slots, n), Arrays.copyOf(counts, n));
  }

  record Parsed(int[] slots, long[] counts) {}
}
