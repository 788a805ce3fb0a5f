package io.ringtail.redis;

/**
 * The Redis keys of a histogram window. Bucket {@code b} lives in hash-tag group {@code g =
 * floorMod(b, GROUPS)}: {@code <prefix>:{<escaped name>@<g>}:h2:<layout>:<b>:c} (the merged slot
 * counts), {@code ...:<b>:m} (exact count, sum, min, max, rejected and per-publisher sequence
 * numbers), and per group {@code <prefix>:{<escaped name>@<g>}:h2:<layout>:f} (each publisher's
 * latest publication into the group's buckets).
 *
 * <p>A window's buckets spread over {@value #GROUPS} hash slots (and so over the masters of a
 * cluster), while the keys of one group share a slot, so one script call reads all of a group's
 * buckets. The name is escaped as in {@link WindowKeys}, and the group is the text after the last
 * {@code @}, so no two (name, group) pairs share a tag. The layout part (bucket width in
 * nanoseconds, significant digits, lowest discernible value) keeps windows whose slots or buckets
 * mean different things from merging into one another; {@code h2} marks the binary slot format.
 */
final class HistogramKeys {
  /** Hash-tag groups per window: a snapshot makes at most this many calls on a cluster. */
  static final int GROUPS = 16;

  private final String[] groupBase = new String[GROUPS];

  HistogramKeys(String prefix, String name, long widthNanos, int significantDigits, long lowest) {
    String tag = WindowKeys.tag("", name);
    String escapedName = tag.substring(2, tag.length() - 1);
    String layout = ":h2:w" + widthNanos + "d" + significantDigits + "l" + lowest;
    for (int g = 0; g < GROUPS; g++) {
      groupBase[g] = prefix + ":{" + escapedName + "@" + g + "}" + layout;
    }
  }

  static int group(long bucket) {
    return (int) Math.floorMod(bucket, (long) GROUPS);
  }

  /** Counts key, then meta key, of bucket {@code bucket}. */
  String[] bucket(long bucket) {
    String base = groupBase[group(bucket)] + ":" + bucket;
    return new String[] {base + ":c", base + ":m"};
  }

  /** The freshness hash of group {@code group}. */
  String freshness(int group) {
    return groupBase[group] + ":f";
  }
}
