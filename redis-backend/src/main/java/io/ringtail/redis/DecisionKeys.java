package io.ringtail.redis;

/**
 * Keys of one decision's state for one user key: {@code <prefix>:{<name>:<key>}:<suffix>}, name and
 * key escaped like {@link WindowKeys} plus {@code :} to {@code %3A}, so every key of one (decision,
 * user key) pair shares a hash tag and different pairs never collide.
 */
final class DecisionKeys {
  private DecisionKeys() {}

  static String[] of(String prefix, String name, String key, String... suffixes) {
    String tag = prefix + ":{" + escape(name) + ":" + escape(key) + "}:";
    String[] keys = new String[suffixes.length];
    for (int i = 0; i < suffixes.length; i++) {
      keys[i] = tag + suffixes[i];
    }
    return keys;
  }

  static String escape(String s) {
    StringBuilder b = new StringBuilder(s.length() + 8);
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '%' -> b.append("%25");
        case '{' -> b.append("%7B");
        case '}' -> b.append("%7D");
        case ':' -> b.append("%3A");
        default -> b.append(c);
      }
    }
    return b.toString();
  }
}
