package io.ringtail.redis;

/**
 * The Redis keys of a keyed histogram window. Bucket {@code b} of key {@code k} is the hash {@code
 * <prefix>:{<name>|<k>}:h3:<layout>:<b>}, one field per delta ({@code <publisher>:<sequence>}, see
 * {@link FleetDeltas}); the window's keys are indexed in the sorted set {@code
 * <prefix>:{<name>}:h3:<layout>:keys} (member: key, score: the latest bucket it was published in).
 *
 * <p>One key's buckets share a hash tag, so a snapshot of one key reads one node of a cluster,
 * while different keys spread over its masters. Name and key are escaped as in {@link
 * DecisionKeys}, and {@code |} as {@code %7C}, so no two (name, key) pairs share a tag and no key's
 * tag is the index's. The layout part (bucket width in nanoseconds, significant digits, lowest
 * discernible value) keeps windows whose slots or buckets mean different things apart; {@code h3}
 * marks this layout.
 */
final class FleetKeys {
  private final String prefix;
  private final String escapedName;
  private final String layout;
  private final String index;

  FleetKeys(String prefix, String name, long widthNanos, int significantDigits, long lowest) {
    this.prefix = prefix;
    this.escapedName = escape(name);
    this.layout = ":h3:w" + widthNanos + "d" + significantDigits + "l" + lowest;
    this.index = prefix + ":{" + escapedName + "}" + layout + ":keys";
  }

  /** The prefix of every bucket of {@code key}: append the bucket index. */
  String keyBase(String key) {
    return prefix + ":{" + escapedName + "|" + escape(key) + "}" + layout + ":";
  }

  /** The sorted set of the window's keys. */
  String index() {
    return index;
  }

  private static String escape(String s) {
    return DecisionKeys.escape(s).replace("|", "%7C");
  }
}
