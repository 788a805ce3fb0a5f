package io.ringtail.redis;

/**
 * The Redis keys of a fleet histogram window. A window's keys are spread over {@link #GROUPS}
 * groups by a hash of the key; group {@code g} lives under the hash tag {@code {<name>@<g>}}, so
 * one group is one slot of a cluster and its merge is one script call, while a window's groups
 * spread over the masters. Per group, under {@code <prefix>:{<name>@<g>}:h4:<layout>:}:
 *
 * <ul>
 *   <li>{@code in}: the inbox, a hash of the processes' batches not merged yet ({@code
 *       <process>:<sequence>} to {@link FleetCodec.Batch} bytes);
 *   <li>{@code v}: the stamp of the group's last merge (what a merge compares and sets);
 *   <li>{@code t}: the mergers' table ({@link FleetCodec.Table});
 *   <li>{@code hd}: the readers' head ({@link FleetCodec.Head});
 *   <li>{@code sm}: the group's summary, its keys' numbers ({@link FleetCodec.Summary});
 *   <li>{@code lease}: which process merges the group, with a TTL;
 *   <li>{@code b:<key>:<bucket>}: one key's merged bucket ({@link FleetCodec#encodeBucket}).
 * </ul>
 *
 * <p>Name and key are escaped as in {@link DecisionKeys}, and {@code @} as {@code %40}, so no two
 * windows share a tag. The layout part (bucket width in nanoseconds, significant digits, lowest
 * discernible value) keeps windows whose slots or buckets mean different things apart; {@code h4}
 * marks this layout. Immutable.
 */
final class FleetKeys {
  /** Groups per window: spread over any cluster of ordinary size, 16 reads at most. */
  static final int GROUPS = 16;

  private final String[] bases = new String[GROUPS];

  FleetKeys(String prefix, String name, long widthNanos, int significantDigits, long lowest) {
    String escapedName = DecisionKeys.escape(name).replace("@", "%40");
    String layout = ":h4:w" + widthNanos + "d" + significantDigits + "l" + lowest + ":";
    for (int g = 0; g < GROUPS; g++) {
      bases[g] = prefix + ":{" + escapedName + "@" + g + "}" + layout;
    }
  }

  /** The group of {@code key}: the same in every process (a mix of {@link String#hashCode}). */
  static int group(String key) {
    int h = key.hashCode() * 0x9E3779B9;
    return (h ^ (h >>> 16)) & (GROUPS - 1);
  }

  String inbox(int group) {
    return bases[group] + "in";
  }

  String stamp(int group) {
    return bases[group] + "v";
  }

  String table(int group) {
    return bases[group] + "t";
  }

  String head(int group) {
    return bases[group] + "hd";
  }

  String summary(int group) {
    return bases[group] + "sm";
  }

  String lease(int group) {
    return bases[group] + "lease";
  }

  /** One key's merged bucket; the key must belong to {@code group}. */
  String bucket(int group, String key, long bucket) {
    return bases[group] + "b:" + DecisionKeys.escape(key) + ":" + bucket;
  }
}
