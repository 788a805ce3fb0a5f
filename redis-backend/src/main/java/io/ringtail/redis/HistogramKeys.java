package io.ringtail.redis;

/**
 * The Redis keys of one bucket of a histogram window:
 * {@code <prefix>:{<escaped name>@<bucket>}:h:<layout>:c} (the merged slot counts) and
 * {@code ...:m} (exact count, sum, min, max, rejected and per-publisher sequence numbers).
 *
 * <p>The hash tag holds the bucket index, so a window's buckets spread over the hash slots (and
 * the masters) of a cluster while the two keys of one bucket stay together for one script. The
 * name is escaped as in {@link WindowKeys}, and the bucket index is the text after the last
 * {@code @}, so no two (name, bucket) pairs share a tag. The layout part (bucket width in
 * nanoseconds, significant digits, lowest discernible value) keeps windows whose slots or
 * buckets mean different things from merging into one another.
 */
final class HistogramKeys {
  private final String prefix;
  private final String escapedName;
  private final String layout;

  HistogramKeys(String prefix, String name, long widthNanos, int significantDigits, long lowest) {
    this.prefix = prefix;
    String tag = WindowKeys.tag("", name);
    this.escapedName = tag.substring(2, tag.length() - 1);
    this.layout = ":h:w" + widthNanos + "d" + significantDigits + "l" + lowest;
  }

  /** Counts key, then meta key, of bucket {@code bucket}. */
  String[] bucket(long bucket) {
    String base = prefix + ":{" + escapedName + "@" + bucket + "}" + layout;
    return new String[] {base + ":c", base + ":m"};
  }
}
