package io.ringtail.redis;

import io.ringtail.BucketHistogram;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The bytes the fleet histogram engine keeps in Redis, all of them read and written by Java only
 * (Redis stores them and hands them back; no script parses them): a format byte, then unsigned
 * LEB128 varints (signed values zigzagged), strings as length and UTF-8 bytes. A histogram is its
 * exact count, sum, min, max and rejected, then its slots as {@code slot gap, count} pairs,
 * ascending, each slot written less the one before (most take one byte). Stateless.
 *
 * <ul>
 *   <li>{@link Batch}: one process's deltas to one group, one inbox field: as-of time, then {@code
 *       key, bucket, histogram} entries.
 *   <li>{@link Head}: a group's state for readers: when it was merged, how many processes published
 *       into it within the window and the oldest of their latest publications, then per key the
 *       version of each bucket in the window.
 *   <li>{@link Table}: a group's state for mergers: per process, the last sequence number merged
 *       and the as-of time of its latest batch.
 *   <li>a merged bucket ({@link #encodeBucket}): one key's histogram of one bucket, the whole
 *       fleet's.
 *   <li>{@link Summary}: a group's numbers for readers that want numbers, written by its merger:
 *       when, the percentiles and spans it carries, then per key its window's count, sum, min, max,
 *       rejected, newest bucket, percentile values and span totals.
 * </ul>
 */
final class FleetCodec {
  static final byte BATCH = 4;
  static final byte HEAD = 5;
  static final byte TABLE = 6;
  static final byte BUCKET = 7;
  static final byte SUMMARY = 8;

  /** A summary's percentiles are kept in ten-thousandths (99.9 as 999,000). */
  static final int PERCENTILE_UNITS = 10_000;

  private FleetCodec() {}

  /** One process's deltas to one group, as of {@code asOfNanos}. */
  record Batch(long asOfNanos, List<BucketHistogramOfKey> entries) {
    byte[] encode() {
      Out out = new Out(64 + 32 * entries.size());
      out.put(BATCH).zigzag(asOfNanos).varint(entries.size());
      for (BucketHistogramOfKey e : entries) {
        out.string(e.key()).zigzag(e.histogram().bucket()).histogram(e.histogram());
      }
      return out.toArray();
    }

    static Batch decode(byte[] bytes) {
      In in = new In(bytes, BATCH);
      long asOf = in.zigzag();
      int n = in.count();
      List<BucketHistogramOfKey> entries = new ArrayList<>(n);
      for (int i = 0; i < n; i++) {
        String key = in.string();
        long bucket = in.zigzag();
        entries.add(new BucketHistogramOfKey(key, in.histogram(bucket)));
      }
      in.end();
      return new Batch(asOf, entries);
    }
  }

  /** One key's merged bucket, as a bucket key holds it. */
  static byte[] encodeBucket(BucketHistogram merged) {
    return new Out(16 + 3 * merged.slotCount()).put(BUCKET).histogram(merged).toArray();
  }

  /** A bucket key's value as bucket {@code bucket}; null for none (nil). */
  static BucketHistogram decodeBucket(long bucket, byte[] bytes) {
    if (bytes == null) {
      return null;
    }
    In in = new In(bytes, BUCKET);
    BucketHistogram h = in.histogram(bucket);
    in.end();
    return h;
  }

  /** One key's histogram of one bucket. */
  record BucketHistogramOfKey(String key, BucketHistogram histogram) {}

  /**
   * A group's state for readers. {@code keys} maps each key to its buckets' versions (bucket index
   * to the stamp of the merge that last changed it), ascending by bucket.
   */
  record Head(
      long mergedAtNanos,
      int publishers,
      long oldestPublicationNanos,
      Map<String, TreeMap<Long, Long>> keys) {
    static final Head EMPTY = new Head(Long.MIN_VALUE, 0, Long.MIN_VALUE, Map.of());

    byte[] encode() {
      Out out = new Out(32 + 64 * keys.size());
      out.put(HEAD).zigzag(mergedAtNanos).varint(publishers).zigzag(oldestPublicationNanos);
      out.varint(keys.size());
      for (Map.Entry<String, TreeMap<Long, Long>> k : keys.entrySet()) {
        out.string(k.getKey()).varint(k.getValue().size());
        long last = 0;
        boolean first = true;
        for (Map.Entry<Long, Long> b : k.getValue().entrySet()) {
          out.zigzag(first ? b.getKey() : b.getKey() - last).varint(b.getValue());
          last = b.getKey();
          first = false;
        }
      }
      return out.toArray();
    }

    /** The head stored at a group's head key; {@link #EMPTY} for none (nil). */
    static Head decode(byte[] bytes) {
      if (bytes == null) {
        return EMPTY;
      }
      In in = new In(bytes, HEAD);
      long mergedAt = in.zigzag();
      long publishers = in.varint();
      if (publishers < 0 || publishers > Integer.MAX_VALUE) {
        throw new IllegalStateException("a head of " + publishers + " publishers");
      }
      long oldest = in.zigzag();
      int n = in.count();
      Map<String, TreeMap<Long, Long>> keys = new LinkedHashMap<>();
      for (int i = 0; i < n; i++) {
        String key = in.string();
        int m = in.count();
        TreeMap<Long, Long> versions = new TreeMap<>();
        long bucket = 0;
        for (int j = 0; j < m; j++) {
          bucket = j == 0 ? in.zigzag() : bucket + in.zigzag();
          versions.put(bucket, in.varint());
        }
        keys.put(key, versions);
      }
      in.end();
      return new Head(mergedAt, (int) publishers, oldest, keys);
    }
  }

  /** One process's row of a group's {@link Table}. */
  record Publisher(long lastSequence, long latestAsOfNanos) {}

  /** A group's state for mergers: per process id, what was last merged of it. */
  record Table(Map<String, Publisher> publishers) {
    byte[] encode() {
      Out out = new Out(16 + 24 * publishers.size());
      out.put(TABLE).varint(publishers.size());
      for (Map.Entry<String, Publisher> p : publishers.entrySet()) {
        out.string(p.getKey()).varint(p.getValue().lastSequence());
        out.zigzag(p.getValue().latestAsOfNanos());
      }
      return out.toArray();
    }

    /** The table stored at a group's table key; empty for none (nil). */
    static Table decode(byte[] bytes) {
      Map<String, Publisher> publishers = new LinkedHashMap<>();
      if (bytes != null) {
        In in = new In(bytes, TABLE);
        int n = in.count();
        for (int i = 0; i < n; i++) {
          publishers.put(in.string(), new Publisher(in.varint(), in.zigzag()));
        }
        in.end();
      }
      return new Table(publishers);
    }
  }

  /**
   * One key's numbers in a {@link Summary}: its window's exact count, sum, min, max (0 when empty)
   * and rejected count, its newest bucket with samples, the values at the summary's percentiles (0
   * when empty), and per span of the summary the count, sum and rejected count of its last buckets
   * ({@code spans[3i .. 3i+2]}).
   */
  record KeySummary(
      long count,
      long sum,
      long min,
      long max,
      long rejected,
      long newestBucket,
      long[] percentileValues,
      long[] spans) {}

  /**
   * A group's numbers as of {@code asOfNanos} (its live bucket then is the window's last): its
   * processes and their freshness as the head gives them, the percentiles (0 to 100) and spans (in
   * buckets) every key carries, and each key with samples or rejections in the window.
   */
  record Summary(
      long asOfNanos,
      int publishers,
      long oldestPublicationNanos,
      double[] percentiles,
      int[] spanBuckets,
      Map<String, KeySummary> keys) {
    byte[] encode(long widthNanos) {
      long live = Math.floorDiv(asOfNanos, widthNanos);
      Out out = new Out(32 + 48 * keys.size());
      out.put(SUMMARY)
          .zigzag(asOfNanos)
          .varint(publishers)
          .zigzag(asOfNanos - oldestPublicationNanos);
      out.varint(percentiles.length);
      for (double p : percentiles) {
        out.varint(Math.round(p * PERCENTILE_UNITS));
      }
      out.varint(spanBuckets.length);
      for (int b : spanBuckets) {
        out.varint(b);
      }
      out.varint(keys.size());
      for (Map.Entry<String, KeySummary> e : keys.entrySet()) {
        KeySummary k = e.getValue();
        // min, then each percentile's value and the max as a step up from the one before
        out.string(e.getKey()).varint(k.count()).varint(k.sum()).varint(k.rejected());
        out.zigzag(live - k.newestBucket()).varint(k.min());
        long last = k.min();
        for (long v : k.percentileValues()) {
          out.zigzag(v - last);
          last = v;
        }
        out.zigzag(k.max() - last);
        for (long v : k.spans()) {
          out.varint(v);
        }
      }
      return out.toArray();
    }

    /** The summary stored at a group's summary key; null for none (nil). */
    static Summary decode(byte[] bytes, long widthNanos) {
      if (bytes == null) {
        return null;
      }
      In in = new In(bytes, SUMMARY);
      long asOf = in.zigzag();
      long live = Math.floorDiv(asOf, widthNanos);
      long publishers = in.varint();
      if (publishers < 0 || publishers > Integer.MAX_VALUE) {
        throw new IllegalStateException("a summary of " + publishers + " publishers");
      }
      long oldest = asOf - in.zigzag();
      double[] percentiles = new double[in.count()];
      for (int i = 0; i < percentiles.length; i++) {
        percentiles[i] = (double) in.varint() / PERCENTILE_UNITS;
        if (!(percentiles[i] >= 0 && percentiles[i] <= 100)) {
          throw new IllegalStateException("a summary of percentile " + percentiles[i]);
        }
      }
      int[] spans = new int[in.count()];
      for (int i = 0; i < spans.length; i++) {
        spans[i] = (int) Math.min(Integer.MAX_VALUE, in.varint());
      }
      int n = in.count();
      Map<String, KeySummary> keys = new LinkedHashMap<>();
      for (int i = 0; i < n; i++) {
        String key = in.string();
        long count = in.varint();
        long sum = in.varint();
        long rejected = in.varint();
        long newest = live - in.zigzag();
        long min = in.varint();
        long last = min;
        long[] values = new long[percentiles.length];
        for (int j = 0; j < values.length; j++) {
          values[j] = last + in.zigzag();
          last = values[j];
        }
        long max = last + in.zigzag();
        long[] totals = new long[3 * spans.length];
        for (int j = 0; j < totals.length; j++) {
          totals[j] = in.varint();
        }
        keys.put(key, new KeySummary(count, sum, min, max, rejected, newest, values, totals));
      }
      in.end();
      return new Summary(asOf, (int) publishers, oldest, percentiles, spans, keys);
    }
  }

  /** A growing buffer of varints. Not thread-safe. */
  static final class Out {
    private byte[] buf;
    private int at;

    Out(int capacity) {
      buf = new byte[Math.max(16, capacity)];
    }

    private void room(int n) {
      if (at + n > buf.length) {
        buf = Arrays.copyOf(buf, Math.max(buf.length * 2, at + n));
      }
    }

    Out put(byte b) {
      room(1);
      buf[at++] = b;
      return this;
    }

    Out varint(long v) {
      room(10);
      while ((v & ~0x7FL) != 0) {
        buf[at++] = (byte) ((v & 0x7F) | 0x80);
        v >>>= 7;
      }
      buf[at++] = (byte) v;
      return this;
    }

    Out zigzag(long v) {
      return varint((v << 1) ^ (v >> 63));
    }

    Out string(String s) {
      byte[] b = s.getBytes(StandardCharsets.UTF_8);
      varint(b.length);
      room(b.length);
      System.arraycopy(b, 0, buf, at, b.length);
      at += b.length;
      return this;
    }

    Out histogram(BucketHistogram h) {
      boolean empty = h.count() == 0;
      varint(h.count()).varint(h.sum()).varint(empty ? 0 : h.min()).varint(empty ? 0 : h.max());
      varint(h.rejected()).varint(h.slotCount());
      int last = 0;
      for (int i = 0; i < h.slotCount(); i++) {
        varint(h.slotAt(i) - last).varint(h.countAt(i));
        last = h.slotAt(i);
      }
      return this;
    }

    byte[] toArray() {
      return Arrays.copyOf(buf, at);
    }
  }

  /**
   * A reader of varints that fails with {@link IllegalStateException} on bytes that are not what
   * they claim to be. Not thread-safe.
   */
  static final class In {
    private final byte[] bytes;
    private int at;

    In(byte[] bytes, byte format) {
      if (bytes.length == 0 || bytes[0] != format) {
        throw new IllegalStateException(
            "bytes of format " + format + " expected, but " + bytes.length + " bytes");
      }
      this.bytes = bytes;
      this.at = 1;
    }

    long varint() {
      long v = 0;
      for (int shift = 0; shift < 64; shift += 7) {
        if (at >= bytes.length) {
          throw new IllegalStateException("bytes cut short at byte " + at);
        }
        byte b = bytes[at++];
        v |= (long) (b & 0x7F) << shift;
        if (b >= 0) {
          return v;
        }
      }
      throw new IllegalStateException("a varint longer than 64 bits at byte " + at);
    }

    long zigzag() {
      long z = varint();
      return (z >>> 1) ^ -(z & 1);
    }

    /** A count of what follows: at most the bytes left, since each takes at least one. */
    int count() {
      long n = varint();
      if (n < 0 || n > bytes.length - at) {
        throw new IllegalStateException("a count of " + n + " at byte " + at);
      }
      return (int) n;
    }

    String string() {
      int length = count();
      String s = new String(bytes, at, length, StandardCharsets.UTF_8);
      at += length;
      return s;
    }

    BucketHistogram histogram(long bucket) {
      long n = varint();
      long sum = varint();
      long min = varint();
      long max = varint();
      long rejected = varint();
      int slots = count();
      int[] s = new int[slots];
      long[] c = new long[slots];
      long slot = 0;
      for (int i = 0; i < slots; i++) {
        slot += varint();
        c[i] = varint();
        if (slot > Integer.MAX_VALUE - 8 || (i > 0 && slot <= s[i - 1])) {
          throw new IllegalStateException("slot " + slot + " out of order at byte " + at);
        }
        s[i] = (int) slot;
      }
      try {
        BucketHistogram h = BucketHistogram.of(bucket, s, c, sum, min, max, rejected);
        if (h.count() != n) {
          throw new IllegalStateException("a histogram holds " + h.count() + " but counts " + n);
        }
        return h;
      } catch (IllegalArgumentException e) {
        throw new IllegalStateException("a histogram that disagrees with itself", e);
      }
    }

    void end() {
      if (at != bytes.length) {
        throw new IllegalStateException((bytes.length - at) + " bytes left over after byte " + at);
      }
    }
  }
}
