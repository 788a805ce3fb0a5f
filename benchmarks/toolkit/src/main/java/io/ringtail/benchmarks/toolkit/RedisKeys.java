package io.ringtail.benchmarks.toolkit;

import java.util.regex.Pattern;

/**
 * The Redis keys the library writes, from the key layout in {@code docs/redis.md}: the window
 * {@code name} under {@code prefix} keeps {@code <prefix>:{<name>}:t}, {@code :v}, {@code :s} and
 * {@code :r}; a decision {@code name} keeps, per user key, {@code <prefix>:{<name>:<key>}:<suffix>}
 * for each of its suffixes. A name or key with a character the library escapes ({@code %}, braces,
 * and {@code :} in a decision) is refused, not escaped: the measurements pick plain names.
 * Stateless.
 */
public final class RedisKeys {
  private static final Pattern PLAIN = Pattern.compile("[^%{}:]+");

  private RedisKeys() {}

  /** Time ZSET, value ZSET, sum and rejected ZSET of the window {@code name}. */
  public static String[] window(String prefix, String name) {
    String tag = prefix + ":{" + plain("name", name) + "}:";
    return new String[] {tag + "t", tag + "v", tag + "s", tag + "r"};
  }

  /** The keys of decision {@code name}'s state for user key {@code key}, one per suffix. */
  public static String[] decision(String prefix, String name, String key, String... suffixes) {
    String tag = prefix + ":{" + plain("name", name) + ":" + plain("key", key) + "}:";
    String[] keys = new String[suffixes.length];
    for (int i = 0; i < suffixes.length; i++) {
      keys[i] = tag + suffixes[i];
    }
    return keys;
  }

  private static String plain(String what, String s) {
    if (!PLAIN.matcher(s).matches()) {
      throw new IllegalArgumentException(
          what + " must be non-empty without %, braces or colons, but was '" + s + "'");
    }
    return s;
  }
}
