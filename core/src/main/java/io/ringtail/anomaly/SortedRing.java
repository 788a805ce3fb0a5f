package io.ringtail.anomaly;

import java.util.Arrays;

/**
 * The last {@code capacity} values in arrival order and in sorted order, for a running median and
 * median absolute deviation without allocating. Adding costs two binary searches and two array
 * shifts of at most {@code capacity} elements. Not thread-safe.
 */
final class SortedRing {
  private final double[] arrival;
  private final double[] sorted;
  private int size;
  private int next;

  SortedRing(int capacity) {
    this.arrival = new double[capacity];
    this.sorted = new double[capacity];
  }

  int size() {
    return size;
  }

  int capacity() {
    return arrival.length;
  }

  /** Adds a finite value, evicting the oldest when full. */
  void add(double value) {
    value += 0.0; // -0.0 sorts apart from 0.0 in Arrays.binarySearch
    if (size == arrival.length) {
      double oldest = arrival[next];
      int at = Arrays.binarySearch(sorted, 0, size, oldest);
      System.arraycopy(sorted, at + 1, sorted, at, size - at - 1);
      size--;
    }
    arrival[next] = value;
    next = next + 1 == arrival.length ? 0 : next + 1;
    int at = Arrays.binarySearch(sorted, 0, size, value);
    if (at < 0) {
      at = -at - 1;
    }
    System.arraycopy(sorted, at, sorted, at + 1, size - at);
    sorted[at] = value;
    size++;
  }

  /** The median of the values held; NaN when empty. */
  double median() {
    if (size == 0) {
      return Double.NaN;
    }
    int mid = size >>> 1;
    return (size & 1) == 1 ? sorted[mid] : 0.5 * (sorted[mid - 1] + sorted[mid]);
  }

  /**
   * The median of {@code |v - center|} over the values held (the lower median for an even count),
   * by merging the deviations on either side of {@code center}, which are already sorted.
   */
  double medianDeviation(double center) {
    if (size == 0) {
      return Double.NaN;
    }
    int right = Arrays.binarySearch(sorted, 0, size, center);
    if (right < 0) {
      right = -right - 1;
    }
    int left = right - 1;
    int k = (size - 1) >>> 1;
    double d = 0;
    for (int taken = 0; taken <= k; taken++) {
      double dl = left >= 0 ? center - sorted[left] : Double.POSITIVE_INFINITY;
      double dr = right < size ? sorted[right] - center : Double.POSITIVE_INFINITY;
      if (dl <= dr) {
        d = dl;
        left--;
      } else {
        d = dr;
        right++;
      }
    }
    return d;
  }

  /** Smallest value held; NaN when empty. */
  double min() {
    return size == 0 ? Double.NaN : sorted[0];
  }

  /** Largest value held; NaN when empty. */
  double max() {
    return size == 0 ? Double.NaN : sorted[size - 1];
  }

  /** The value at rank {@code q} (0 to 1) by nearest rank; NaN when empty. */
  double quantile(double q) {
    if (size == 0) {
      return Double.NaN;
    }
    int i = (int) Math.round(q * (size - 1));
    return sorted[i];
  }

  void clear() {
    size = 0;
    next = 0;
  }

  long footprintBytes() {
    // header 12, two references and two ints of 4: 28, padded to 32; each array 16 + 8 per value
    return 32 + 2 * (16L + 8L * arrival.length);
  }
}
