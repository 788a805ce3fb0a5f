package io.ringtail;

/**
 * A completed bucket: the slots it saw, ascending, as unsigned LEB128 varints of (gap since the
 * previous slot, count): two to three bytes per distinct slot; and which bucket it is.
 */
final class SealedBucket {
  static final long BYTES = 64;

  private static final byte[] EMPTY = {};

  /**
   * The bucket's absolute index: {@code floor(t / bucketWidth)} of the readings {@code t} it holds
   * (as {@link BucketRecorder#bucketOf}), counted on from the owner's first bucket if the time
   * source wraps past {@code Long.MAX_VALUE}.
   */
  long bucket;

  byte[] data = EMPTY;
  int size;

  /** Slots added since the last reset. */
  int slots;

  private int lastIndex;
  long sum;
  long rejected;
  long min;
  long max;

  void reset(long bucket) {
    this.bucket = bucket;
    size = 0;
    slots = 0;
    lastIndex = -1;
    sum = 0;
    rejected = 0;
    min = Long.MAX_VALUE;
    max = Long.MIN_VALUE;
  }

  /**
   * Resets this bucket to the absolute index {@code bucket} and encodes the live accumulator's
   * slots, sum, min, max and rejected into it (allocating only when {@link #fit} must); returns the
   * samples encoded.
   */
  long encode(long bucket, Accumulator live, BucketLayout layout) {
    reset(bucket);
    long count = 0;
    if (live.max != Long.MIN_VALUE) {
      long[] counts = live.counts;
      int first = layout.indexOf(live.min);
      int last = layout.indexOf(live.max);
      fit(encodedLength(counts, first, last));
      for (int i = first; i <= last; i++) {
        if (counts[i] != 0) {
          add(i, counts[i]);
          count += counts[i];
        }
      }
    }
    statsOf(live);
    return count;
  }

  /**
   * Resets this bucket to the absolute index {@code bucket} and encodes the cells of a {@linkplain
   * SlotTable#sorted() sorted} slot table with {@code stats}' sum, min, max and rejected
   * (allocating only when {@link #fit} must); returns the samples encoded.
   */
  long encode(long bucket, SlotTable sorted, Accumulator stats) {
    reset(bucket);
    int[] keys = sorted.keys;
    long[] counts = sorted.counts;
    int bytes = 0;
    for (int i = sorted.sortedFrom, previous = -1; i < keys.length; i++) {
      bytes += varintLength(keys[i] - 1 - previous - 1) + varintLength(counts[i]);
      previous = keys[i] - 1;
    }
    fit(bytes);
    long count = 0;
    for (int i = sorted.sortedFrom; i < keys.length; i++) {
      add(keys[i] - 1, counts[i]);
      count += counts[i];
    }
    statsOf(stats);
    return count;
  }

  private void statsOf(Accumulator a) {
    sum = a.sum;
    rejected = a.rejected;
    min = a.min;
    max = a.max;
  }

  /** Bytes the non-zero slots {@code first..last} of {@code counts} take once encoded. */
  static int encodedLength(long[] counts, int first, int last) {
    int bytes = 0;
    int previous = -1;
    for (int i = first; i <= last; i++) {
      if (counts[i] != 0) {
        bytes += varintLength(i - previous - 1) + varintLength(counts[i]);
        previous = i;
      }
    }
    return bytes;
  }

  /**
   * Makes room for {@code bytes}: keeps the array while it is big enough and at most 1.5 times
   * that, else replaces it by one of {@code bytes} plus an eighth. The ring's memory follows what
   * its buckets need now, not the most any bucket ever needed, and buckets whose needs wander by
   * less than an eighth rotate without allocating.
   */
  void fit(int bytes) {
    if (data.length < bytes || data.length > bytes + (bytes >> 1) + 8) {
      data = new byte[bytes + (bytes >> 3) + 8];
    }
  }

  private static int varintLength(long v) {
    return v == 0 ? 1 : (63 - Long.numberOfLeadingZeros(v)) / 7 + 1;
  }

  /** Appends a slot; indexes must ascend and the array must have room ({@link #fit}). */
  void add(int index, long count) {
    writeVarint(index - lastIndex - 1);
    writeVarint(count);
    lastIndex = index;
    slots++;
  }

  /** Adds (sign 1) or subtracts (sign -1) this bucket's counts into a dense array. */
  void addTo(long[] dense, int sign) {
    int index = -1;
    for (int pos = 0; pos < size; ) {
      long gap = varintAt(data, pos);
      pos += varintLength(gap);
      long count = varintAt(data, pos);
      pos += varintLength(count);
      index += (int) gap + 1;
      dense[index] += sign * count;
    }
  }

  /**
   * Copies the slots, ascending, and their counts into arrays of {@link #slots} elements; returns
   * the sum of the counts.
   */
  long copyTo(int[] indexes, long[] counts) {
    int index = -1;
    long total = 0;
    for (int k = 0, pos = 0; pos < size; k++) {
      long gap = varintAt(data, pos);
      pos += varintLength(gap);
      counts[k] = varintAt(data, pos);
      pos += varintLength(counts[k]);
      index += (int) gap + 1;
      indexes[k] = index;
      total += counts[k];
    }
    return total;
  }

  /** The varint starting at {@code pos}; it spans {@link #varintLength} of its value (minimal). */
  private static long varintAt(byte[] data, int pos) {
    long v = 0;
    int shift = 0;
    byte b;
    do {
      b = data[pos++];
      v |= (long) (b & 0x7f) << shift;
      shift += 7;
    } while (b < 0);
    return v;
  }

  private void writeVarint(long v) {
    while ((v & ~0x7fL) != 0) {
      data[size++] = (byte) ((v & 0x7f) | 0x80);
      v >>>= 7;
    }
    data[size++] = (byte) v;
  }
}
